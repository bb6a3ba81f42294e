"""The web table (``zolik play``): its JSON API through Starlette's test client, hidden
cards under counterfactuals, tokens, bad requests, saved games; and the page in a real
browser (Debian's chromium driven by Playwright)."""

import contextlib
import dataclasses
import functools
import json
import socket
import threading
import time

import numpy as np
import pytest
from starlette.testclient import TestClient

from play.server import create_app
from play.session import TableGame
from tests.envs.test_no_peek import hidden_swap
from zolik_env.envs import replay
from zolik_env.rummy import game, options

# the server serves localhost names and addresses only (its Host allow-list)
local_client = functools.partial(TestClient, base_url="http://localhost")
NDJSON = {"Content-Type": "application/x-ndjson"}  # how the replay viewer posts a file


class RaisingBot:
    name = "raising"

    def act(self, obs, mask, rng):
        raise RuntimeError("the bot broke")

    def act_batch(self, obs, mask, rng):
        raise RuntimeError("the bot broke")


def raising_bot(rules):
    return RaisingBot()


@pytest.fixture
def client(tmp_path):
    with local_client(create_app(tmp_path / "games")) as test_client:
        yield test_client


def start(client, **settings):
    body = {"preset": "cz", "players": 2, "opponents": ["greedy"], **settings}
    if settings.get("humans", 1) == 1:
        body.setdefault("seed", 2_000_000_123)  # a room's seed is the server's own
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    return data["game"], {"X-Seat-Token": data["token"]}, data


def test_new_game__the_page_gets_its_own_hand_and_counts_of_the_others(client):
    game_id, headers, data = start(client, players=3)
    assert data["players"] == 3 and len(data["seats"]) == 3 and data["seat"] == 0
    assert len(data["hand"]) == data["seats"][0]["cards"]
    assert all(isinstance(s["cards"], int) for s in data["seats"])
    assert "2000000123" not in client.get(f"/api/games/{game_id}", headers=headers).text
    assert data["current"] == 0 and data["moves"]  # seat 0 starts: its moves are offered


def _page_texts(client, game_id, headers):
    return (client.get(f"/api/games/{game_id}", headers=headers).content,
            client.get(f"/api/games/{game_id}/hint", headers=headers).content,
            client.get(f"/api/games/{game_id}/agents", headers=headers).content)


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_no_peek__every_response_is_the_same_when_hidden_cards_change(tmp_path, preset,
                                                                     players):
    app_client = local_client(create_app(tmp_path / "games"))
    game_id, headers, _ = start(app_client, preset=preset, players=players,
                                opponents=["greedy"])
    rng, compared = np.random.default_rng(7), 0
    for _ in range(40):
        live = _table(app_client, game_id)
        if live.state.done[0]:
            break
        other = hidden_swap(live.state, live.human, rng)
        if other is not None:
            before = _page_texts(app_client, game_id, headers)
            real, live.state = live.state, other
            after = _page_texts(app_client, game_id, headers)
            live.state = real
            assert before == after
            assert b'"end"' not in before[0]  # every hand: only once the deal is over
            compared += 1
        moves = json.loads(before[0] if other is not None else
                           app_client.get(f"/api/games/{game_id}", headers=headers).content)
        choice = moves["moves"][int(rng.integers(len(moves["moves"])))]
        app_client.post(f"/api/games/{game_id}/move", json={"action": choice["id"]},
                        headers=headers)
    assert compared >= 10


def _table(app_client, game_id):
    """The live ``TableGame`` behind the app."""
    return app_client.app.state.games[game_id]


def test_a_planted_leak_in_the_view_is_caught(tmp_path, monkeypatch):
    from play import session

    honest = session.seat_view
    monkeypatch.setattr(session, "seat_view", lambda rules, state, seat: {
        **honest(rules, state, seat), "held": state.hands[0].sum(axis=0).tolist()})
    app_client = local_client(create_app(tmp_path / "games"))
    game_id, headers, _ = start(app_client)
    live, rng = _table(app_client, game_id), np.random.default_rng(7)
    leaked = False
    for _ in range(20):
        other = hidden_swap(live.state, live.human, rng)
        if other is None:
            continue
        before = _page_texts(app_client, game_id, headers)
        real, live.state = live.state, other
        leaked |= before != _page_texts(app_client, game_id, headers)
        live.state = real
    assert leaked


