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
"""

from __future__ import annotations

import hmac
import json
import pathlib
import threading
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from eval.web.dice_session import DiceTable
from eval.web.session import MoveError, TableGame
from eval.web.view import replay_frames
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
        self.lock = threading.Lock()  # one request changes games at a time (bots are slow)

    def table_of(self, request: Request) -> tuple[TableGame, int]:
        """The game of the request's path and the seat whose ``X-Seat-Token`` it carries;
        a wrong token is told the same as an unknown game (404)."""
        game_id = request.path_params["game_id"]
        table = self.games.get(game_id)
        if table is None:
            try:
                table = self.games[game_id] = TableGame.load(self.folder, game_id)
            except (KeyError, OSError, ValueError):
                raise HttpError(404, f"no game {game_id!r}") from None
        seat = table.seat_of(request.headers.get("x-seat-token", ""))
        if seat is None:
            raise HttpError(404, f"no game {game_id!r}")
        return table, seat

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
        game_id = request.path_params["game_id"]
        table = self.dice_games.get(game_id)
        if table is None:
            try:
                table = self.dice_games[game_id] = DiceTable.load(self.folder, game_id)
            except (KeyError, OSError, ValueError):
                raise HttpError(404, f"no game {game_id!r}") from None
        token = request.headers.get("x-seat-token", "")
        if not hmac.compare_digest(token.encode(), table.token.encode()):
            raise HttpError(404, f"no game {game_id!r}")
        return table

    async def new_dice(self, request: Request) -> Response:
        body = await body_of(request)
        unknown = sorted(set(body) - {"joker", "seed"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}")
        try:
            with self.lock:
                table = DiceTable.new(self.folder, body.get("joker", "forced"), body.get("seed"))
        except (ValueError, TypeError) as err:
            raise HttpError(400, str(err)) from None
        self.dice_games[table.game_id] = table
        return JSONResponse({**table.view(), "token": table.token})

    async def get_dice(self, request: Request) -> Response:
        return JSONResponse(self.dice_of(request).view())

    async def dice_move(self, request: Request) -> Response:
        table, body = self.dice_of(request), await body_of(request)
        with self.lock:
            try:
                return JSONResponse(table.move(body.get("action")))
            except ValueError as err:
                raise HttpError(400, str(err)) from None

    async def replay_page(self, request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def settings(self, request: Request) -> Response:
        return JSONResponse(self.defaults)

    async def new_game(self, request: Request) -> Response:
        body = {**self.defaults, **await body_of(request)}
        unknown = sorted(set(body) - {"preset", "players", "opponents", "seed", "match",
                                      "humans"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}")
        try:
            with self.lock:
                table = TableGame.new(self.folder, body.get("preset", "cz"),
                                      body.get("players", 2), body.get("opponents"),
                                      body.get("seed"), match=bool(body.get("match", False)),
                                      humans=body.get("humans", 1))
        except (ValueError, TypeError) as err:
            raise HttpError(400, str(err)) from None
        self.games[table.game_id] = table
        return JSONResponse({**table.view(), "token": table.token})

    async def join(self, request: Request) -> Response:
        with self.lock:
            table = self.room(request.path_params["code"])
            try:
                seat, token = table.join()
            except MoveError as err:
                raise HttpError(409, str(err)) from None
        return JSONResponse({**table.view(seat=seat), "token": token})

    async def get_game(self, request: Request) -> Response:
        table, seat = self.table_of(request)
        return JSONResponse(table.view(seat=seat))

    async def move(self, request: Request) -> Response:
        (table, seat), body = self.table_of(request), await body_of(request)
        if "action" not in body:
            raise HttpError(400, "give the move as {\"action\": id or \"discard 6H\"}")
        with self.lock:
            try:
                return JSONResponse(table.move(body["action"], seat))
            except MoveError as err:
                raise HttpError(400, str(err)) from None
            except Exception as err:  # a bot failed: the game is as it was
                raise HttpError(500, f"a bot failed: {type(err).__name__}: {err}") from None

    async def next_deal(self, request: Request) -> Response:
        table, _ = self.table_of(request)
        with self.lock:
            try:
                return JSONResponse(table.next_deal())
            except MoveError as err:
                raise HttpError(400, str(err)) from None
            except Exception as err:  # a bot failed on the new deal
                raise HttpError(500, f"a bot failed: {type(err).__name__}: {err}") from None

    async def hint(self, request: Request) -> Response:
        table, seat = self.table_of(request)
        try:
            with self.lock:
                return JSONResponse(table.hint(request.query_params.get("agent", "planner"),
                                               seat))
        except (MoveError, ValueError) as err:
            raise HttpError(400, str(err)) from None

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


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object; a 400 naming what is wrong with it."""
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
