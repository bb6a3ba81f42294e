"""``planner``: searches the hand's decompositions, takes useful discards, guards its discards."""

from __future__ import annotations

import numpy as np

from agents import obs_view as ov
from agents.base import BatchedFromSingle
from agents.features import rules_of_thumb
from agents.features.rules_of_thumb import danger_weights
from agents.planner.planner_weights import DEFAULT_WEIGHTS, PlannerWeights, parse_weights
from tests.agents.card_terms_reference import is_loose
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.options import RuleSet

from .discard_choice import (
    DiscardContext,
    discard_scores,
    planner_discard,
    safe_action,
)
from .planner_turn import TurnSearch
from .table_model import decode_table
from .turn_plan import Builder, TurnInput, discardable, next_step, turn_input

MAX_DEEP = 12  # jolly: deepest pick-up the planner considers
TAKE_GAIN = 6.0  # jolly: score a pick-up must add over drawing from the stock


class PlannerPolicy(BatchedFromSingle):
    """The strategy of ``agents.planner.planner.PlannerPolicy`` (its docstring says it in full),
    one row at a time in plain Python: the readable oracle the compiled kernels are held to."""

    name = "planner"

    def __init__(self, rules: RuleSet, weights: PlannerWeights = DEFAULT_WEIGHTS) -> None:
        self.rules = rules
        self.weights = weights
        self.search = TurnSearch(rules, weights)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        if not mask.any():
            return A.DRAW_STOCK  # a finished deal: step ignores its action
        view = ov.decode(obs, self.rules)
        if ov.phase(view) == ov.PHASE_DRAW:
            return self.draw(view, mask)
        return next_step(self.plan, obs, mask, self.rules,
                         lambda hand: safe_action(mask, hand, self.rules))

    def plan(self, view: ov.View) -> Builder:
        """The rest of the turn: lays (if allowed), then the discard."""
        inp = turn_input(view, self.rules)
        builder = self.search.best_turn(inp, danger=self.in_danger(view))
        protected = self.held_melds(builder)
        free = discardable(builder.hand, builder.taken)
        if free.any():  # else no card may go after these lays: act() falls back to safe moves
            builder.discard(planner_discard(builder.hand, free, protected, self.context(view)))
        return builder

    def ranked_discards(self, obs: np.ndarray, mask: np.ndarray) -> list[int]:
        """The legal discard actions, best first by the planner's discard score (after the
        lays its plan would still make); a joker last. For search agents' candidates."""
        view = ov.decode(obs, self.rules)
        builder = self.search.best_turn(turn_input(view, self.rules), self.in_danger(view))
        free = mask[A.DISCARD_BASE:].astype(np.int64)
        scores = discard_scores(builder.hand, free, self.held_melds(builder),
                                self.context(view))
        ranked = sorted(scores, key=lambda k: (scores[k], k))
        return [A.DISCARD_BASE + k for k in ranked + ([JOKER] if free[JOKER] else [])]

    def draw(self, view: ov.View, mask: np.ndarray) -> int:
        inp = turn_input(view, self.rules)
        if inp.may_lay and self.rules.discard_pickup == "deep":
            action = self.deep_pickup(inp, view, mask)
        elif inp.may_lay:
            action = self.top_pickup(inp, view, mask)
        else:
            action = A.DRAW_STOCK
        if mask[action]:
            return action
        return safe_action(mask, inp.hand, self.rules)

    def top_pickup(self, inp: TurnInput, view: ov.View, mask: np.ndarray) -> int:
        """cz/sk: the top discard when the planned turn lays it (and opens, if needed);
        sk's bottom card on the same terms."""
        danger = self.in_danger(view)
        if mask[A.TAKE_DISCARD_BASE]:
            top = int(view["discard_newest"][0])
            plan = self.search.best_turn(inp.with_cards([top], must_use=True), danger)
            if plan.must_use < 0 and plan.opened:
                return A.TAKE_DISCARD_BASE
        if mask[A.TAKE_BOTTOM]:
            bottom = int(np.argmax(view["bottom_card"]))
            plan = self.search.best_turn(inp.with_cards([bottom], must_use=False), danger)
            if plan.opened and plan.hand[bottom] <= inp.hand[bottom]:
                return A.TAKE_BOTTOM
        return A.DRAW_STOCK

    def deep_pickup(self, inp: TurnInput, view: ov.View, mask: np.ndarray) -> int:
        """jolly: the depth whose turn scores most over not drawing, if by ``TAKE_GAIN``."""
        if not inp.opened:
            return A.DRAW_STOCK
        danger = self.in_danger(view)
        base = self.search.score(self.search.best_turn(inp, danger))
        newest = [int(k) for k in view["discard_newest"] if k >= 0]
        best, best_gain = A.DRAW_STOCK, TAKE_GAIN
        for n in range(1, min(MAX_DEEP, len(newest)) + 1):
            deepest = newest[n - 1]
            pool = inp.hand.copy()
            for k in newest[: n - 1]:
                pool[k] += 1
            if not mask[A.TAKE_DISCARD_BASE + n - 1] or (
                    deepest != JOKER and is_loose(deepest, pool)
                    and not self.search.fits_table(inp, deepest)):
                continue
            plan = self.search.best_turn(inp.with_cards(newest[:n], must_use=False), danger)
            gain = self.search.score(plan) - base
            if gain > best_gain:
                best, best_gain = A.TAKE_DISCARD_BASE + n - 1, gain
        return best

    def held_melds(self, builder: Builder) -> np.ndarray:
        """int (53,) cards of melds still in hand after the plan (kept for the opening)."""
        if builder.opened:
            return np.zeros(JOKER + 1, np.int64)
        return rules_of_thumb.held_for_opening(builder.hand[None], np.ones(1, bool),
                                               self.rules)[0]

    def in_danger(self, view: ov.View) -> bool:
        """An opponent may go out soon: few cards left in an opened hand."""
        others = slice(ov.OBSERVER + 1, None)
        sizes, opened = view["hand_sizes"][others], view["opened"][others]
        return bool(((sizes <= self.weights.near_out) & (opened > 0)).any())

    def context(self, view: ov.View) -> DiscardContext:
        deep = self.rules.discard_pickup == "deep"
        opened = bool(view["opened"][ov.OBSERVER])
        w = self.weights
        base = w.penalty + (w.penalty_opened if opened or deep else 0.0)
        weight = base + (w.penalty_danger if self.in_danger(view) else 0.0)
        return DiscardContext(self.rules, view["unseen"], view["known_taken"], view["opened"],
                              decode_table(view), danger_weights(self.rules), weight,
                              w.keep, w.held, w.danger)


def make(rules: RuleSet, argument: str = "") -> PlannerPolicy:
    """The agent for spec ``planner[:KEY=VALUE,...]`` (``agents.planner.planner_weights``)."""
    return PlannerPolicy(rules, parse_weights(argument))
