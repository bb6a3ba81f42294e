"""Where the web table's requests run: the held games, a lock per game, worker threads.

``House.run`` runs a request's work off the event loop (with a time limit when asked:
a 503 past it, the work finishing in the background); ``House.locked`` holds one game's
lock, so requests for one game go in turn while other games go on; ``House.held`` reads a
game back from its save on first use; ``House.sweep`` lets idle games leave memory, and
``House.hold`` keeps at most ``MAX_HELD`` games of each kind held (the longest idle go).
``as_http_error`` is the one place any failure becomes the page's answer: a 4xx with a
one-line reason for a bad request, a 409 for a damaged save, a 500 naming the failure.
"""

from __future__ import annotations

import asyncio
import hmac
import multiprocessing
import os
import pathlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.requests import Request

from play.budget import BudgetError
from play.dice_session import DiceTable
from play.saves import GAME_ID, DamagedSave, SaveError
from play.session import MoveError, TableGame

LOCK_WAIT_S = 10.0  # a request waits this long for its game's lock, then 409
REPLAY_WAIT_S = 10.0  # reading a replay for the viewer: at most this long, then 503
REPLAY_SLOTS = 2  # replays read at once (each in a process of its own: ``replay_pool``)
REPLAY_NICE = 10  # the replay readers' scheduling niceness (below the server's requests)
REPLAY_QUEUE = 6  # replays waiting for a slot; one more is a 429 at once
REPLAY_TOO_LONG = "the replay took too long to read"  # the 503 past REPLAY_WAIT_S
SOLVER_WAIT_S = 5.0  # the dice solver's first build: the request waits this long, then 503
FINISHED_IDLE_S = 60.0  # a finished game idle this long leaves memory (it is saved)
LIVE_IDLE_S = 1800.0  # a live game idle this long leaves memory too
MAX_HELD = 1000  # games held at once; past it the longest idle leave memory (saved)
SWEEP_EVERY_S = 10.0
MAX_REPLAY_MOVES = 20_000
SOLVER_BUSY = ("the optimal player's tables are being built (once, up to a minute); "
               "try again shortly")
MAX_REASON = 300


