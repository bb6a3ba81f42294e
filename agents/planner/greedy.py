"""``greedy``: lays what it can as soon as it can, and throws its highest loose card."""

from __future__ import annotations

import numpy as np

from agents.base import SingleFromBatched
from agents.planner.plan_tables import plan_tables, weight_array
from agents.planner.planner_kernel import GREEDY, batch_actions
from agents.planner.planner_weights import DEFAULT_WEIGHTS
from zolik_env.rummy.options import RuleSet


class GreedyPolicy(SingleFromBatched):
    """Strategy (deterministic; the rng is not used):

    - Draw: always the top of the stock (never a discard or sk's bottom card).
    - Melds: pick melds one at a time from the hand, most cards first, then the highest
      hand penalty (jokers allowed, at most one per meld).
    - Opening: only when those melds reach the preset's points (and clean run) this turn;
      the whole opening is planned from the hand first, so it never lays provisional melds
      it cannot complete (no UNDO needed). Otherwise it lays nothing.
    - After opening: lays every such meld, then lays off every card that fits any meld on
      the table (jokers too), highest penalty first, always keeping one card to discard.
    - Discard: the highest-penalty card that has no partner in hand (same rank, or same
      suit one rank apart); if every card has one, the highest natural; a joker only when
      nothing else may go. Cards taken this turn are never discarded (rules).
    - Fallback: if a planned step is not legal, a legal discard, else UNDO. A finished
      deal (empty mask) gets action 0, which `game.step` ignores.

    Compiled like the planner (``agents.planner.planner_kernel``); the readable version
    is ``tests/agents/planner_reference/greedy.py``.
    """

    name = "greedy"

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._tables = plan_tables(rules)
        self._weights = weight_array(DEFAULT_WEIGHTS)  # unread: greedy weighs nothing

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return batch_actions(self._tables, self._weights, np.ascontiguousarray(obs, np.int16),
                             np.ascontiguousarray(mask, np.bool_), GREEDY)


def make(rules: RuleSet, argument: str = "") -> GreedyPolicy:
    if argument:
        raise ValueError(f"agent 'greedy' takes no argument, got {argument!r}")
    return GreedyPolicy(rules)
