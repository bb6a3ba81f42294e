"""``greedy``: lays what it can as soon as it can, and throws its highest loose card."""

from __future__ import annotations

import numpy as np

from agents import obs_view as ov
from agents.base import BatchedFromSingle
from agents.search.hand_search import greedy_melds
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.options import RuleSet

from .discard_choice import greedy_discard, safe_action
from .turn_plan import (
    Builder,
    discardable,
    next_step,
    opening_met,
    trim_for_discard,
    turn_input,
)


class GreedyPolicy(BatchedFromSingle):
    """The strategy of ``agents.planner.greedy.GreedyPolicy`` (its docstring says it in full),
    one row at a time in plain Python: the readable oracle the compiled kernels are held to."""

    name = "greedy"

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        if not mask.any():
            return A.DRAW_STOCK  # a finished deal: step ignores its action
        view = ov.decode(obs, self.rules)
        hand = view["hand"].astype(np.int64)
        if ov.phase(view) == ov.PHASE_DRAW:
            return A.DRAW_STOCK if mask[A.DRAW_STOCK] else safe_action(mask, hand, self.rules)
        return next_step(self.plan, obs, mask, self.rules,
                         lambda held: safe_action(mask, held, self.rules))

    def plan(self, view: ov.View) -> Builder:
        """The turn from here: melds and lay-offs (if it may lay), then the discard."""
        inp = turn_input(view, self.rules)
        builder = Builder(inp)
        if inp.may_lay:
            melds = greedy_melds(inp.hand, int(inp.hand[JOKER]), self.rules)
            melds = trim_for_discard(melds, inp.hand, inp.taken_unlaid, self.rules)
            if opening_met(inp, melds):
                for cand in melds:
                    builder.lay(cand)
                builder.lay_offs(jokers=True)
        free = discardable(builder.hand, builder.taken)
        builder.discard(greedy_discard(builder.hand, free, self.rules))
        return builder


def make(rules: RuleSet, argument: str = "") -> GreedyPolicy:
    if argument:
        raise ValueError(f"agent 'greedy' takes no argument, got {argument!r}")
    return GreedyPolicy(rules)
