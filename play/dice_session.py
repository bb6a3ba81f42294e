"""Pět kostek at the web table: a solitaire game with the optimal agent as the yardstick.

The person rolls, keeps dice and fills boxes; only moves of the core's mask are played.
After every move the page is told what the optimal agent (the exact solver's policy,
``agents.dice.players.OptimalAgent``) would have played in the same position, and at the end
what it scored on the same seed and what it scores on average (``solver.expected_score``).
The page never gets the game's random key, so future rolls stay unknown. A game made
without a chosen seed rolls from a secret 256-bit key (``play.deals``): every move's
rolls use a fresh 64-bit key from HMAC-SHA256 under it, so past rolls say nothing about
the next. The game is saved after every move as its seed (or key) and moves (JSON) and
read back after a restart.
"""

from __future__ import annotations

import dataclasses
import pathlib
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.dice.players import OptimalAgent
from play.deals import new_key, secret_u64
from play.saves import GAME_ID, DamagedSave, DiceSave, read_save, write_atomic
from zolik_env import dice
from zolik_env.dice import solver
from zolik_env.dice.rules import BOX_NAMES
from zolik_env.dice.scorecard import turn_context

_SOLVER_BUILD = threading.Lock()  # one build of the solver's tables at a time


def warm_solver(joker: Any) -> None:
    """Build (or load) the optimal player's tables for ``joker`` once; a caller that
    arrives during the build waits for it rather than building them again. ``ValueError``
    for a joker rule that does not exist."""
    rules = dice.DiceRules(joker=joker)
    with _SOLVER_BUILD:
        solver.value_table(rules.joker, rules.yahtzee_bonus, rules.fixed_order)


