"""No request stalls the web table: slow work runs off the event loop, outside any lock
other games need, with a time limit (``play.house``)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from starlette.testclient import TestClient

from play import house, server
from play import view as table_view
from play.server import create_app

NDJSON = {"Content-Type": "application/x-ndjson"}


def _client(tmp_path: Path) -> TestClient:
    # replays read in threads: the stubbed reader below runs in this process
    return TestClient(create_app(tmp_path, {"opponents": ["random"]}, replay_processes=False),
                      base_url="http://localhost")


def test_a_slow_replay_holds_up_no_game_and_is_cut_at_its_time_limit(tmp_path, monkeypatch):
    release = threading.Event()

    def slow_frames(records, limit):
        release.wait(5)
        return {"frames": []}

    monkeypatch.setattr(table_view, "replay_frames", slow_frames)
    monkeypatch.setattr(house, "REPLAY_WAIT_S", 2.0)  # a view held up by it would take 2 s
    with _client(tmp_path) as client:
        client.app.state.tables.replay_limit = 1  # one replay at a time, none waiting
        game = client.post("/api/games", json={"seed": 2_000_000_001}).json()
        answers: list[int] = []
        worker = threading.Thread(target=lambda: answers.append(client.post(
            "/api/replays", headers=NDJSON, content=b'{"kind": "game"}').status_code))
        worker.start()
        time.sleep(0.1)
        start = time.perf_counter()
        view = client.get(f"/api/games/{game['game']}", headers={"X-Seat-Token": game["token"]})
        assert view.status_code == 200 and time.perf_counter() - start < 1.0
        second = client.post("/api/replays", headers=NDJSON, content=b'{"kind": "game"}')
        assert second.status_code == 429 and "too many replays" in second.json()["error"]
        worker.join(5)
        assert answers == [503]  # past its time limit
        release.set()


def test_a_busy_game_holds_up_only_itself(tmp_path, monkeypatch):
    from play.session import TableGame

    monkeypatch.setattr(house, "LOCK_WAIT_S", 0.3)
    with _client(tmp_path) as client:
        slow = client.post("/api/games", json={"seed": 2_000_000_001}).json()
        other = client.post("/api/games", json={"seed": 2_000_000_002}).json()
        tables = client.app.state.tables
        gate = threading.Event()
        honest = TableGame.hint

        def slow_hint(self, spec="planner", seat=None):
            if self.game_id == slow["game"]:
                gate.wait(5)
            return honest(self, spec, seat)

        monkeypatch.setattr(TableGame, "hint", slow_hint)
        hints: list[int] = []
        worker = threading.Thread(target=lambda: hints.append(client.get(
            f"/api/games/{slow['game']}/hint?agent=random",
            headers={"X-Seat-Token": slow["token"]}).status_code))
        worker.start()
        time.sleep(0.1)
        fast = client.get(f"/api/games/{other['game']}/hint?agent=random",
                          headers={"X-Seat-Token": other["token"]})
        assert fast.status_code == 200
        waiting = client.get(f"/api/games/{slow['game']}",
                             headers={"X-Seat-Token": slow["token"]})
        assert waiting.status_code == 409 and "busy" in waiting.json()["error"]
        gate.set()
        worker.join(5)
        assert hints == [200] and tables.locks[slow["game"]].locked() is False


def test_a_cold_dice_solver_is_built_off_the_lock_and_asked_to_retry(tmp_path, monkeypatch):
    from play import dice_session

    build = threading.Event()
    monkeypatch.setattr(house, "SOLVER_WAIT_S", 0.2)
    monkeypatch.setattr(server, "SOLVER_WAIT_S", 0.2)
    honest = dice_session.solver.value_table

    def cold(*args):
        build.wait(5)
        return honest(*args)

    monkeypatch.setattr(dice_session.solver, "value_table", cold)
    with _client(tmp_path) as client:
        game = client.post("/api/games", json={"seed": 2_000_000_001}).json()
        first = client.post("/api/dice", json={"joker": "forced"})
        assert first.status_code == 503 and "try again" in first.json()["error"]
        view = client.get(f"/api/games/{game['game']}", headers={"X-Seat-Token": game["token"]})
        assert view.status_code == 200  # other games go on meanwhile
        build.set()
        time.sleep(0.2)
        monkeypatch.setattr(dice_session.solver, "value_table", honest)
        assert client.post("/api/dice", json={"joker": "forced"}).status_code == 200
