"""The web table's server: a Starlette app with a small JSON API and one plain page.

    GET  /                          the page (plain HTML, CSS and JS; no build step)
    GET  /api/settings              the settings ``zolik play`` was started with
    GET  /replay                    the replay viewer's page
    POST /api/replays               a JSONL replay (any recorded game) -> frames, all hands
    GET  /dice, POST /api/dice {joker, seed}, GET /api/dice/{id}, POST /api/dice/{id}/move
                                    Pět kostek, solitaire, with the optimal agent's advice
    POST /api/games                 {preset, players, opponents, seed, match, humans,
                                     options: {opening_points, match_deals, ...}}
                                    -> the view and the maker's token (and a room code)
    POST /api/rooms/{code}/join     the next free human seat of a room: its view and token
    GET  /api/games/{id}            the human seat's view          (header X-Seat-Token)
    POST /api/games/{id}/move       {"action": id or "discard 6H"} -> the view
    POST /api/games/{id}/next       the match's next deal -> the view
    GET  /api/games/{id}/hint       ?agent=planner -> the move that agent would make
    GET  /api/games/{id}/agents     the offered agents that play this game's rules
    GET  /api/games/{id}/replay     the game so far as a JSONL replay, once the deal is over

Every game request carries a seat's token (``X-Seat-Token``), an unguessable string
given when the game is made or a room joined; it shows that seat's view and moves for it
only; without a valid one the game does not exist for the caller (404, as for an unknown
id). A bad request is a 4xx with ``{"error": reason}`` (one line, never the body echoed)
and changes nothing; any other failure (a bot that raises, a full disk) is a 500 naming
it, and the game stays as it was. Games are saved after every move
(``session.TableGame``, ``play.saves``) and read back after a restart; a damaged save is
a 409 naming its file, for that game only.

A request may name only the agents the server offers: the baselines, the shipped bots
(``pretrained:NAME``) and the specs ``zolik play`` was started with; never an import path
or a checkpoint file. The request budget (``play.budget``) comes first: the Host
allow-list, the body size checked before reading, JSON POSTs only (a page on another site
cannot send one without the browser asking first, and this server never says yes), JSON
depth and integer limits. Work runs off the event loop: each game has its own lock (one
slow game never holds up another), replays are read a few at a time with a time limit, in
processes of their own (niced: a replay's CPU work never holds the games' requests), and
the dice solver's first build runs in the background while requests are told to retry.
Held games leave memory when idle (``FINISHED_IDLE_S`` after the game is over,
``LIVE_IDLE_S`` otherwise) and past ``MAX_HELD`` games, the longest idle first; they are
saved and come back on the next request.
"""

from __future__ import annotations

import contextlib
import functools
import pathlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.learned.pretrained import names
from play import house
from play.budget import Budget, parse_json
from play.dice_session import DiceTable, warm_solver
from play.house import (
    MAX_REPLAY_MOVES,
    SOLVER_BUSY,
    SOLVER_WAIT_S,
    House,
    HttpError,
    as_http_error,
)
from play.offer import agents_for, form_options
from play.saves import find_room
from play.session import MoveError, TableGame
from play.view import replay_json

STATIC = pathlib.Path(__file__).parent / "static"