@dataclass
class DiceTable:
    joker: str
    seed: int
    folder: pathlib.Path
    game_id: str = field(default_factory=lambda: secrets.token_hex(8))
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    moves: list[int] = field(default_factory=list)
    advice: list[dict[str, str]] = field(default_factory=list)  # yours vs the optimum's
    secret: str | None = None  # the key of every roll (``play.deals``); None: seeded

    def __post_init__(self) -> None:
        self.rules = dice.DiceRules(joker=self.joker)  # solitaire, classic: what the solver covers
        self.optimal = OptimalAgent(self.rules)
        self.state = self._keyed(dice.init(self.rules, [self.seed]), -1)

    def _keyed(self, state: dice.State, move: int) -> dice.State:
        """``state`` with its rolls keyed for move number ``move`` (-1: the first roll),
        from the secret; a seeded game's state as it is."""
        if self.secret is None:
            return state
        key = secret_u64(self.secret, f"dice move {move}")
        if move < 0:  # the first roll was made by ``init``: make it again under the key
            return dice.init(self.rules, [key >> 1])
        return dataclasses.replace(state, key=np.array([key], np.uint64))

    @classmethod
    def new(cls, folder: pathlib.Path, joker: str = "forced", seed: int | None = None) -> DiceTable:
        secret = new_key() if seed is None else None
        table = cls(joker, 0 if seed is None else int(seed), folder, secret=secret)
        table.save()
        return table

    def _text(self, action: int) -> str:
        return dice.action_to_string(self.rules, action)

    def move(self, action: Any) -> dict[str, Any]:
        """Play ``action`` (an id or its text, ``reroll 0,3`` / ``score chance``)."""
        if self.state.done[0]:
            raise ValueError("the game is over")
        mask = dice.legal_action_mask(self.rules, self.state)[0]
        if isinstance(action, str):
            named = [a for a in range(mask.size) if self._text(a) == action.strip()]
            action = named[0] if named else action
        if isinstance(action, bool) or not isinstance(action, int | np.integer) \
                or not 0 <= action < mask.size or not mask[action]:
            raise ValueError(f"{action!r} is not a legal move now")
        before = (self.state, len(self.moves), len(self.advice))
        try:  # the move counts only once saved: a failed save leaves the game as it was
            self._play(int(action), mask)
            self.save()
        except Exception:
            self.state = before[0]
            del self.moves[before[1]:], self.advice[before[2]:]
            raise
        return self.view()

    def _play(self, action: int, mask: np.ndarray) -> None:
        """Play a legal ``action``, noting what the optimal agent would have played."""
        best = self.optimal.act(dice.observe(self.rules, self.state, 0)[0], mask,
                                np.random.default_rng(0))
        self.advice.append({"yours": self._text(action), "optimal": self._text(best)})
        self.state, _ = dice.step(self.rules, self._keyed(self.state, len(self.moves)),
                                  [action])
        self.moves.append(action)

    def view(self) -> dict[str, Any]:
        """What the page shows: dice, rolls left, the scorecard with what the dice are worth
        in each open box, the total, the legal moves and the optimum's advice."""
        state, done = self.state, bool(self.state.done[0])
        ctx = turn_context(self.rules, state)
        boxes = []
        for k, name in enumerate(BOX_NAMES):
            filled = int(state.boxes[0, 0, k])
            boxes.append({"name": name, "score": filled if filled >= 0 else None,
                          "now": int(ctx.values[0, 0, k]) if ctx.legal[0, 0, k] and not done
                          else None,
                          "action": dice.score_action(k)})
        mask = dice.legal_action_mask(self.rules, state)[0]
        out: dict[str, Any] = {
            "game": self.game_id, "joker": self.joker, "dice": state.dice[0].tolist(),
            "rolls_left": int(state.rolls_left[0]), "boxes": boxes,
            "bonuses": int(state.yahtzee_bonuses[0, 0]),
            "total": int(dice.totals(self.rules, state)[0, 0]), "done": done,
            "moves": [] if done else [{"id": int(a), "text": self._text(int(a))}
                                      for a in np.flatnonzero(mask)],
            "advice": self.advice[-1] if self.advice else None,
        }
        if done:
            out["optimal_same_seed"] = self.optimal_score()
            out["optimal_expected"] = round(solver.expected_score(self.joker), 2)
        return out

    def optimal_score(self) -> int:
        """What the optimal agent scores on a game of the same seed."""
        state = self._keyed(dice.init(self.rules, [self.seed]), -1)
        rng, move = np.random.default_rng(0), 0
        while not state.done[0]:
            mask = dice.legal_action_mask(self.rules, state)[0]
            action = self.optimal.act(dice.observe(self.rules, state, 0)[0], mask, rng)
            state, _ = dice.step(self.rules, self._keyed(state, move), [action])
            move += 1
        return int(dice.totals(self.rules, state)[0, 0])

    def save(self) -> None:
        """Write the game (``saves.DiceSave``) atomically; ``SaveError`` if it cannot."""
        saved = DiceSave(game=self.game_id, token=self.token, joker=self.joker,
                         seed=self.seed, secret=self.secret, moves=self.moves)
        write_atomic(self.folder / f"dice_{self.game_id}.json", saved.model_dump_json())

    @classmethod
    def load(cls, folder: pathlib.Path, game_id: str) -> DiceTable:
        """The dice game ``game_id`` saved in ``folder``; ``KeyError`` for none,
        ``DamagedSave`` naming the file for a save that does not read back."""
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise KeyError(game_id)
        path = folder / f"dice_{game_id}.json"
        saved = read_save(path, DiceSave)
        try:
            table = cls(saved.joker, saved.seed, folder, game_id=saved.game,
                        token=saved.token, secret=saved.secret)
            for action in saved.moves:
                mask = dice.legal_action_mask(table.rules, table.state)[0]
                if table.state.done[0] or not 0 <= action < mask.size or not mask[action]:
                    raise ValueError(f"move {action} is not legal there")
                table._play(action, mask)
        except Exception as err:
            raise DamagedSave(f"{path.name} does not replay: {type(err).__name__}: "
                              f"{str(err)[:200]}") from None
        return table
