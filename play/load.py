"""A load test of the web table: many clients at once against a running server.

    zolik play --no-browser --port 8765 --opponents random --games /tmp/table &
    python -m play.load --url http://127.0.0.1:8765 --clients 100 --seconds 60 --pid PID
    python -m play.load ... --rate 400       the same clients sending 400 requests/s in all

Each client loops over a mix of what pages do and what a hostile page sends: a solo game
played move by move, a room made and joined, hints, views, a recorded replay read by the
viewer, and malformed bodies (deep JSON, huge integers, text/plain, a foreign
Host, an oversized body). It prints requests per second, the 5xx count (must be 0), the
p50/p95/max latency and the refusals (4xx) per kind of request, and (``--pid``) the
server's CPU time per request and its resident memory at the start and the end (the
server's process and its replay readers). The clients cost little per request (one
keep-alive connection each, an answer parsed only when its content is needed) since they
share the machine with the server. Standard library only: threads and ``http.client``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import pathlib
import threading
import time
import urllib.parse
from collections import defaultdict
from typing import Any

BAD_BODIES: list[tuple[bytes, dict[str, str]]] = [
    (b"[" * 5000 + b"]" * 5000, {}),
    (b'{"action": ' + b"9" * 5000 + b"}", {}),
    (b'{"action": 1}', {"Content-Type": "text/plain"}),
    (b"{}", {"Host": "evil.example"}),
    (b'{"a": "' + b"x" * 20_000 + b'"}', {}),
    (b"{not json", {}),
]


class Client:
    """One simulated page: its own connection, its own games."""

    def __init__(self, host: str, port: int, replay: bytes, stats: dict[str, list[float]],
                 errors: list[str], number: int, refused: dict[str, int]) -> None:
        self.host, self.port, self.replay = host, port, replay
        self.stats, self.errors, self.number = stats, errors, number
        self.refused = refused  # 4xx answers by kind
        self.interval: float | None = None  # paced (``--rate``): seconds between requests
        self.slot = 0.0  # when the next paced request is due (perf_counter)
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.game: dict[str, Any] | None = None

    def request(self, kind: str, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None, parse: bool = False) -> tuple[int, Any]:
        """Send one request; its status and (``parse``) its JSON answer. Paced, it waits
        for its slot and its time counts from the slot, however late it is sent."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        start = time.perf_counter()
        if self.interval is not None:
            if self.slot > start:
                time.sleep(self.slot - start)
            start, self.slot = self.slot, self.slot + self.interval
        try:
            self.conn.request(method, path, body, sent)
            response = self.conn.getresponse()
            status, text = response.status, response.read()
            if response.getheader("connection", "").lower() == "close":
                self.conn.close()
        except (OSError, http.client.HTTPException) as err:
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.errors.append(f"{kind}: {type(err).__name__}")
            return 0, None
        self.stats[kind].append(time.perf_counter() - start)
        if status >= 500:
            self.errors.append(f"{kind}: {status} {text[:200]!r}")
        elif status >= 400:
            self.refused[kind] += 1
        if not parse or status != 200:
            return status, None
        try:
            return status, json.loads(text)
        except ValueError:
            return status, None

    def step(self, i: int) -> None:
        """One request of the mix (``i`` picks which)."""
        if self.game is None or not self.game.get("moves"):
            status, data = self.request("new game", "POST", "/api/games",
                                        b'{"opponents": ["random"]}', parse=True)
            self.game = data if status == 200 else None
            return
        headers = {"X-Seat-Token": self.game["token"]}
        game_id, token = self.game["game"], self.game["token"]
        pick = i % 10
        if pick < 5:
            status, data = self.request(
                "move", "POST", f"/api/games/{game_id}/move",
                b'{"action": %d}' % self.game["moves"][0]["id"], headers, parse=True)
            self.game = {**data, "token": token} if status == 200 else None
        elif pick == 5:
            self.request("hint", "GET", f"/api/games/{game_id}/hint?agent=random",
                         headers=headers)
        elif pick == 6:
            self.room()
        elif pick == 7:
            self.request("replay", "POST", "/api/replays", self.replay,
                         {"Content-Type": "application/x-ndjson"})
        elif pick == 8:
            body, extra = BAD_BODIES[(i // 10 + self.number) % len(BAD_BODIES)]
            self.request("bad body", "POST", f"/api/games/{game_id}/move", body,
                         {**headers, **extra})
        else:
            self.request("view", "GET", f"/api/games/{game_id}", headers=headers)

    def room(self) -> None:
        status, data = self.request(
            "room", "POST", "/api/games",
            b'{"players": 3, "humans": 2, "opponents": ["random"]}', parse=True)
        if status == 200 and data is not None:
            self.request("join", "POST", f"/api/rooms/{data['room']}/join", b"{}")


def family(pid: int) -> list[int]:
    """Process ``pid`` and its descendants (the server and its replay readers; Linux)."""
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        for children in pathlib.Path(f"/proc/{found[-1]}/task").glob("*/children"):
            try:
                todo += [int(c) for c in children.read_text().split()]
            except (OSError, ValueError):
                continue
    return found


def rss_kb(pid: int | None, alone: bool = False) -> int | None:
    """The resident memory of process ``pid`` and its descendants (``alone``: of that
    process only) in kB, or None."""
    if pid is None:
        return None
    total = 0
    for member in [pid] if alone else family(pid):
        try:
            for line in pathlib.Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total or None


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user + system) of process ``pid`` and its descendants, or None."""
    if pid is None:
        return None
    total = 0
    for member in family(pid):
        try:
            fields = pathlib.Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(url: str, clients: int, seconds: float, replay: bytes,
        refused: dict[str, int] | None = None, rate: float | None = None
        ) -> tuple[dict[str, list[float]], list[str], float]:
    """``clients`` clients for ``seconds``: the latencies by kind of request, the errors
    (5xx, dropped connections) and the time taken; the 4xx by kind into ``refused``.
    ``rate``: requests per second in all, each client sending at its share of it (each
    request timed from when it was due); None: each as fast as it is answered."""
    parts = urllib.parse.urlsplit(url)
    stats: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    refused = defaultdict(int) if refused is None else refused
    stop = time.monotonic() + seconds

    def loop(number: int) -> None:
        client, i = Client(parts.hostname or "127.0.0.1", parts.port or 80, replay, stats,
                           errors, number, refused), number
        if rate:
            client.interval = clients / rate
            client.slot = time.perf_counter() + client.interval * number / clients
        while time.monotonic() < stop:
            client.step(i)
            i += 1

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(clients)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return stats, errors, time.monotonic() - start


def sample_replay() -> bytes:
    """A recorded deal of random moves, as the viewer would post it."""
    from zolik_env.envs import replay
    from zolik_env.rummy import options

    return replay.record_random(options.preset("cz"), 2_000_000_001).dumps().encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m play.load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8765")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=None,
                        help="requests per second in all, spread over the clients (default: "
                             "each client as fast as it is answered)")
    parser.add_argument("--pid", type=int,
                        help="the server's process id (its CPU time and memory)")
    args = parser.parse_args(argv)
    replay, refused = sample_replay(), defaultdict(int)
    before, cpu_before, own_before = rss_kb(args.pid), cpu_seconds(args.pid), time.process_time()
    stats, errors, took = run(args.url, args.clients, args.seconds, replay, refused,
                              args.rate)
    cpu_after, own = cpu_seconds(args.pid), time.process_time() - own_before
    total = sum(len(v) for v in stats.values())
    print(f"{args.clients} clients, {took:.1f} s: {total} requests, {total / took:.0f}/s, "
          f"{len(errors)} errors (5xx or dropped connections)")
    print("| request | count | 4xx | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|---:|")
    for kind, values in sorted(stats.items()):
        print(f"| {kind} | {len(values)} | {refused.get(kind, 0)} | "
              f"{1000 * percentile(values, 0.5):.0f} | {1000 * percentile(values, 0.95):.0f} | "
              f"{1000 * max(values):.0f} |")
    print(f"load client CPU: {1000 * own / max(total, 1):.2f} ms per request")
    if cpu_before is not None and cpu_after is not None:
        spent = cpu_after - cpu_before
        print(f"server CPU: {1000 * spent / max(total, 1):.2f} ms per request "
              f"({spent / took:.2f} cores)")
    if before is not None and args.pid is not None:
        print(f"server memory: {before / 1024:.0f} MB before, "
              f"{(rss_kb(args.pid) or 0) / 1024:.0f} MB after; its own process "
              f"{(rss_kb(args.pid, alone=True) or 0) / 1024:.0f} MB after")
    for error in errors[:10]:
        print("error:", error)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