def test_bad_requests__a_reason_and_the_game_unchanged(client):
    game_id, headers, data = start(client)
    url = f"/api/games/{game_id}"
    before = client.get(url, headers=headers).content
    illegal = next(a for a in range(2658) if a not in {m["id"] for m in data["moves"]})
    for body, status, reason in (({"action": illegal}, 400, "not a legal move"),
                                 ({"action": "meld AS AS AS"}, 400, ""),
                                 ({"action": 1.5}, 400, "action id"),
                                 ({"action": True}, 400, "action id"),
                                 ({}, 400, "give the move")):
        response = client.post(f"{url}/move", json=body, headers=headers)
        assert response.status_code == status and reason in response.json()["error"]
    response = client.post(f"{url}/move", content=b"{not json",
                           headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 400 and "malformed JSON" in response.json()["error"]
    as_text = client.post(f"{url}/move", content=b'{"action": 1}',  # a cross-site form post
                          headers={**headers, "Content-Type": "text/plain"})
    assert as_text.status_code == 415
    assert client.get(url, headers=headers).content == before
    assert client.get("/api/games/feedbeef00", headers=headers).status_code == 404
    assert client.post("/api/games", json={"players": 9}).status_code == 400
    assert client.post("/api/games", json={"opponents": ["wizard"]}).status_code == 400


def test_tokens__no_one_sees_or_moves_for_another_seat(client):
    game_id, headers, data = start(client)
    other_id, other_headers, _ = start(client)
    url = f"/api/games/{game_id}"
    for wrong in ({}, {"X-Seat-Token": "guess"}, other_headers):
        assert client.get(url, headers=wrong).status_code == 404
        move = client.post(f"{url}/move", json={"action": data["moves"][0]["id"]}, headers=wrong)
        assert move.status_code == 404
        assert client.get(f"{url}/hint", headers=wrong).status_code == 404
    assert client.get(url, headers=headers).json()["log"] == data["log"]  # unchanged
    assert client.get(f"/api/games/{other_id}", headers=other_headers).status_code == 200


def test_games_are_isolated_and_survive_a_restart(tmp_path):
    folder = tmp_path / "games"
    with local_client(create_app(folder)) as first:
        a_id, a_headers, a = start(first)
        b_id, b_headers, b = start(first)
        first.post(f"/api/games/{a_id}/move", json={"action": a["moves"][0]["id"]},
                   headers=a_headers)
        moved = first.get(f"/api/games/{a_id}", headers=a_headers).json()
        assert len(moved["log"]) > len(a["log"])
        assert first.get(f"/api/games/{b_id}", headers=b_headers).json()["log"] == b["log"]
    with local_client(create_app(folder)) as second:  # a new server on the same folder
        assert second.get(f"/api/games/{a_id}", headers=a_headers).json() == moved


def test_a_bot_that_raises_leaves_the_game_and_the_server_running(tmp_path):
    raising = "tests.play.test_web_table:raising_bot"  # offered: zolik play was given it
    client = local_client(create_app(tmp_path / "games", {"opponents": [raising]}))
    game_id, headers, data = start(client, opponents=[raising])
    url = f"/api/games/{game_id}"
    before = client.get(url, headers=headers).content
    discard = next(m for m in data["moves"] if m["group"] == "discard")
    response = client.post(f"{url}/move", json={"action": discard["id"]}, headers=headers)
    assert response.status_code == 500 and "the bot broke" in response.json()["error"]
    assert client.get(url, headers=headers).content == before
    assert start(client)[0]  # the server still makes games


def test_hint_and_replay__a_hint_is_legal_and_the_replay_comes_after_the_deal(client):
    game_id, headers, _ = start(client, opponents=["random"])
    url = f"/api/games/{game_id}"
    assert client.get(f"{url}/replay", headers=headers).status_code == 403  # live deal
    for _ in range(400):
        view = client.get(url, headers=headers).json()
        if view["done"]:
            break
        hint = client.get(f"{url}/hint", headers=headers).json()
        assert hint["id"] in {m["id"] for m in view["moves"]}
        client.post(f"{url}/move", json={"action": hint["text"]}, headers=headers)
    assert view["done"] and len(view["scores"]) == 2
    text = client.get(f"{url}/replay", headers=headers).text
    records = [json.loads(line) for line in text.splitlines()]
    assert sum(1 for _ in replay.replay(records)) == sum(r["kind"] == "move" for r in records)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _served(app):
    """Serve ``app`` with uvicorn on a free local port in a thread; yields the port."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


CHROMIUM = "/usr/bin/chromium"  # Debian's package, installed by scripts/setup.sh


@contextlib.contextmanager
def _browser(app):
    """Debian's chromium driven by Playwright, and the port ``app`` is served on."""
    from playwright.sync_api import sync_playwright

    with _served(app) as port, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser, port
        finally:
            browser.close()


def test_browser__a_person_starts_a_game_plays_moves_and_comes_back(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"]})
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("#settings[data-loaded]", state="attached")  # after the page
        assert page.input_value("input[name=opponents]") == "greedy"  # zolik play's settings
        page.wait_for_selector("#hand .card")  # dealt on load with the command's settings
        first_game = page.evaluate("localStorage.getItem('zolik-game')")
        page.click("#new-game")
        page.wait_for_function("(first) => localStorage.getItem('zolik-game') !== first",
                               arg=first_game)  # the new game has arrived, not the first one
        page.wait_for_function("document.querySelectorAll('#hint-agent option').length >= 3")
        assert page.locator("#hand .card").count() >= 14
        page.select_option("#hint-agent", "greedy")  # a hint from another agent
        page.click("#hint")
        page.wait_for_function("document.getElementById('hint-text').textContent !== ''")
        assert page.inner_text("#hint-text").startswith("greedy would play")
        page.click("#all-moves summary")  # the move list, for keyboard users
        assert page.locator(".move.hinted").count() == 1
        page.focus("#hand .card >> nth=1")
        page.keyboard.press("ArrowLeft")  # arrows move between the cards
        first = page.get_attribute("#hand .card >> nth=0", "data-index")
        assert page.evaluate("document.activeElement.dataset.index") == first
        page.keyboard.press(" ")  # select the first card, from the keyboard
        page.keyboard.press("Enter")  # and discard it: the first turn is a discard only
        page.wait_for_function("document.querySelectorAll('#log-list li').length >= 2")
        page.keyboard.press("s")  # sort by rank
        assert "rank" in page.inner_text("#sort")
        page.wait_for_function("document.body.dataset.animating === undefined")
        page.keyboard.press("Enter")  # nothing selected in the draw: draw from the stock
        page.wait_for_function("document.querySelector('#log-list li:last-child')"
                               ".textContent === 'seat 0: draw stock'")
        moves_before = page.locator("#log-list li").count()
        page.reload()  # a closed tab comes back to its game
        page.wait_for_function(
            f"document.querySelectorAll('#log-list li').length === {moves_before}")


def test_table_game__bots_only_see_their_seat(tmp_path):
    table = TableGame.new(tmp_path, "cz", 2, ["planner"], seed=2_000_000_001)
    assert not table.state.done[0] and int(table.state.current[0]) == table.human
    assert game.legal_action_mask(table.rules, table.state)[0].any()


@pytest.mark.parametrize(("argv", "shown"), [(["--opponents", "wizard"], "wizard"),
                                             (["--port", "0"], "--port"),
                                             (["--players", "3", "--opponents", "a", "b", "c"],
                                              "give one spec or 2"),
                                             (["--players", "4", "--opponents",
                                               "pretrained:cz_2p"], "pretrained:cz_2p"),
                                             (["--opening-points", "999"], "999"),
                                             (["--match-length", "3"], "needs --match"),
                                             (["--match", "--match-length", "0"], "0")])
def test_cli__bad_options_are_one_line_before_the_server_starts(argv, shown, capsys):
    from cli import play

    with pytest.raises(SystemExit) as stop:
        play.main([*argv, "--no-browser"])
    assert stop.value.code == 2 and shown in capsys.readouterr().err.splitlines()[-1]


def test_match__deals_follow_each_other_with_running_totals_until_the_end(client):
    game_id, headers, data = start(client, preset="jolly", opponents=["greedy"], match=True,
                                   seed=2_000_000_005)
    url, rng = f"/api/games/{game_id}", np.random.default_rng(0)
    assert data["match"] == {"deals": 0, "totals": [0, 0], "over": False, "winners": []}
    assert client.post(f"{url}/next", json={}, headers=headers).status_code == 400  # deal not over
    scores, view = [], data
    for _ in range(4000):
        if view["done"]:
            scores.append(view["scores"])
            if view["match"]["over"]:
                break
            assert client.get(f"{url}/replay", headers=headers).status_code == 403
            view = client.post(f"{url}/next", json={}, headers=headers).json()
            assert view["deal"] == len(scores) and not view["done"]
            continue
        # draws and discards only: the greedy bot goes out, so the match ends in few deals
        quick = [m for m in view["moves"] if m["group"] in ("draw", "discard")] or view["moves"]
        move = quick[int(rng.integers(len(quick)))]["id"]
        view = client.post(f"{url}/move", json={"action": move}, headers=headers).json()
    totals = [sum(s[i] for s in scores) for i in range(2)]
    assert view["match"]["over"] and len(scores) >= 2 and view["match"]["totals"] == totals
    assert max(totals) >= 250 and view["match"]["winners"] == [totals.index(max(totals))]
    over = client.post(f"{url}/next", json={}, headers=headers)
    assert over.status_code == 400  # the match is over
    records = [json.loads(line) for line in
               client.get(f"{url}/replay", headers=headers).text.splitlines()]
    assert sum(r["kind"] == "result" for r in records) == len(scores)


def test_replay_viewer__any_recorded_game_as_frames_with_every_hand(client):
    rules = options.preset("sk", num_players=3, max_turns=40)
    recorder = replay.record_random(rules, 2_000_000_777)
    text = recorder.dumps()
    response = client.post("/api/replays", headers=NDJSON, content=text.encode())
    assert response.status_code == 200, response.text
    data = response.json()
    moves = sum(r["kind"] == "move" for r in recorder.records)
    assert len(data["frames"]) == moves + 1 and data["frames"][-1]["move"] is None
    first = data["frames"][0]
    assert [len(h) for h in first["hands"]] == [s["cards"] for s in first["seats"]]
    assert data["frames"][-1]["scores"] == recorder.records[-1]["scores"]
    tampered = text.replace('"winner": -1', '"winner": 1').replace('"truncated": true',
                                                                   '"truncated": false')
    bad = client.post("/api/replays", headers=NDJSON, content=tampered.encode())
    assert bad.status_code == 400 and "line" in bad.json()["error"]
    cut = client.post("/api/replays", headers=NDJSON,
                      content="\n".join(text.splitlines()[:5]).encode())
    assert cut.status_code == 400 and "no result line" in cut.json()["error"]
    assert client.post("/api/replays", headers=NDJSON, content=b"{oops").status_code == 400


def test_browser__the_replay_viewer_steps_forward_and_back(tmp_path):
    rules = options.preset("cz", num_players=2)
    path = tmp_path / "game.jsonl"
    replay.record_random(rules, 2_000_000_778).save(path)
    with _browser(create_app(tmp_path / "games")) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/replay")
        page.set_input_files("#file", str(path))
        page.wait_for_function("document.getElementById('where').textContent.startsWith('move 1 ')")
        first = page.inner_text("#status")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("document.getElementById('where').textContent.startsWith('move 2 ')")
        assert page.inner_text("#status") != first
        assert page.locator("#hands .seat").count() == 2
        page.click("#prev")
        assert page.inner_text("#status") == first
        page.click("#last")
        assert "deal over" in page.inner_text("#status")


def test_rooms__friends_join_by_code_and_each_token_is_one_seat(client):
    game_id, host, data = start(client, players=3, humans=2, opponents=["greedy"])
    code = data["room"]
    assert len(code) == 6 and code.isalnum() and data["humans"] == [0]
    joined = client.post(f"/api/rooms/{code}/join", json={})
    assert joined.status_code == 200
    friend = {"X-Seat-Token": joined.json()["token"]}
    assert joined.json()["seat"] == 1 and joined.json()["game"] == game_id
    assert client.post(f"/api/rooms/{code}/join", json={}).status_code == 409  # every seat taken
    guessed = "".join(reversed(code)) if code[::-1] != code else "ZZZZZZ"
    assert client.post(f"/api/rooms/{guessed}/join", json={}).status_code == 404
    url = f"/api/games/{game_id}"
    mine, theirs = (client.get(url, headers=h).json() for h in (host, friend))
    assert mine["seat"] == 0 and theirs["seat"] == 1
    assert mine["hand"] != theirs["hand"] and theirs["moves"] == []  # seat 0 is to act
    move = {"action": mine["moves"][0]["id"]}
    refused = client.post(f"{url}/move", json=move, headers=friend)  # not the friend's turn
    assert refused.status_code == 400 and "seat 0's turn" in refused.json()["error"]
    assert client.get(url, headers=host).json()["log"] == mine["log"]
    discard = next(m for m in mine["moves"] if m["group"] == "discard")
    after = client.post(f"{url}/move", json={"action": discard["id"]}, headers=host).json()
    assert after["current"] == 1 and after["log"][-1]["seat"] == 0  # the friend is to act
    friend_view = client.get(url, headers=friend).json()
    assert friend_view["moves"] and friend_view["current"] == 1
    assert client.get(f"{url}/hint", headers=host).status_code == 400  # not the host's turn


def test_rooms__a_seat_never_sees_the_other_humans_hand(tmp_path):
    app_client = local_client(create_app(tmp_path / "games"))
    game_id, host, data = start(app_client, players=2, humans=2, opponents=[])
    joined = app_client.post(f"/api/rooms/{data['room']}/join", json={})
    friend = {"X-Seat-Token": joined.json()["token"]}
    live, rng = _table(app_client, game_id), np.random.default_rng(4)
    compared = 0
    for _ in range(30):
        for seat, headers in ((0, host), (1, friend)):
            other = hidden_swap(live.state, seat, rng)
            if other is None:
                continue
            before = _page_texts(app_client, game_id, headers)
            real, live.state = live.state, other
            assert _page_texts(app_client, game_id, headers) == before
            live.state, compared = real, compared + 1
        to_act = host if live.state.current[0] == 0 else friend
        moves = app_client.get(f"/api/games/{game_id}", headers=to_act).json()["moves"]
        if not moves:
            break
        choice = moves[int(rng.integers(len(moves)))]["id"]
        app_client.post(f"/api/games/{game_id}/move", json={"action": choice}, headers=to_act)
    assert compared >= 30


def test_rooms__the_code_expires_with_the_game(client):
    game_id, _, data = start(client, players=2, humans=2, opponents=[], preset="cz")
    code = data["room"]
    table = client.app.state.games[game_id]
    table.state = table.state.replace(truncated=np.array([True]))  # as if the deal ran out
    assert client.post(f"/api/rooms/{code}/join", json={}).status_code == 404


def test_browser__a_friend_joins_a_room_and_sees_the_move_made_across_the_table(tmp_path):
    with _browser(create_app(tmp_path / "games")) as (browser, port):
        host, friend = browser.new_context().new_page(), browser.new_context().new_page()
        host.goto(f"http://127.0.0.1:{port}/")
        host.wait_for_selector("#hand .card")
        host.click("#setup summary")
        host.select_option("select[name=humans]", "2")
        host.click("#new-game")
        host.wait_for_function("document.getElementById('room').textContent.startsWith('room')")
        code = host.inner_text("#room").split()[1].rstrip(":")
        friend.goto(f"http://127.0.0.1:{port}/")
        friend.wait_for_selector("#hand .card")  # its script is running: the join is handled
        friend.fill("input[name=code]", code.lower())  # codes are read out loud: any case
        friend.click("#join button")
        friend.wait_for_function("document.getElementById('status').textContent.includes('seat 1')")
        assert friend.locator(".move").count() == 0  # the host is to act
        host.click("#hand .card >> nth=0")  # select a card, click the pile: discarded
        host.click("#discard")
        friend.wait_for_function(  # its poll saw the host's discard
            "document.getElementById('status').textContent.includes('Your turn')",
            timeout=10_000)


def test_dice__a_game_to_the_end_with_the_optimums_advice_and_score(tmp_path):
    folder = tmp_path / "games"
    with local_client(create_app(folder)) as client:
        data = client.post("/api/dice", json={"joker": "forced", "seed": 2_000_000_321}).json()
        url, headers = f"/api/dice/{data['game']}", {"X-Seat-Token": data["token"]}
        assert len(data["dice"]) == 5 and data["rolls_left"] == 2 and not data["done"]
        bad = client.post(f"{url}/move", json={"action": 999}, headers=headers)
        assert bad.status_code == 400 and "not a legal move" in bad.json()["error"]
        assert client.get(url, headers={"X-Seat-Token": "guess"}).status_code == 404
        view = client.post(f"{url}/move", json={"action": "reroll 0,1"}, headers=headers).json()
        assert view["rolls_left"] == 1 and view["advice"]["yours"] == "reroll 0,1"
        for _ in range(13 * 3):
            if view["done"]:
                break
            scoring = [m for m in view["moves"] if m["text"].startswith("score")]
            view = client.post(f"{url}/move", json={"action": scoring[0]["id"]},
                               headers=headers).json()
        assert view["done"] and all(box["score"] is not None for box in view["boxes"])
        assert view["optimal_expected"] == 254.59 and view["optimal_same_seed"] > 0
    with local_client(create_app(folder)) as again:  # read back after a restart
        assert again.get(url, headers=headers).json() == view


def test_dice__the_page_never_learns_future_rolls(client, monkeypatch):
    data = client.post("/api/dice", json={"seed": 2_000_000_322}).json()
    url, headers = f"/api/dice/{data['game']}", {"X-Seat-Token": data["token"]}
    table = client.app.state.dice_games[data["game"]]
    before = client.get(url, headers=headers).content
    table.state = dataclasses.replace(table.state, key=table.state.key + np.uint64(12345))
    assert client.get(url, headers=headers).content == before  # another future, same page
    assert str(int(table.state.key[0])) not in before.decode()


def test_browser__pet_kostek_keep_roll_and_score(tmp_path):
    with _browser(create_app(tmp_path / "games")) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/dice")
        page.fill("input[name=seed]", "2000000323")
        page.click("#new-game")
        page.wait_for_selector("#dice .die")
        page.click("#dice .die >> nth=0")  # keep the first die
        page.keyboard.press("2")  # and the second, from the keyboard
        page.click("#roll")
        page.wait_for_function("document.getElementById('status').textContent.includes('left 1')")
        assert "reroll dice 3, 4, 5" in page.inner_text("#advice")  # numbered as the keys
        assert page.locator("#dice .die >> nth=0").inner_text().strip().endswith("1")
        page.locator("#card .move").first.click()
        page.wait_for_function("document.getElementById('status').textContent.includes('left 2')")


def test_browser__a_whole_deal_played_by_clicking_with_an_undo_and_hints(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"], "seed": 2_000_000_402})
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.click("#new-game")
        page.click("#all-moves summary")  # the move buttons, a keyboard user's way
        page.wait_for_selector(".move")
        undone = hinted = 0
        for _ in range(600):
            if "deal over" in page.inner_text("#status"):
                break
            settled = page.get_attribute("body", "data-moves")
            undo = page.locator(".move", has_text="undo")
            if not undone and undo.count():
                undo.click()
                undone += 1
            else:
                page.click("#hint")  # the planner's move, outlined; then click it
                page.wait_for_selector(".move.hinted")
                page.click(".move.hinted")
                hinted += 1
            page.wait_for_function(f"document.body.dataset.moves !== '{settled}'")
        assert "deal over" in page.inner_text("#status") and undone == 1 and hinted > 5
        scores = page.inner_text("#status").split("scores ")[1]
        assert len(scores.split(",")) == 2


def test_browser__dragging_a_card_to_the_piles_discards_it(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"], "seed": 2_000_000_403})
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.wait_for_selector("#hand .card")  # the game dealt on load
        first_game = page.evaluate("localStorage.getItem('zolik-game')")
        page.click("#new-game")
        page.wait_for_function("(first) => localStorage.getItem('zolik-game') !== first",
                               arg=first_game)  # the new game's hand, not the first one's
        card = page.locator("#hand .card").first.get_attribute("data-card")
        page.drag_and_drop("#hand .card >> nth=0", "#piles")
        page.wait_for_function("document.querySelectorAll('#log-list li').length >= 2")
        assert page.locator("#log-list li").first.inner_text() == f"seat 0: discard {card}"



def test_requests_name_only_offered_agents_and_never_choose_a_rooms_seed(client):
    for spec in ("builtins:print", "ppo:/etc/passwd", "pimc:rollouts=100000", 5):
        response = client.post("/api/games", json={"opponents": [spec]})
        assert response.status_code == 400 and "not offered" in response.json()["error"]
    game_id, headers, _ = start(client)
    hint = client.get(f"/api/games/{game_id}/hint?agent=os.path:join", headers=headers)
    assert hint.status_code == 400 and "not offered" in hint.json()["error"]
    assert client.get(f"/api/games/{game_id}/hint?agent=greedy", headers=headers).json()["id"]
    room = client.post("/api/games", json={"players": 2, "humans": 2, "opponents": [],
                                           "seed": 2_000_000_001})
    assert room.status_code == 400 and "seed" in room.json()["error"]
    assert client.post("/api/games", json={"match": "false"}).status_code == 400
    assert client.post("/api/games", json={"seed": 2**70}).status_code == 400


def test_settings_never_send_the_seed(tmp_path):
    app_client = local_client(create_app(tmp_path, {"opponents": ["greedy"], "seed": 12345}))
    settings = app_client.get("/api/settings").json()
    assert "seed" not in settings and settings["opponents"] == ["greedy"]
    assert {"planner", "greedy", "random"} <= set(settings["offered"])


def test_a_failed_save_is_reported_and_the_game_is_unchanged(client, monkeypatch):
    from play import session

    game_id, headers, data = start(client)
    url = f"/api/games/{game_id}"
    before = client.get(url, headers=headers).content

    def full_disk(self):
        raise session.SaveError("cannot save the game to x: No space left on device")

    monkeypatch.setattr(session.TableGame, "save", full_disk)
    discard = next(m for m in data["moves"] if m["group"] == "discard")
    response = client.post(f"{url}/move", json={"action": discard["id"]}, headers=headers)
    assert response.status_code == 500 and "No space left" in response.json()["error"]
    assert client.get(url, headers=headers).content == before


def test_rooms__the_next_deal_is_seen_by_the_seat_that_asked(client):
    game_id, _, data = start(client, preset="jolly", players=2, humans=2, opponents=[],
                             match=True, seed=None)
    joined = client.post(f"/api/rooms/{data['room']}/join", json={})
    friend = {"X-Seat-Token": joined.json()["token"]}
    table = client.app.state.games[game_id]
    table.state = table.state.replace(truncated=np.array([True]))  # as if the deal ran out
    table.deal_scores.append([0, 0])
    view = client.post(f"/api/games/{game_id}/next", json={}, headers=friend).json()
    assert view["seat"] == 1 and view["deal"] == 1
    assert view["hand"] == client.get(f"/api/games/{game_id}", headers=friend).json()["hand"]