class Tables(House):
    """The API's handlers over the games of a ``House``."""

    def __init__(self, folder: pathlib.Path, defaults: dict[str, Any],
                 replay_processes: bool = True) -> None:
        super().__init__(folder, replay_processes)
        self.defaults = defaults
        self.allowed = {"random", "greedy", "planner", *(f"pretrained:{n}" for n in names()),
                        *defaults.get("opponents", [])}

    def room(self, code: str) -> str:
        """The game id of room ``code``: from the room index (``saves.find_room``), or a
        held game's; 404 for none."""
        game_id = find_room(self.folder, code)
        if game_id is None:
            with self.registry:
                game_id = next((g for g, t in self.games.items() if t.code == code), None)
        if game_id is None:
            raise HttpError(404, f"no open room {code[:20]!r}")
        return game_id

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def dice_page(self, request: Request) -> Response:
        return FileResponse(STATIC / "dice.html")

    async def replay_page(self, request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def new_dice(self, request: Request) -> Response:
        body = await body_of(request)
        unknown = sorted(set(body) - {"joker", "seed"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}")
        seed, joker = _seed(body.get("seed")), body.get("joker", "forced")
        await self.run(lambda: warm_solver(joker), SOLVER_WAIT_S, SOLVER_BUSY)
        table = await self.run(lambda: DiceTable.new(self.folder, joker, seed))
        self.hold(self.dice_games, table.game_id, table)
        self.maybe_sweep()
        return JSONResponse({**table.view(), "token": table.token})

    async def get_dice(self, request: Request) -> Response:
        return JSONResponse(await self.on_dice(request, lambda table: table.view()))

    async def dice_move(self, request: Request) -> Response:
        body = await body_of(request)
        return JSONResponse(await self.on_dice(request,
                                               lambda table: table.move(body.get("action"))))

    async def settings(self, request: Request) -> Response:
        """The form's defaults: what ``zolik play`` was given, except the seed; and the
        agents a request may name (opponents, hints)."""
        shown = {k: v for k, v in self.defaults.items() if k != "seed"}
        return JSONResponse({**shown, "offered": sorted(self.allowed)})

    def check_spec(self, spec: Any) -> str:
        """An agent spec a request may name: the baselines, the shipped bots and those
        ``zolik play`` was started with (never an import path or a file from a request)."""
        if not isinstance(spec, str) or spec not in self.allowed:
            raise HttpError(400, f"agent {str(spec)[:60]!r} is not offered here: choose from "
                                 f"{', '.join(sorted(self.allowed))}")
        return spec

    async def new_game(self, request: Request) -> Response:
        asked = await body_of(request)
        body = {**self.defaults, **asked}
        unknown = sorted(set(body) - {"preset", "players", "opponents", "seed", "match",
                                      "humans", "options"})
        if unknown:
            raise HttpError(400, f"unknown settings {unknown}"[:200])
        opponents = body.get("opponents") or ["planner"]
        if not isinstance(opponents, list) or len(opponents) > 6:
            raise HttpError(400, f"opponents must be a list of agent specs, got "
                                 f"{str(opponents)[:60]}")
        for spec in opponents:
            self.check_spec(spec)
        if not isinstance(body.get("match", False), bool):
            raise HttpError(400, f"match must be true or false, got {body['match']!r}")
        humans = body.get("humans", 1)
        if humans != 1 and asked.get("seed") is not None:  # deals unknown to every seat
            raise HttpError(400, "a room deals from a key nobody knows: leave out seed")
        seed = _seed(body.get("seed")) if humans == 1 else None
        rule_options = form_options(body.get("options"))
        table = await self.run(lambda: TableGame.new(
            self.folder, body.get("preset", "cz"), body.get("players", 2), opponents,
            seed, match=body.get("match", False), humans=humans, rule_options=rule_options))
        self.hold(self.games, table.game_id, table)
        self.maybe_sweep()
        return JSONResponse({**table.view(), "token": table.token})

    async def join(self, request: Request) -> Response:
        code = request.path_params["code"]
        await empty_body(request)

        def take_a_seat() -> dict[str, Any]:
            game_id = self.room(code)

            def seat_in(game_id: str = game_id) -> dict[str, Any]:
                table = self.held(self.games, TableGame.load, game_id)
                if table.match_over():
                    raise HttpError(404, f"no open room {code[:20]!r}")
                try:
                    seat, token = table.join()
                except MoveError as err:
                    raise HttpError(409, str(err)) from None
                return {**table.view(seat=seat), "token": token}

            return self.locked(game_id, seat_in)

        return JSONResponse(await self.run(take_a_seat))

    async def get_game(self, request: Request) -> Response:
        return JSONResponse(await self.on_game(
            request, lambda table, seat: table.view(seat=seat)))

    async def move(self, request: Request) -> Response:
        body = await body_of(request)
        if "action" not in body:
            raise HttpError(400, "give the move as {\"action\": id or \"discard 6H\"}")
        return JSONResponse(await self.on_game(
            request, lambda table, seat: table.move(body["action"], seat)))

    async def next_deal(self, request: Request) -> Response:
        await empty_body(request)
        return JSONResponse(await self.on_game(
            request, lambda table, seat: table.next_deal(seat)))

    async def agents(self, request: Request) -> Response:
        """The offered agents that play this game's rules (the hint menu)."""
        return JSONResponse(await self.on_game(
            request, lambda table, seat: {"agents": agents_for(self.allowed, table.rules)}))

    async def hint(self, request: Request) -> Response:
        spec = self.check_spec(request.query_params.get("agent", "planner"))
        return JSONResponse(await self.on_game(
            request, lambda table, seat: table.hint(spec, seat)))

    async def view_replay(self, request: Request) -> Response:
        """A recorded game (the JSONL text as the body) as frames for the viewer: read off
        the event loop, a few at a time (``House.run_replay``: 429 past the queue), for at
        most ``REPLAY_WAIT_S`` (503)."""
        body = await request.body()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as err:
            raise HttpError(400, f"a replay is UTF-8 text (byte {err.start} is not)") from None

        work = functools.partial(replay_json, text, MAX_REPLAY_MOVES)  # its ValueError: a 400
        return Response(await self.run_replay(work, house.REPLAY_WAIT_S),
                        media_type="application/json")

    async def saved_replay(self, request: Request) -> Response:
        def text(table: TableGame, seat: int) -> str:
            if not table.match_over():  # the pack would show the hidden cards of a live deal
                raise HttpError(403, "the replay is given once the game is over")
            return table.recorder.dumps()

        return PlainTextResponse(await self.on_game(request, text),
                                 media_type="application/x-ndjson")


def _seed(seed: Any) -> int | None:
    """A deal seed from a request: None or a non-negative integer below 2^62."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise HttpError(400, f"seed must be an integer in [0, 2^62), got {str(seed)[:40]}")
    return seed


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object within the budget (``budget.parse_json``); a 400 naming
    what is wrong with it. Only ``application/json`` is read: a form or text a page on
    another site posts is refused (the middleware has said so already)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HttpError(415, "send the request as application/json")
    body = parse_json(await request.body() or b"{}")
    if not isinstance(body, dict):
        raise HttpError(400, "the request body must be a JSON object")
    return body


async def empty_body(request: Request) -> None:
    """A request that takes no settings: its body, if any, must be an empty JSON object."""
    body = await body_of(request)
    if body:
        raise HttpError(400, f"this request takes no settings, got {sorted(body)}"[:200])


async def _no_page(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 (no such route, wrong method) as the API's JSON."""
    status = getattr(exc, "status_code", 404)
    return JSONResponse({"error": f"no {request.method} {request.url.path[:80]!r} here"},
                        status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    err = as_http_error(exc)
    return JSONResponse({"error": err.reason}, status_code=err.status)


def guarded(handler: Callable[[Request], Awaitable[Response]]
            ) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` with every exception turned into an answer (``as_http_error``)."""
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as err:
            raise as_http_error(err) from None

    return endpoint


def create_app(folder: pathlib.Path, defaults: dict[str, Any] | None = None,
               hosts: Iterable[str] = (), replay_processes: bool = True,
               warm_readers: bool = False) -> Starlette:
    """The app; games are saved in ``folder``; ``defaults`` fill a new game's settings
    (``preset``, ``players``, ``opponents``, ``seed``: what ``zolik play`` was given);
    ``hosts``: names the page may be opened under besides localhost and IP addresses;
    ``replay_processes``: replays are read in processes of their own (else threads);
    ``warm_readers``: those processes start and load when the app starts (a server),
    not on the first replay request."""
    tables = Tables(folder, dict(defaults or {}), replay_processes)
    api = [
        ("/api/dice", tables.new_dice, ["POST"]),
        ("/api/dice/{game_id}", tables.get_dice, ["GET"]),
        ("/api/dice/{game_id}/move", tables.dice_move, ["POST"]),
        ("/api/settings", tables.settings, ["GET"]),
        ("/api/replays", tables.view_replay, ["POST"]),
        ("/api/games", tables.new_game, ["POST"]),
        ("/api/rooms/{code}/join", tables.join, ["POST"]),
        ("/api/games/{game_id}", tables.get_game, ["GET"]),
        ("/api/games/{game_id}/move", tables.move, ["POST"]),
        ("/api/games/{game_id}/next", tables.next_deal, ["POST"]),
        ("/api/games/{game_id}/hint", tables.hint, ["GET"]),
        ("/api/games/{game_id}/agents", tables.agents, ["GET"]),
        ("/api/games/{game_id}/replay", tables.saved_replay, ["GET"]),
    ]
    routes = [
        Route("/", tables.page),
        Route("/replay", tables.replay_page),
        Route("/dice", tables.dice_page),
        *(Route(path, guarded(handler), methods=methods) for path, handler, methods in api),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if warm_readers:
            tables.warm_replay_readers()
        yield

    app = Starlette(routes=routes, exception_handlers={HttpError: _http_error, 404: _no_page,
                                        405: _no_page},
                    middleware=[Middleware(Budget, hosts=list(hosts))], lifespan=lifespan)
    app.state.games = tables.games  # the live games by id (tests reach a table through it)
    app.state.dice_games = tables.dice_games
    app.state.tables = tables
    return app
