"""The web table's server: a Starlette app with a small JSON API and one plain page.

    GET  /                          the page (plain HTML, CSS and JS; no build step)
    GET  /api/settings              the settings ``zolik play`` was started with
    GET  /replay                    the replay viewer's page
    POST /api/replays               a JSONL replay (any recorded game) -> frames, all hands
    GET  /dice, POST /api/dice {joker, seed}, GET /api/dice/{id}, POST /api/dice/{id}/move
                                    Pět kostek, solitaire, with the optimal agent's advice
    POST /api/games                 {preset, players, opponents, seed, match, humans}
                                    -> the view and the maker's token (and a room code)
    POST /api/rooms/{code}/join     the next free human seat of a room: its view and token
    GET  /api/games/{id}            the human seat's view          (header X-Seat-Token)
    POST /api/games/{id}/move       {"action": id or "discard 6H"} -> the view
    POST /api/games/{id}/next       the match's next deal -> the view
    GET  /api/games/{id}/hint       ?agent=planner -> the move that agent would make
    GET  /api/games/{id}/replay     the game so far as a JSONL replay, once the deal is over

Every game request carries a seat's token (``X-Seat-Token``), an unguessable string
given when the game is made or a room joined; it shows that seat's view and moves for it
only; without a valid one the game does not exist for the caller (404, as for an unknown
id). A bad request is a 4xx with ``{"error": reason}`` and changes
nothing; a bot that raises is a 500 with the reason, and the game stays as it was.
Games are saved after every move (``session.TableGame``) and read back after a restart.

A request may name only the agents the server offers: the baselines, the shipped bots
(``pretrained:NAME``) and the specs ``zolik play`` was started with; never an import path
or a checkpoint file. POST bodies must be ``application/json``, which a page on another
site cannot send without the browser asking first (and this server never says yes). Bots
and hints run off the event loop, one request at a time.
"""

from __future__ import annotations

import hmac
import json
import pathlib
import threading
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.learned.pretrained import names
from play.dice_session import DiceTable
from play.session import MoveError, SaveError, TableGame
from play.view import replay_frames
from zolik_env.envs import replay

STATIC = pathlib.Path(__file__).parent / "static"
MAX_REPLAY_BYTES = 5_000_000


