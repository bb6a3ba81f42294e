"""A game at the web table: one human seat, bots in the others, saved as it goes; one
deal, or a match of deals to the preset's end (``match``).

``TableGame`` holds one deal: the human plays only moves of the core's legal-action
mask, then the bots move until the human is to act again (their moves are returned for
the page to animate). ``hint`` asks an agent (default: planner) for the human's move; it
sees the human seat's information only (an observation, or an ``InfoState`` for a search
agent). Every move is appended to a JSONL replay (``zolik_env.envs.replay``) in the save
folder, so a closed tab or a restarted server loses nothing: ``TableGame.load`` replays
the file. A bot that raises leaves the game as it was before the human's move.
"""

from __future__ import annotations

import json
import pathlib
import secrets
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import is_search_policy
from agents.registry import make_agent
from eval.web.view import seat_view
from zolik_env.envs import replay
from zolik_env.rummy import actions, game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet, preset, rule_options_of
from zolik_env.rummy.scoring import is_match_over, match_totals, match_winners
from zolik_env.rummy.state import State
from zolik_env.seeds import EVAL_SEED_START


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
    """One deal at the table; ``bots[s]`` is the agent spec of seat ``s`` (None: human)."""

    rules: RuleSet
    bots: list[str | None]
    seed: int
    folder: pathlib.Path
    game_id: str = field(default_factory=lambda: secrets.token_hex(8))
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    log: list[dict[str, Any]] = field(default_factory=list)  # public moves, in order

    match: bool = False
    """Play deals until the preset's match ends (``scoring.is_match_over``), not one deal."""

    def __post_init__(self) -> None:
        if self.bots.count(None) != 1 or len(self.bots) != self.rules.num_players:
            raise ValueError(f"a table needs one human seat among {self.rules.num_players}, "
                             f"got {self.bots}")
        self.human = self.bots.index(None)
        self.agents = {s: make_agent(spec, self.rules) for s, spec in enumerate(self.bots)
                       if spec is not None}
        self.rng = np.random.default_rng(self.seed)
        self.recorder = replay.Recorder(self.rules, [spec or "human" for spec in self.bots])
        self.deal_scores: list[list[int]] = []  # of the finished deals
        self._start_deal(0)

    def _start_deal(self, deal_index: int) -> None:
        """Deal ``deal_index`` of the table: seed ``seed + deal_index``; the starting seat
        rotates with the deal index as the rules say."""
        self.deal_index = deal_index
        self.state = game.init(self.rules, [self.seed + deal_index], deal_index)
        self.recorder.start_deal(self.seed + deal_index, deal_index)

    def match_over(self) -> bool:
        """Whether no further deal is played at this table."""
        if not self.state.done[0]:
            return False
        return not self.match or is_match_over(self.rules, match_totals(self.deal_scores),
                                               len(self.deal_scores))

    def next_deal(self) -> dict[str, Any]:
        """Start the match's next deal (the bots move until the human is to act)."""
        if not self.state.done[0] or self.match_over():
            raise MoveError("the next deal starts when a deal of an unfinished match is over")
        self._start_deal(self.deal_index + 1)
        played = self.play_bots()
        self.save()
        return self.view(played)

    @classmethod
    def new(cls, folder: pathlib.Path, preset_name: str = "cz", players: int = 2,
            opponents: list[str] | None = None, seed: int | None = None,
            human_seat: int = 0, match: bool = False) -> TableGame:
        rules = preset(preset_name, num_players=players)
        specs = list(opponents or ["planner"])
        if len(specs) == 1:
            specs *= players - 1
        if len(specs) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, got {specs}")
        if not 0 <= human_seat < players:
            raise ValueError(f"human seat {human_seat} is not a seat of {players}")
        bots: list[str | None] = [*specs[:human_seat], None, *specs[human_seat:]]
        seed = int(secrets.randbelow(10**9)) + EVAL_SEED_START if seed is None else int(seed)
        table = cls(rules, bots, seed, folder, match=match)
        table.play_bots()
        table.save()
        return table

    # --- what the page sees -------------------------------------------------------------

    def view(self, bot_moves: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The human seat's view, the public move log, and the bots' moves just played."""
        out = seat_view(self.rules, self.state, self.human)
        out.update({"game": self.game_id, "bots": self.bots, "log": self.log[-40:],
                    "played": bot_moves or [], "deal": self.deal_index})
        if self.match:
            totals = match_totals(self.deal_scores) or [0] * self.rules.num_players
            over = self.match_over()
            out["match"] = {"deals": len(self.deal_scores), "totals": totals, "over": over,
                            "winners": match_winners(self.rules, totals) if over else []}
        return out

    # --- moves --------------------------------------------------------------------------

    def move(self, action: Any) -> dict[str, Any]:
        """Play the human's ``action`` (an id or a move in card notation), then the bots'
        moves; the new view. A refused move or a failing bot leaves the game unchanged."""
        action_id = self._action_id(action)
        state, log_len, rec_len = self.state, len(self.log), len(self.recorder.records)
        generator, deals_done = self.rng.bit_generator.state, len(self.deal_scores)
        try:
            self._play(action_id)
            played = self.play_bots()
        except Exception:
            self.state, self.rng.bit_generator.state = state, generator
            del self.log[log_len:]
            del self.recorder.records[rec_len:]
            del self.deal_scores[deals_done:]
            raise
        self.save()
        return self.view(played)

    def _action_id(self, action: Any) -> int:
        if self.state.done[0]:
            raise MoveError("the deal is over")
        if int(self.state.current[0]) != self.human:
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
        while not self.state.done[0] and int(self.state.current[0]) != self.human:
            seat = int(self.state.current[0])
            action = agent_move(self.agents[seat], self.rules, self.state, self.rng)
            if not game.legal_action_mask(self.rules, self.state)[0, action]:
                raise RuntimeError(f"bot {self.bots[seat]!r} chose an illegal move {action}")
            played.append(self._play(action))
        return played

    def hint(self, spec: str = "planner") -> dict[str, Any]:
        """The move agent ``spec`` would make for the human now (it is not played)."""
        if self.state.done[0] or int(self.state.current[0]) != self.human:
            raise MoveError("a hint is for the seat to act")
        agent = make_agent(spec, self.rules)
        action = agent_move(agent, self.rules, self.state, np.random.default_rng(self.seed))
        return {"agent": spec, "id": action, "text": actions.action_to_string(action)}

    # --- saved games --------------------------------------------------------------------

    def path(self) -> pathlib.Path:
        return self.folder / f"{self.game_id}.jsonl"

    def save(self) -> None:
        """Write the replay and the table's sidecar (token, seats) atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        sidecar = {"game": self.game_id, "token": self.token, "bots": self.bots,
                   "seed": self.seed, "rules": self.rules.name,
                   "rule_options": rule_options_of(self.rules),
                   "rng": self.rng.bit_generator.state, "match": self.match}
        for path, text in ((self.path(), self.recorder.dumps()),
                           (self.path().with_suffix(".json"), json.dumps(sidecar))):
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)

    @classmethod
    def load(cls, folder: pathlib.Path, game_id: str) -> TableGame:
        """The game ``game_id`` saved in ``folder``, replayed move by move."""
        if not game_id.isalnum():
            raise KeyError(game_id)
        sidecar_path = folder / f"{game_id}.json"
        if not sidecar_path.exists():
            raise KeyError(game_id)
        sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        rules = preset(sidecar["rules"], num_players=len(sidecar["bots"]),
                       **sidecar["rule_options"])
        table = cls(rules, sidecar["bots"], sidecar["seed"], folder, game_id=game_id,
                    token=sidecar["token"], match=sidecar.get("match", False))
        records = replay.load(folder / f"{game_id}.jsonl")
        for rec in records[2:]:
            if rec["kind"] == "move":
                table._play(actions.string_to_action(rec["move"]))
            elif rec["kind"] == "deal":
                table._start_deal(rec["deal_index"])
        table.rng.bit_generator.state = sidecar["rng"]  # the bots' generator as it was
        return table
