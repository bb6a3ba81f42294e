"""A game at the web table: human seats and bots in the others, saved as it goes; one
deal, or a match of deals to the preset's end (``match``).

Each human seat has its own unguessable token (``tokens``); a game with more than one
human seat is a room with a short random code that friends join by (``join``), each
getting the next free seat's token. A seat's token shows only that seat's view and moves
only for it. The room's code expires with the game.

``TableGame`` holds one game: a human plays only moves of the core's legal-action mask,
then the bots move until a human is to act again (their moves are returned for the page
to animate). ``hint`` asks an agent (default: planner) for the human's move; it sees the
human seat's information only (an observation, or an ``InfoState`` for a search agent).
After every change the game is saved in one file (the replay's records, tokens, seats,
the bots' generator), and its JSONL replay (``zolik_env.envs.replay``) beside it when a
deal ends, so a closed tab or a restarted server loses nothing: ``TableGame.load``
replays the records. A bot or a save that fails leaves the game as it was before the
request (``_commit``).
"""

from __future__ import annotations

import hmac
import json
import pathlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import is_search_policy
from agents.registry import make_agent
from play.deals import new_key, secret_deal
from play.saves import (
    GAME_ID,
    DamagedSave,
    SaveError,
    TableSave,
    read_save,
    room_index,
    write_atomic,
)
from play.view import seat_view
from zolik_env.envs import replay
from zolik_env.rummy import actions, game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.dealing import deal_stock
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet, preset, rule_options_of
from zolik_env.rummy.scoring import is_match_over, match_totals, match_winners
from zolik_env.rummy.state import State

__all__ = ["DamagedSave", "MoveError", "SaveError", "TableGame", "agent_move"]

ROOM_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read out loud
ROOM_CODE_LENGTH = 6  # 32^6 = 10^9 codes: guessing one is hopeless at request speed


class MoveError(ValueError):
    """A move the game refuses (not legal, not this seat's turn, the deal is over)."""


def agent_move(policy: Any, rules: RuleSet, state: State, rng: np.random.Generator) -> int:
    """The move ``policy`` makes for the seat to act in deal 0 of ``state``, from what that
    seat may know only."""
    seat = int(state.current[0])
    if is_search_policy(policy):
        return int(policy.act_info(InfoState(rules, state, seat), rng))
    obs = observe(rules, state, state.current)
    mask = game.legal_action_mask(rules, state)
    return int(policy.act(obs[0], mask[0], rng))


