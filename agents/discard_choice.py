"""Which card ends the turn: greedy's rule and the planner's scored choice.

Card relations used by both: two cards are *partners* when they share a rank (different
suits: a set in the making) or a suit with ranks one apart (a run in the making; the ace
sits next to the 2 and the king). The planner also counts *outs* (unseen copies of the
cards that would complete the pair) and the *danger* of feeding an opponent.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from agents.table_model import TableMeld, natural_fit
from zolik_env.rummy.cards import JOKER, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet

NEVER = 1.0e6  # score of a joker: kept whenever another card may go


def _positions(kind: int) -> tuple[int, ...]:
    rank = kind % NUM_RANKS
    return (1, 14) if rank == 0 else (rank + 1,)


def _at(suit: int, position: int) -> int:
    """The natural kind at run ``position`` (1..14) of ``suit``, -1 off the ends."""
    if not 1 <= position <= 14:
        return -1
    return suit * NUM_RANKS + (0 if position == 14 else position - 1)


@functools.cache
def run_neighbours(kind: int, distance: int) -> tuple[int, ...]:
    """The kinds ``distance`` run positions from ``kind`` in its suit (cached: the planner
    asks for them for every card of every discard it weighs)."""
    suit = kind // NUM_RANKS
    out: list[int] = []
    for p in _positions(kind):
        out += [k for k in (_at(suit, p - distance), _at(suit, p + distance)) if k >= 0]
    return tuple(out)


@functools.cache
def set_partners(kind: int) -> tuple[int, ...]:
    suit, rank = divmod(kind, NUM_RANKS)
    return tuple(s * NUM_RANKS + rank for s in range(NUM_SUITS) if s != suit)


def is_loose(kind: int, hand: np.ndarray) -> bool:
    """No partner of ``kind`` in ``hand`` (greedy's "in no partial meld")."""
    return not any(hand[k] for k in set_partners(kind) + run_neighbours(kind, 1))


def greedy_discard(hand: np.ndarray, free: np.ndarray, rules: RuleSet) -> int:
    """The highest-penalty loose card among ``free`` ones; else the highest natural; a joker
    only when nothing else may go."""
    options = [int(k) for k in np.flatnonzero(free[:JOKER])]
    if not options:
        return JOKER
    loose = [k for k in options if is_loose(k, hand)]
    return max(loose or options, key=lambda k: (hand_card_value(k, rules), k))


def keep_value(kind: int, hand: np.ndarray, unseen: np.ndarray) -> float:
    """How much ``kind`` adds to the hand's future melds: partners weighted by live outs."""
    value = 0.0
    for partner in set_partners(kind):
        if hand[partner]:
            outs = sum(unseen[k] for k in set_partners(kind) if k != partner and not hand[k])
            value += 3.0 + 2.0 * min(outs, 4)
    for partner in run_neighbours(kind, 1):
        if hand[partner]:
            ends = [k for k in run_neighbours(kind, 2) + run_neighbours(partner, 2)
                    if k not in (kind, partner)]
            value += 3.0 + 2.0 * min(sum(unseen[k] for k in set(ends)), 4)
    for partner in run_neighbours(kind, 2):
        if hand[partner]:
            middle = set(run_neighbours(kind, 1)) & set(run_neighbours(partner, 1))
            value += 2.0 + 1.5 * min(sum(unseen[k] for k in middle), 3)
    return value


def danger(kind: int, known: np.ndarray, opened: np.ndarray, table: list[TableMeld],
           weights: list[float]) -> float:
    """Expected help to opponents (relative seats 1..P-1 weighted by ``weights``): the card
    joins discards they were seen to take, or lays off on the table once they have opened."""
    related = set_partners(kind) + run_neighbours(kind, 1) + run_neighbours(kind, 2)
    fits = any(natural_fit(m, kind) is not None for m in table)
    total = 0.0
    for seat, weight in enumerate(weights, start=1):
        hits = sum(int(known[seat, k]) for k in related)
        total += weight * (12.0 * min(hits, 2) + (6.0 if fits and opened[seat] else 0.0))
    return total


def danger_weights(rules: RuleSet) -> list[float]:
    """How much feeding each opponent (relative seats 1..P-1) counts: the next seat fully;
    the others little where only the top discard may be taken (it is theirs only if the
    next seat leaves it), more where the pile may be taken deep."""
    far = 0.6 if rules.discard_pickup == "deep" else 0.2
    return [1.0] + [far] * (rules.num_players - 2)


@dataclass(frozen=True, slots=True)
class DiscardContext:
    """What the planner's discard choice reads from the observation."""

    rules: RuleSet
    unseen: np.ndarray  # (53,)
    known: np.ndarray  # (P, 53) known_taken, seat 0 = self
    opened: np.ndarray  # (P,)
    table: list[TableMeld]
    weights: list[float]  # danger weight of relative seats 1..P-1
    penalty_weight: float  # how much a card's hand penalty urges discarding it
    keep_weight: float  # times a card's future value (``agents.planner_weights``: keep)
    held_weight: float  # protection of cards held for the opening (held)
    danger_weight: float  # times the danger of feeding an opponent (danger)


def discard_scores(hand: np.ndarray, free: np.ndarray, protected: np.ndarray,
                   ctx: DiscardContext) -> dict[int, float]:
    """Each free natural's score, lower = better to throw: future value plus danger minus
    what holding it costs; cards of melds the planner holds back are ``protected``."""
    scores = {}
    for kind in (int(k) for k in np.flatnonzero(free[:JOKER])):
        score = (ctx.keep_weight * keep_value(kind, hand, ctx.unseen)
                 + ctx.held_weight * protected[kind])
        score += ctx.danger_weight * danger(kind, ctx.known, ctx.opened, ctx.table, ctx.weights)
        scores[kind] = score - ctx.penalty_weight * hand_card_value(kind, ctx.rules)
    return scores


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
