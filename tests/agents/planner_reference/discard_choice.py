"""Which card ends the turn: greedy's rule and the planner's scored choice.

The planner weighs each card by the rules of thumb of ``agents.features.rules_of_thumb``
(their one home, shared with the learned agents' card features): its future value in
the hand, the danger of feeding an opponent, and whether an unopened hand holds it back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.features import rules_of_thumb
from tests.agents.card_terms_reference import is_loose
from zolik_env.rummy.cards import JOKER, NUM_NATURALS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet

from .table_model import TableMeld, natural_fit

NEVER = 1.0e6  # score of a joker: kept whenever another card may go


def greedy_discard(hand: np.ndarray, free: np.ndarray, rules: RuleSet) -> int:
    """The highest-penalty loose card among ``free`` ones; else the highest natural; a joker
    only when nothing else may go."""
    options = [int(k) for k in np.flatnonzero(free[:JOKER])]
    if not options:
        return JOKER
    loose = [k for k in options if is_loose(k, hand)]
    return max(loose or options, key=lambda k: (hand_card_value(k, rules), k))


@dataclass(frozen=True, slots=True)
class DiscardContext:
    """What the planner's discard choice reads from the observation."""

    rules: RuleSet
    unseen: np.ndarray  # (53,)
    known: np.ndarray  # (P, 53) known_taken, seat 0 = self
    opened: np.ndarray  # (P,)
    table: list[TableMeld]
    weights: list[float]  # danger weight of relative seats 1..P-1 (``danger_weights``)
    penalty_weight: float  # how much a card's hand penalty urges discarding it
    keep_weight: float  # times a card's future value (``agents.planner.planner_weights``: keep)
    held_weight: float  # protection of cards held for the opening (held)
    danger_weight: float  # times the danger of feeding an opponent (danger)


def discard_scores(hand: np.ndarray, free: np.ndarray, protected: np.ndarray,
                   ctx: DiscardContext) -> dict[int, float]:
    """Each free natural's score, lower = better to throw: future value plus danger minus
    what holding it costs; cards of melds the planner holds back are ``protected``."""
    kinds = [int(k) for k in np.flatnonzero(free[:JOKER])]
    keep = rules_of_thumb.keep_values(hand[None], ctx.unseen[None])[0]
    danger = rules_of_thumb.danger_values(ctx.known[None], ctx.opened[None],
                                          table_fits(ctx.table, kinds)[None], ctx.weights)[0]
    scores = {}
    for kind in kinds:
        score = ctx.keep_weight * keep[kind] + ctx.held_weight * protected[kind]
        score += ctx.danger_weight * danger[kind]
        scores[kind] = float(score - ctx.penalty_weight * hand_card_value(kind, ctx.rules))
    return scores


def table_fits(table: list[TableMeld], kinds: list[int]) -> np.ndarray:
    """bool (52,): which of ``kinds`` lay off on some meld of the (planned) ``table``."""
    out = np.zeros(NUM_NATURALS, bool)
    for kind in kinds:
        out[kind] = any(natural_fit(m, kind) is not None for m in table)
    return out


def planner_discard(hand: np.ndarray, free: np.ndarray, protected: np.ndarray,
                    ctx: DiscardContext) -> int:
    """The free card with the lowest ``discard_scores`` score (the first such kind); a
    joker only when no natural may go."""
    scores = discard_scores(hand, free, protected, ctx)
    best = min(scores, key=lambda k: (scores[k], k), default=JOKER)
    if best != JOKER and scores[best] >= NEVER:
        best = JOKER
    return best if best != JOKER or free[JOKER] else int(np.flatnonzero(free)[0])


def safe_action(mask: np.ndarray, hand: np.ndarray, rules: RuleSet) -> int:
    """A legal fallback when a plan's next step is not allowed: greedy's discard among the
    legal ones, else UNDO (it always frees the discard), else a draw, else the first legal."""
    from zolik_env.rummy import actions as A

    free = mask[A.DISCARD_BASE:].astype(np.int64)
    if free.any():
        return A.DISCARD_BASE + greedy_discard(hand, free, rules)
    for action in (A.UNDO, A.DRAW_STOCK):
        if mask[action]:
            return action
    legal = np.flatnonzero(mask)
    if not legal.size:
        raise ValueError("no legal action: the deal is over")
    return int(legal[0])
