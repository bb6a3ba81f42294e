"""How fast a bot's move reaches the web table's page: ``zolik bench-play``.

For each agent, preset and player count, games are played through the app's HTTP API
(Starlette's test client, in process: no network), the person's seat taking the
planner's hint each turn. Timed per bot move: the bot's choice (``compute``, timed by
the table itself), and the whole request divided among the bot moves it carried
(``per move``, what the page waits for after its animation delay). Prints a table of
mean, 95th percentile and largest milliseconds.
"""

from __future__ import annotations

import pathlib
import tempfile
import time
from typing import Any

import numpy as np


def measure(agent: str, preset: str, players: int, moves: int, seed: int = 0) -> dict[str, Any]:
    """Latency figures of ``agent``'s moves at a table of ``preset`` x ``players``."""
    from starlette.testclient import TestClient

    from play.server import create_app

    per_move: list[float] = []
    computes: list[float] = []
    with tempfile.TemporaryDirectory() as folder, \
            TestClient(create_app(pathlib.Path(folder), {"opponents": [agent]}),
                       base_url="http://localhost") as client:
        game = 0
        while len(per_move) < moves:
            data = client.post("/api/games", json={
                "preset": preset, "players": players, "opponents": [agent],
                "seed": 2_000_000_000 + seed * 1000 + game}).json()
            url, headers = f"/api/games/{data['game']}", {"X-Seat-Token": data["token"]}
            view, game = data, game + 1
            while not view["done"] and len(per_move) < moves:
                hint = client.get(f"{url}/hint", headers=headers).json()
                start = time.perf_counter()
                view = client.post(f"{url}/move", json={"action": hint["id"]},
                                   headers=headers).json()
                if view["played"]:
                    took = (time.perf_counter() - start) / len(view["played"])
                    per_move += [took] * len(view["played"])
            computes += client.app.state.games[data["game"]].bot_seconds
    ms = np.asarray(per_move) * 1000
    compute = np.asarray(computes) * 1000
    return {"agent": agent, "preset": preset, "players": players, "moves": len(per_move),
            "compute_mean": float(compute.mean()), "mean": float(ms.mean()),
            "p95": float(np.percentile(ms, 95)), "max": float(ms.max())}


def format_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| agent | preset | players | bot moves | compute ms (mean) | per move ms: mean | "
             "p95 | max |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['agent']} | {r['preset']} | {r['players']} | {r['moves']} | "
                     f"{r['compute_mean']:.1f} | {r['mean']:.1f} | {r['p95']:.1f} | "
                     f"{r['max']:.1f} |")
    return "\n".join(lines)