@dataclass
class TableGame:
    """One game at the table (a deal, or a match of deals); ``bots[s]`` is the agent spec
    of seat ``s`` (None: a human)."""

    rules: RuleSet
    bots: list[str | None]
    seed: int
    folder: pathlib.Path
    game_id: str = field(default_factory=lambda: secrets.token_hex(8))
    tokens: dict[int, str] = field(default_factory=dict)  # human seat -> its token
    joined: set[int] = field(default_factory=set)  # human seats whose token was given out
    code: str | None = None  # the room's code, for games with several human seats
    log: list[dict[str, Any]] = field(default_factory=list)  # public moves, in order

    match: bool = False
    """Play deals until the preset's match ends (``scoring.is_match_over``), not one deal."""

    deal_key: str | None = None
    """The secret key the deals are shuffled with (``play.deals``); None: deal ``i`` is
    the core's seeded deal ``seed + i`` (a seed chosen with ``zolik play --seed``)."""

    def __post_init__(self) -> None:
        if None not in self.bots or len(self.bots) != self.rules.num_players:
            raise ValueError(f"a table needs a human seat among {self.rules.num_players}, "
                             f"got {self.bots}")
        self.human = self.bots.index(None)  # the seat of who made the game
        humans = [s for s, spec in enumerate(self.bots) if spec is None]
        self.tokens = self.tokens or {s: secrets.token_urlsafe(24) for s in humans}
        self.joined = self.joined or {self.human}
        if len(humans) > 1 and self.code is None:
            self.code = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
        self.agents = {s: make_agent(spec, self.rules) for s, spec in enumerate(self.bots)
                       if spec is not None}
        self.rng = np.random.default_rng(self.seed)
        self.recorder = replay.Recorder(self.rules, [spec or "human" for spec in self.bots])
        self.rule_options = rule_options_of(self.rules)
        self.deal_scores: list[list[int]] = []  # of the finished deals
        self.bot_seconds: list[float] = []  # each bot move's choice (``zolik bench-play``)
        self._start_deal(0)

    def _start_deal(self, deal_index: int) -> None:
        """Deal ``deal_index`` of the table: shuffled under the secret ``deal_key``, or the
        seeded deal ``seed + deal_index``; the starting seat rotates with the deal index
        as the rules say."""
        self.deal_index = deal_index
        if self.deal_key is None:
            self.state = game.init(self.rules, [self.seed + deal_index], deal_index)
            self.recorder.start_deal(self.seed + deal_index, deal_index)
            return
        stock, key = secret_deal(self.rules, self.deal_key, deal_index)
        self.state = deal_stock(self.rules, stock[None], np.array([key], np.uint64),
                                deal_index)
        self.recorder.start_deal(None, deal_index, stock.tolist(), key)

    @property
    def token(self) -> str:
        """The token of the seat of who made the game."""
        return self.tokens[self.human]

    def seat_of(self, token: str) -> int | None:
        """The human seat ``token`` belongs to (compared in constant time), or None."""
        found = None
        for seat, own in self.tokens.items():
            if hmac.compare_digest(token.encode(), own.encode()) and seat in self.joined:
                found = seat
        return found

    def join(self) -> tuple[int, str]:
        """The next free human seat of a room and its token.

        Raises:
            MoveError: when every human seat is taken or the game is over.
        """
        if self.match_over():
            raise MoveError("the room has closed: its game is over")
        free = sorted(set(self.tokens) - self.joined)
        if not free:
            raise MoveError("every seat of the room is taken")
        self._commit(lambda: self.joined.add(free[0]))
        return free[0], self.tokens[free[0]]

    def match_over(self) -> bool:
        """Whether no further deal is played at this table."""
        if not self.state.done[0]:
            return False
        return not self.match or is_match_over(self.rules, match_totals(self.deal_scores),
                                               len(self.deal_scores))

    def next_deal(self, seat: int | None = None) -> dict[str, Any]:
        """Start the match's next deal (the bots move until a human is to act); human
        ``seat``'s view. A failing bot or save leaves the game as it was."""
        if not self.state.done[0] or self.match_over():
            raise MoveError("the next deal starts when a deal of an unfinished match is over")

        def deal_and_play() -> list[dict[str, Any]]:
            self._start_deal(self.deal_index + 1)
            return self.play_bots()

        return self.view(self._commit(deal_and_play), seat)

    def _commit(self, change: Callable[[], Any]) -> Any:
        """Run ``change`` and save; if either fails, put everything back as it was."""
        before = (self.state, self.deal_index, self.rng.bit_generator.state, len(self.log),
                  self.recorder.count(), self.recorder.deal, len(self.deal_scores),
                  set(self.joined), len(self.bot_seconds))
        try:
            result = change()
            self.save()
        except Exception:
            (self.state, self.deal_index, self.rng.bit_generator.state, log_len, rec_len,
             self.recorder.deal, deals_done, self.joined, timed) = before
            del self.log[log_len:]
            self.recorder.truncate(rec_len)
            del self.deal_scores[deals_done:], self.bot_seconds[timed:]
            raise
        return result

    @classmethod
    def new(cls, folder: pathlib.Path, preset_name: str = "cz", players: int = 2,
            opponents: list[str] | None = None, seed: int | None = None,
            human_seat: int = 0, match: bool = False, humans: int = 1,
            rule_options: dict[str, Any] | None = None) -> TableGame:
        rules = preset(preset_name, num_players=players, **(rule_options or {}))
        if isinstance(humans, bool) or not isinstance(humans, int) or not 1 <= humans <= players:
            raise ValueError(f"humans must be 1..{players}, got {humans!r}")
        specs = list(opponents or ["planner"])
        if len(specs) == 1:
            specs *= players - humans
        if len(specs) != players - humans:
            raise ValueError(f"{players} players with {humans} human(s) need "
                             f"{players - humans} opponents, got {specs}")
        if not 0 <= human_seat < players:
            raise ValueError(f"human seat {human_seat} is not a seat of {players}")
        # the maker's seat, then the friends' seats after it, then the bots
        human_seats = {(human_seat + k) % players for k in range(humans)}
        bot_specs = iter(specs)
        bots: list[str | None] = [None if s in human_seats else next(bot_specs)
                                  for s in range(players)]
        # no seed chosen: the deals come from a secret 256-bit key (``play.deals``), and
        # the bots' generator from 128 bits of its own
        deal_key = new_key() if seed is None else None
        seed = secrets.randbits(128) if seed is None else int(seed)
        table = cls(rules, bots, seed, folder, match=match, deal_key=deal_key)
        table.play_bots()
        table.save()
        return table

    # --- what the page sees -------------------------------------------------------------

    def view(self, bot_moves: list[dict[str, Any]] | None = None,
             seat: int | None = None) -> dict[str, Any]:
        """Human ``seat``'s view (the first human's by default), the public move log, and
        the bots' moves just played."""
        seat = self.human if seat is None else seat
        out = seat_view(self.rules, self.state, seat)
        out.update({"game": self.game_id, "bots": self.bots, "log": self.log[-40:],
                    "played": bot_moves or [], "moves_so_far": len(self.log),
                    "deal": self.deal_index,
                    "humans": sorted(self.joined), "room": self.code})
        if self.match:
            totals = match_totals(self.deal_scores) or [0] * self.rules.num_players
            over = self.match_over()
            out["match"] = {"deals": len(self.deal_scores), "totals": totals, "over": over,
                            "winners": match_winners(self.rules, totals) if over else []}
        return out

    # --- moves --------------------------------------------------------------------------

    def move(self, action: Any, seat: int | None = None) -> dict[str, Any]:
        """Play human ``seat``'s ``action`` (an id or a move in card notation; the seat is
        the first human's by default), then the bots' moves; that seat's new view. A
        refused move or a failing bot leaves the game unchanged."""
        seat = self.human if seat is None else seat
        action_id = self._action_id(seat, action)

        def play_and_answer() -> list[dict[str, Any]]:
            self._play(action_id)
            return self.play_bots()

        played = self._commit(play_and_answer)
        return self.view(played, seat)

    def _action_id(self, seat: int, action: Any) -> int:
        if self.state.done[0]:
            raise MoveError("the deal is over")
        if int(self.state.current[0]) != seat:
            raise MoveError(f"it is seat {int(self.state.current[0])}'s turn")
        if isinstance(action, bool) or not isinstance(action, int | str):
            raise MoveError(f"a move is an action id or a move in card notation, got {action!r}")
        try:
            action_id = actions.string_to_action(action) if isinstance(action, str) else action
        except ValueError as err:
            raise MoveError(str(err)) from None
        mask = game.legal_action_mask(self.rules, self.state)[0]
        if not 0 <= action_id < mask.size or not mask[action_id]:
            shown = actions.action_to_string(action_id) if 0 <= action_id < mask.size else action
            raise MoveError(f"{shown!r} is not a legal move now")
        return int(action_id)

    def _play(self, action: int) -> dict[str, Any]:
        seat = int(self.state.current[0])
        entry = {"seat": seat, "turn": int(self.state.turn[0]),
                 "move": actions.action_to_string(action)}
        self.recorder.move(self.state, action)
        self.state, _ = game.step(self.rules, self.state, [action])
        self.log.append(entry)
        if self.state.done[0]:
            self.recorder.end_deal(self.state)
            self.deal_scores.append(self.state.scores[0].tolist())
        return entry

    def play_bots(self) -> list[dict[str, Any]]:
        """The bots' moves until the human is to act or the deal is over."""
        played = []
        while not self.state.done[0] and self.bots[int(self.state.current[0])] is not None:
            seat, start = int(self.state.current[0]), time.perf_counter()
            action = agent_move(self.agents[seat], self.rules, self.state, self.rng)
            self.bot_seconds.append(time.perf_counter() - start)
            if not game.legal_action_mask(self.rules, self.state)[0, action]:
                raise RuntimeError(f"bot {self.bots[seat]!r} chose an illegal move {action}")
            played.append(self._play(action))
        return played

    def hint(self, spec: str = "planner", seat: int | None = None) -> dict[str, Any]:
        """The move agent ``spec`` would make for human ``seat`` now (it is not played)."""
        seat = self.human if seat is None else seat
        if self.state.done[0] or int(self.state.current[0]) != seat:
            raise MoveError("a hint is for the seat to act")
        agent = make_agent(spec, self.rules)
        action = agent_move(agent, self.rules, self.state, np.random.default_rng(self.seed))
        return {"agent": spec, "id": action, "text": actions.action_to_string(action)}

    # --- saved games --------------------------------------------------------------------

    def path(self) -> pathlib.Path:
        return self.folder / f"{self.game_id}.jsonl"

    def save(self) -> None:
        """Write the table's sidecar (``saves.TableSave``: tokens, seats, room, records)
        atomically after every change; the JSONL replay beside it (for ``zolik replay``
        and the viewer) when a deal is over; a room's code goes into the index."""
        records = self.recorder.records
        sidecar = TableSave(
            game=self.game_id, tokens={str(k): v for k, v in self.tokens.items()},
            joined=sorted(self.joined), code=self.code, bots=self.bots, seed=self.seed,
            rules=self.rules.name, rule_options=self.rule_options,
            rng=self.rng.bit_generator.state, match=self.match, deal_key=self.deal_key,
            records=records)
        write_atomic(self.path().with_suffix(".json"), sidecar.model_dump_json())
        if self.state.done[0]:
            write_atomic(self.path(), "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                              for r in records))
        if self.code is not None and not room_index(self.folder, self.code).exists():
            write_atomic(room_index(self.folder, self.code), self.game_id)

    @classmethod
    def load(cls, folder: pathlib.Path, game_id: str) -> TableGame:
        """The game ``game_id`` saved in ``folder``, replayed move by move.

        Raises:
            KeyError: no such game. DamagedSave: naming the file, when its save does not
                read back (damaged, altered, of another version).
        """
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise KeyError(game_id)
        path = folder / f"{game_id}.json"
        saved = read_save(path, TableSave)
        try:
            return cls._replayed(folder, saved)
        except Exception as err:  # a save that validates but does not replay
            raise DamagedSave(f"{path.name} does not replay: {type(err).__name__}: "
                              f"{str(err)[:200]}") from None

    @classmethod
    def _replayed(cls, folder: pathlib.Path, saved: TableSave) -> TableGame:
        rules = preset(saved.rules, num_players=len(saved.bots), **saved.rule_options)
        table = cls(rules, list(saved.bots), saved.seed, folder, game_id=saved.game,
                    tokens={int(k): v for k, v in saved.tokens.items()},
                    joined=set(saved.joined), code=saved.code, match=saved.match,
                    deal_key=saved.deal_key)
        for rec in saved.records[2:]:
            if rec["kind"] == "move":
                table._play(actions.string_to_action(rec["move"]))
            elif rec["kind"] == "deal":
                table._start_deal(rec["deal_index"])
        if table.recorder.records != saved.records:
            raise ValueError("the records do not replay to themselves")
        table.rng.bit_generator.state = saved.rng  # the bots' generator as it was
        return table