class HttpError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, one_line(reason)


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """``text`` on one line, cut at ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def as_http_error(err: BaseException) -> HttpError:
    """Any failure of a request as the answer the page gets: a 4xx for a bad request, a
    500 naming the failure for the rest."""
    if isinstance(err, HttpError):
        return err
    if isinstance(err, BudgetError):
        return HttpError(err.status, err.reason)
    if isinstance(err, DamagedSave):
        return HttpError(409, f"the saved game cannot be read back: {err}")
    if isinstance(err, MoveError):
        return HttpError(400, str(err))
    if isinstance(err, SaveError):
        return HttpError(500, str(err))
    if isinstance(err, ValueError | TypeError):
        return HttpError(400, str(err))
    return HttpError(500, f"the request failed, the game is as it was: "
                          f"{type(err).__name__}: {err}")


class House:
    """The games a server holds (read back from ``folder`` on first use after a restart),
    a lock per game, and the worker threads requests run in."""

    def __init__(self, folder: pathlib.Path, replay_processes: bool = True) -> None:
        self.folder = folder
        self.games: dict[str, TableGame] = {}
        self.dice_games: dict[str, DiceTable] = {}
        self.registry = threading.Lock()  # guards the dicts below (held briefly)
        self.locks: dict[str, threading.Lock] = {}  # one per game: its requests in turn
        self.used: dict[str, float] = {}  # when each held game was last asked for
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="zolik-slow")
        self.replay_processes = replay_processes
        self.replay_pool = self.new_replay_pool()
        self.replays_in = 0  # replays admitted and not done (running or waiting)
        self.replay_limit = REPLAY_SLOTS + REPLAY_QUEUE
        self.swept = 0.0

    # --- running work off the event loop -------------------------------------------------

    def new_replay_pool(self) -> Executor:
        """Where replays are read: ``REPLAY_SLOTS`` processes (a replay is CPU work that
        would otherwise hold the server's interpreter lock from every game), or threads
        (``replay_processes=False``: the tests that stub the reading)."""
        if self.replay_processes:  # niced: the games' requests come first
            return ProcessPoolExecutor(max_workers=REPLAY_SLOTS, initializer=start_reader,
                                       initargs=(os.getpid(),),
                                       mp_context=multiprocessing.get_context("spawn"))
        return ThreadPoolExecutor(max_workers=REPLAY_SLOTS, thread_name_prefix="zolik-replay")

    def warm_replay_readers(self) -> None:
        """Start the replay readers and load them (``warm_reader``), at a server's start
        rather than on its first replay request."""
        if self.replay_processes:
            for _ in range(REPLAY_SLOTS):
                self.replay_pool.submit(warm_reader)

    async def run(self, work: Callable[[], Any], timeout: float | None = None,
                  busy: str = "the server is busy; try again shortly",
                  pool: Executor | None = None) -> Any:
        """``work()`` in a worker thread (of ``pool``, or the slow pool with a ``timeout``);
        its errors as 4xx/5xx (``as_http_error``). With ``timeout``, a 503 ``busy`` when it
        takes longer: work not started by then never starts, work started finishes."""
        executor = pool or (None if timeout is None else self.pool)
        future = asyncio.get_running_loop().run_in_executor(executor, work)
        try:
            if timeout is None:
                return await future
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            future.cancel()  # still queued: it will not run
            raise HttpError(503, busy) from None
        except BrokenProcessPool:
            raise
        except Exception as err:
            raise as_http_error(err) from None

    async def run_replay(self, work: Callable[[], Any], timeout: float) -> Any:
        """``work()`` in the replay pool: ``REPLAY_SLOTS`` at a time with at most
        ``REPLAY_QUEUE`` waiting (beyond that a 429 at once), each for ``timeout``."""
        if self.replays_in >= self.replay_limit:
            raise HttpError(429, "too many replays are being read; try again shortly")
        self.replays_in += 1  # on the event loop's thread only: no lock needed
        try:
            return await self.run(work, timeout, REPLAY_TOO_LONG,
                                  self.replay_pool)
        except BrokenProcessPool:
            self.replay_pool = self.new_replay_pool()  # a reader died: start afresh
            raise HttpError(503, "the replay reader stopped; try again") from None
        finally:
            self.replays_in -= 1

    def lock_of(self, game_id: str) -> threading.Lock:
        with self.registry:
            return self.locks.setdefault(game_id, threading.Lock())

    def locked(self, game_id: str, work: Callable[[], Any]) -> Any:
        """``work()`` holding game ``game_id``'s lock (409 if another request of the same
        game holds it for longer than ``LOCK_WAIT_S``). A lock that ``sweep`` dropped
        while this request waited for it is let go and the current one taken instead."""
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            lock = self.lock_of(game_id)
            if not lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise HttpError(409, f"game {game_id!r} is busy with another request; "
                                     f"try again")
            with self.registry:
                current = self.locks.get(game_id) is lock
            if current:
                break
            lock.release()
        try:
            return work()
        finally:
            lock.release()

    def held(self, games: dict[str, Any], load: Callable[[pathlib.Path, str], Any],
             game_id: str) -> Any:
        """Game ``game_id``, held or read back from the save folder (a restart); 404 for
        an unknown one, 409 naming the file for a damaged save. Call under its lock."""
        table = games.get(game_id)
        if table is None:
            try:
                table = load(self.folder, game_id)
            except KeyError:
                raise HttpError(404, f"no game {game_id!r}") from None
            self.hold(games, game_id, table)
        self.used[game_id] = time.monotonic()
        self.maybe_sweep()
        return table

    def hold(self, games: dict[str, Any], game_id: str, table: Any) -> None:
        """Hold ``table`` in ``games``; past ``MAX_HELD`` games the longest idle ones
        whose lock is free leave memory (they are saved and come back when asked for)."""
        self.used[game_id] = time.monotonic()
        with self.registry:
            games[game_id] = table
            if len(games) <= MAX_HELD:
                return
            idle = sorted(games, key=lambda g: self.used.get(g, 0.0))
            for gone in idle[: len(games) - MAX_HELD * 9 // 10]:
                lock = self.locks.get(gone)
                if gone != game_id and not (lock and lock.locked()):
                    del games[gone]
                    self.used.pop(gone, None)
                    if lock is not None:
                        del self.locks[gone]

    def maybe_sweep(self) -> None:
        if time.monotonic() - self.swept > SWEEP_EVERY_S:
            self.sweep()

    def sweep(self, now: float | None = None) -> None:
        """Let idle games leave memory (they are saved): finished ones after
        ``FINISHED_IDLE_S``, live ones after ``LIVE_IDLE_S``; and unused locks."""
        now = time.monotonic() if now is None else now
        with self.registry:
            for games in (self.games, self.dice_games):
                for game_id, table in list(games.items()):
                    over = table.match_over() if isinstance(table, TableGame) \
                        else bool(table.state.done[0])
                    idle = now - self.used.get(game_id, now)
                    lock = self.locks.get(game_id)
                    if idle > (FINISHED_IDLE_S if over else LIVE_IDLE_S) and \
                            not (lock and lock.locked()):
                        del games[game_id]
                        self.used.pop(game_id, None)
            for game_id in [g for g, lock in self.locks.items() if not lock.locked()
                            and g not in self.games and g not in self.dice_games]:
                del self.locks[game_id]
        self.swept = now

    async def on_game(self, request: Request, work: Callable[[TableGame, int], Any]) -> Any:
        """``work(table, seat)`` for the game of the path and the seat of the request's
        token, under the game's lock; a wrong token is told as an unknown game (404)."""
        game_id = game_id_of(request)
        token = request.headers.get("x-seat-token", "")

        def job() -> Any:
            table = self.held(self.games, TableGame.load, game_id)
            seat = table.seat_of(token)
            if seat is None:
                raise HttpError(404, f"no game {game_id!r}")
            return work(table, seat)

        return await self.run(lambda: self.locked(game_id, job))

    async def on_dice(self, request: Request, work: Callable[[DiceTable], Any]) -> Any:
        """``work(table)`` for the dice game of the path if the request carries its token."""
        game_id = game_id_of(request)
        token = request.headers.get("x-seat-token", "")

        def job() -> Any:
            table: DiceTable = self.held(self.dice_games, DiceTable.load, game_id)
            if not hmac.compare_digest(token.encode(), table.token.encode()):
                raise HttpError(404, f"no game {game_id!r}")
            return work(table)

        # reading a saved game back may build the solver's tables: off the lock, limited
        await self.run(lambda: self.locked(game_id, lambda: self.held(
            self.dice_games, DiceTable.load, game_id)), SOLVER_WAIT_S, SOLVER_BUSY)
        return await self.run(lambda: self.locked(game_id, job))


def start_reader(server: int) -> None:
    """A replay reader's start: niced below the server's requests, and gone within a
    second of its server (a killed server leaves no reader behind)."""
    os.nice(REPLAY_NICE)
    threading.Thread(target=_follow, args=(server,), daemon=True).start()


def warm_reader() -> None:
    """Load what reading a replay needs (the modules, the core's compiled kernels from
    their cache) before a request waits on it: a reader started by its first request
    spends seconds on that, more when niced on a busy machine. One move of one deal, so
    that the warming itself takes little of a slot."""
    import numpy as np

    import play.view  # noqa: F401  (the viewer's frames: what a reader runs)
    from zolik_env.rummy import game, options

    rules = options.preset("cz")
    state = game.init(rules, [0])
    game.step(rules, state, game.sample_legal(game.legal_action_mask(rules, state),
                                              np.random.default_rng(0)))


def _follow(server: int) -> None:
    while os.getppid() == server:
        time.sleep(0.5)
    os._exit(0)


def game_id_of(request: Request) -> str:
    game_id = request.path_params["game_id"]
    if not GAME_ID.match(game_id):
        raise HttpError(404, f"no game {game_id[:40]!r}")
    return str(game_id)