class HttpError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class Tables:
    """The games this server holds (read back from ``folder`` on first use after a
    restart) and the API's handlers over them."""

    def __init__(self, folder: pathlib.Path, defaults: dict[str, Any]) -> None:
        self.folder, self.defaults = folder, defaults
        self.games: dict[str, TableGame] = {}
        self.dice_games: dict[str, DiceTable] = {}
        self.allowed = {"random", "greedy", "planner", *(f"pretrained:{n}" for n in names()),
                        *defaults.get("opponents", [])}
        self.lock = threading.Lock()  # one request changes games at a time (bots are slow)

    def table_of(self, request: Request) -> tuple[TableGame, int]:
        """The game of the request's path and the seat whose ``X-Seat-Token`` it carries;
        a wrong token is told the same as an unknown game (404)."""
        table = self._held(self.games, TableGame.load, request)
        seat = table.seat_of(request.headers.get("x-seat-token", ""))
        if seat is None:
            raise HttpError(404, f"no game {request.path_params['game_id']!r}")
        return table, seat

    def _held(self, games: dict[str, Any], load: Callable[[pathlib.Path, str], Any],
              request: Request) -> Any:
        """The game of the request's path, held or read back from the save folder (a
        restart); 404 for an unknown one."""
        game_id = request.path_params["game_id"]
        if game_id not in games:
            try:
                games[game_id] = load(self.folder, game_id)
            except (KeyError, OSError, ValueError):
                raise HttpError(404, f"no game {game_id!r}") from None
        return games[game_id]

    def room(self, code: str) -> TableGame:
        """The open room with ``code`` (read back from the save folder after a restart)."""
        table = next((t for t in self.games.values() if t.code == code), None)
        if table is None and code.isalnum():
            for sidecar in self.folder.glob("*.json"):
                if f'"code": "{code}"' in sidecar.read_text(encoding="utf-8"):
                    table = self.games[sidecar.stem] = TableGame.load(self.folder, sidecar.stem)
        if table is None or table.match_over():
            raise HttpError(404, f"no open room {code!r}")
        return table

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def dice_page(self, request: Request) -> Response:
        return FileResponse(STATIC / "dice.html")

    def dice_of(self, request: Request) -> DiceTable:
        """The dice game of the path if the request carries its token (else 404)."""
        table: DiceTable = self._held(self.dice_games, DiceTable.load, request)
        token = request.headers.get("x-seat-token", "")
        if not hmac.compare_digest(token.encode(), table.token.encode()):
            raise HttpError(404, f"no game {request.path_params['game_id']!r}")
        return table

    async def new_dice(self, request: Request) -> Response:
        body = await body_of(request)
        unknown = sorted(set(body) - {"joker", "seed"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}")
        seed = _seed(body.get("seed"))
        table = await self.run(lambda: DiceTable.new(self.folder, body.get("joker", "forced"),
                                                     seed))
        self.dice_games[table.game_id] = table
        return JSONResponse({**table.view(), "token": table.token})

    async def get_dice(self, request: Request) -> Response:
        return JSONResponse(self.dice_of(request).view())

    async def dice_move(self, request: Request) -> Response:
        table, body = self.dice_of(request), await body_of(request)
        return JSONResponse(await self.run(lambda: table.move(body.get("action"))))

    async def replay_page(self, request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def settings(self, request: Request) -> Response:
        """The form's defaults: what ``zolik play`` was given, except the seed; and the
        agents a request may name (opponents, hints)."""
        shown = {k: v for k, v in self.defaults.items() if k != "seed"}
        return JSONResponse({**shown, "offered": sorted(self.allowed)})

    def check_spec(self, spec: Any) -> str:
        """An agent spec a request may name: the baselines, the shipped bots and those
        ``zolik play`` was started with (never an import path or a file from a request)."""
        if not isinstance(spec, str) or spec not in self.allowed:
            raise HttpError(400, f"agent {spec!r} is not offered here: choose from "
                                 f"{', '.join(sorted(self.allowed))}")
        return spec

    async def run(self, work: Callable[[], Any]) -> Any:
        """``work()`` under the lock, off the event loop (bots and hints take time); its
        errors as 4xx/5xx with the reason. The game is unchanged after any error."""
        def locked() -> Any:
            with self.lock:
                return work()

        try:
            return await run_in_threadpool(locked)
        except HttpError:
            raise
        except MoveError as err:
            raise HttpError(400, str(err)) from None
        except SaveError as err:
            raise HttpError(500, str(err)) from None
        except (ValueError, TypeError) as err:
            raise HttpError(400, str(err)) from None
        except Exception as err:  # a bot failed: the game is as it was
            raise HttpError(500, f"a bot failed: {type(err).__name__}: {err}") from None

    async def new_game(self, request: Request) -> Response:
        asked = await body_of(request)
        body = {**self.defaults, **asked}
        unknown = sorted(set(body) - {"preset", "players", "opponents", "seed", "match",
                                      "humans"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}")
        opponents = body.get("opponents") or ["planner"]
        if not isinstance(opponents, list):
            raise HttpError(400, f"opponents must be a list of agent specs, got {opponents!r}")
        for spec in opponents:
            self.check_spec(spec)
        if not isinstance(body.get("match", False), bool):
            raise HttpError(400, f"match must be true or false, got {body['match']!r}")
        humans = body.get("humans", 1)
        if humans != 1 and asked.get("seed") is not None:  # deals unknown to every seat
            raise HttpError(400, "a room deals from a seed nobody chose: leave out seed")
        table = await self.run(lambda: TableGame.new(
            self.folder, body.get("preset", "cz"), body.get("players", 2), opponents,
            _seed(body.get("seed")) if humans == 1 else None, match=body.get("match", False),
            humans=humans))
        self.games[table.game_id] = table
        return JSONResponse({**table.view(), "token": table.token})

    async def join(self, request: Request) -> Response:
        def take_a_seat() -> tuple[TableGame, int, str]:
            table = self.room(request.path_params["code"])
            try:
                seat, token = table.join()
            except MoveError as err:
                raise HttpError(409, str(err)) from None
            return table, seat, token

        table, seat, token = await self.run(take_a_seat)
        return JSONResponse({**table.view(seat=seat), "token": token})

    async def get_game(self, request: Request) -> Response:
        table, seat = self.table_of(request)
        return JSONResponse(table.view(seat=seat))

    async def move(self, request: Request) -> Response:
        (table, seat), body = self.table_of(request), await body_of(request)
        if "action" not in body:
            raise HttpError(400, "give the move as {\"action\": id or \"discard 6H\"}")
        return JSONResponse(await self.run(lambda: table.move(body["action"], seat)))

    async def next_deal(self, request: Request) -> Response:
        table, seat = self.table_of(request)
        return JSONResponse(await self.run(lambda: table.next_deal(seat)))

    async def hint(self, request: Request) -> Response:
        table, seat = self.table_of(request)
        spec = self.check_spec(request.query_params.get("agent", "planner"))
        return JSONResponse(await self.run(lambda: table.hint(spec, seat)))

    async def view_replay(self, request: Request) -> Response:
        """A recorded game (the JSONL text as the body) as frames for the viewer."""
        body = await request.body()
        if len(body) > MAX_REPLAY_BYTES:
            raise HttpError(413, f"a replay of at most {MAX_REPLAY_BYTES} bytes")
        try:
            return JSONResponse(replay_frames(replay.loads(body.decode("utf-8"))))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
            raise HttpError(400, f"not a replay that replays: {err}") from None

    async def saved_replay(self, request: Request) -> Response:
        table, _ = self.table_of(request)
        if not table.match_over():  # a seed would show the hidden cards of a live deal
            raise HttpError(403, "the replay is given once the game is over")
        return PlainTextResponse(table.recorder.dumps(), media_type="application/x-ndjson")


def _seed(seed: Any) -> int | None:
    """A deal seed from a request: None or a non-negative integer below 2^62."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise HttpError(400, f"seed must be an integer in [0, 2^62), got {seed!r}")
    return seed


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object; a 400 naming what is wrong with it. Only
    ``application/json`` is read: a form or text a page on another site posts is refused."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HttpError(415, "send the request as application/json")
    try:
        body = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise HttpError(400, f"malformed JSON: {err}") from None
    if not isinstance(body, dict):
        raise HttpError(400, "the request body must be a JSON object")
    return body


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HttpError)
    return JSONResponse({"error": exc.reason}, status_code=exc.status)


def create_app(folder: pathlib.Path, defaults: dict[str, Any] | None = None) -> Starlette:
    """The app; games are saved in ``folder``; ``defaults`` fill a new game's settings
    (``preset``, ``players``, ``opponents``, ``seed``: what ``zolik play`` was given)."""
    tables = Tables(folder, dict(defaults or {}))
    routes = [
        Route("/", tables.page),
        Route("/replay", tables.replay_page),
        Route("/dice", tables.dice_page),
        Route("/api/dice", tables.new_dice, methods=["POST"]),
        Route("/api/dice/{game_id}", tables.get_dice),
        Route("/api/dice/{game_id}/move", tables.dice_move, methods=["POST"]),
        Route("/api/settings", tables.settings),
        Route("/api/replays", tables.view_replay, methods=["POST"]),
        Route("/api/games", tables.new_game, methods=["POST"]),
        Route("/api/rooms/{code}/join", tables.join, methods=["POST"]),
        Route("/api/games/{game_id}", tables.get_game),
        Route("/api/games/{game_id}/move", tables.move, methods=["POST"]),
        Route("/api/games/{game_id}/next", tables.next_deal, methods=["POST"]),
        Route("/api/games/{game_id}/hint", tables.hint),
        Route("/api/games/{game_id}/replay", tables.saved_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HttpError: _http_error})
    app.state.games = tables.games  # the live games by id (tests reach a table through it)
    app.state.dice_games = tables.dice_games
    return app
