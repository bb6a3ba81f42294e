"""The planner's rules of thumb, in one place: how much a card is worth keeping, how
dangerous it is to throw, and which cards an unopened hand holds back.

Card relations first: two cards are *partners* when they share a rank (different suits:
a set in the making) or a suit with ranks one apart (a run in the making; the ace sits
next to the 2 and the king); cards two apart wait for the one between.

- ``keep_values``: a card's future value in the hand, its partners weighted by their
  live outs among the unseen cards;
- ``danger_values``: the expected help to the opponents, from the discards each seat was
  seen to take and from lay-offs on the table once that seat has opened;
- ``held_for_opening``: the cards of the hand's best joker-free melds by points, kept
  back by a hand that has not opened.

The planner's discard choice (``agents.planner.choice_kernel``) and the card features
of learned agents (``agents.features.card_features``) both call these functions through
this module, so a change here moves both. The readable per-card versions they replaced
live in ``tests/agents/card_terms_reference.py`` as the oracle.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from agents.search.meld_table import meld_table, search_args, search_hand
from zolik_env.rummy.cards import NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import kernel
from zolik_env.rummy.options import RuleSet

PAD = NUM_KINDS  # index of an always-zero column appended to per-kind arrays
SEEN_TAKE = 12.0  # danger per related card an opponent was seen to take (at most two count)
LAYS_OFF = 6.0  # danger of a card that lays off on the table for an opened opponent


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
    """The kinds ``distance`` run positions from ``kind`` in its suit."""
    suit = kind // NUM_RANKS
    out: list[int] = []
    for p in _positions(kind):
        out += [k for k in (_at(suit, p - distance), _at(suit, p + distance)) if k >= 0]
    return tuple(out)


@functools.cache
def set_partners(kind: int) -> tuple[int, ...]:
    """The kinds of the same rank in the other suits."""
    suit, rank = divmod(kind, NUM_RANKS)
    return tuple(s * NUM_RANKS + rank for s in range(NUM_SUITS) if s != suit)


def _padded(lists: Sequence[Sequence[int]], width: int | None = None) -> np.ndarray:
    """int64 (len(lists), width) the lists, padded with ``PAD``."""
    width = width or max(1, max(len(x) for x in lists))
    out = np.full((len(lists), width), PAD, np.int64)
    for i, items in enumerate(lists):
        out[i, :len(items)] = items
    return out


@functools.cache
def relation_tables() -> dict[str, np.ndarray]:
    """Index tables over the 52 naturals (``PAD`` where a list is shorter):

    ``sets`` (52, 3) set partners; ``near``/``far`` (52, 4) run neighbours one and two
    apart; ``ends`` (52, 4, E) the cards that extend kind + ``near`` partner to a run of
    three; ``middle`` (52, 4, M) the card between kind and its ``far`` partner;
    ``related`` (52, R) every card the danger relates the kind to."""
    kinds = range(NUM_NATURALS)
    near = [run_neighbours(k, 1) for k in kinds]
    far = [run_neighbours(k, 2) for k in kinds]
    ends = [[sorted(set(run_neighbours(k, 2) + run_neighbours(p, 2)) - {k, p})
             for p in near[k]] for k in kinds]
    middle = [[sorted(set(run_neighbours(k, 1)) & set(run_neighbours(p, 1))) for p in far[k]]
              for k in kinds]
    width_e = max(len(e) for row in ends for e in row)
    width_m = max(len(m) for row in middle for m in row)
    return {
        "sets": _padded([set_partners(k) for k in kinds]),
        "near": _padded(near, 4), "far": _padded(far, 4),
        "ends": np.stack([_padded(row + [[]] * (4 - len(row)), width_e) for row in ends]),
        "middle": np.stack([_padded(row + [[]] * (4 - len(row)), width_m) for row in middle]),
        "related": _padded([set_partners(k) + run_neighbours(k, 1) + run_neighbours(k, 2)
                            for k in kinds]),
    }


def padded(counts: np.ndarray) -> np.ndarray:
    """``counts`` (..., 53) with the zero ``PAD`` column appended."""
    return np.concatenate([counts, np.zeros((*counts.shape[:-1], 1), counts.dtype)], -1)


def keep_values(hand: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """float64 (B, 52): how much each natural kind adds to the future melds of each row's
    ``hand`` (B, 53), its partners weighted by their live outs in ``unseen`` (B, 53)."""
    t = relation_tables()
    return keep_rows(np.ascontiguousarray(hand, np.int64),
                        np.ascontiguousarray(unseen, np.int64), t["sets"], t["near"], t["far"],
                        t["ends"], t["middle"])


@kernel
def keep_rows(hand: np.ndarray, unseen: np.ndarray, sets: np.ndarray, near: np.ndarray,
                 far: np.ndarray, ends: np.ndarray, middle: np.ndarray) -> np.ndarray:
    """``keep_values`` over the ``relation_tables`` (``PAD`` entries: never held, never
    live). Every term is a multiple of 0.5, so the sums are exact in any order."""
    out = np.zeros((hand.shape[0], NUM_NATURALS))
    for b in range(hand.shape[0]):
        held = np.zeros(NUM_KINDS + 1, np.bool_)
        live = np.zeros(NUM_KINDS + 1, np.int64)
        held[:NUM_KINDS] = hand[b] > 0
        live[:NUM_KINDS] = unseen[b]
        for k in range(NUM_NATURALS):
            value = 0.0
            for i in range(sets.shape[1]):  # set partners: the other partners' live outs
                if held[sets[k, i]]:
                    outs = 0
                    for j in range(sets.shape[1]):
                        if j != i and not held[sets[k, j]]:
                            outs += live[sets[k, j]]
                    value += 3.0 + 2.0 * min(outs, 4)
            for i in range(near.shape[1]):
                if held[near[k, i]]:  # a run neighbour: the cards that make it three
                    outs = 0
                    for j in range(ends.shape[2]):
                        outs += live[ends[k, i, j]]
                    value += 3.0 + 2.0 * min(outs, 4)
                if held[far[k, i]]:  # two apart: the card between
                    outs = 0
                    for j in range(middle.shape[2]):
                        outs += live[middle[k, i, j]]
                    value += 2.0 + 1.5 * min(outs, 3)
            out[b, k] = value
    return out


def danger_weights(rules: RuleSet) -> list[float]:
    """How much feeding each opponent (relative seats 1..P-1) counts: the next seat fully;
    the others little where only the top discard may be taken (it is theirs only if the
    next seat leaves it), more where the pile may be taken deep."""
    far = 0.6 if rules.discard_pickup == "deep" else 0.2
    return [1.0] + [far] * (rules.num_players - 2)


def danger_values(known: np.ndarray, opened: np.ndarray, fits: np.ndarray,
                  weights: Sequence[float]) -> np.ndarray:
    """float64 (B, 52): each natural's expected help to the opponents, for rows of
    ``known`` (B, P, 53) discards each relative seat was seen to take, ``opened`` (B, P)
    and ``fits`` (B, >=52) whether the kind lays off on the table; relative seats
    1..P-1 count by ``weights`` (``danger_weights``)."""
    known = np.ascontiguousarray(known, np.int64)
    out = np.zeros((len(known), NUM_NATURALS))
    _danger_rows(relation_tables()["related"], known,
                 np.ascontiguousarray(opened, np.int64),
                 np.ascontiguousarray(np.asarray(fits)[:, :NUM_NATURALS], np.bool_),
                 np.asarray(weights, np.float64), out)
    return out


@kernel
def _danger_rows(related: np.ndarray, known: np.ndarray, opened: np.ndarray,
                 fits: np.ndarray, weights: np.ndarray, out: np.ndarray) -> None:
    for b in range(len(known)):
        danger_row(related, known[b], opened[b], fits[b], weights, out[b])


@kernel
def danger_row(related: np.ndarray, known: np.ndarray, opened: np.ndarray, fits: np.ndarray,
               weights: np.ndarray, out: np.ndarray) -> None:
    """``danger_values`` of one row into ``out`` (52,), zeroed first: per relative seat
    1..P-1, its weight times ``SEEN_TAKE`` per related card it took (two at most) plus
    ``LAYS_OFF`` where the kind lays off and the seat has opened."""
    out[:] = 0.0
    for seat in range(1, len(weights) + 1):
        for k in range(NUM_NATURALS):
            hits = 0
            for j in range(related.shape[1]):
                if related[k, j] < NUM_KINDS:
                    hits += known[seat, related[k, j]]
            lays = 1.0 if fits[k] and opened[seat] > 0 else 0.0
            out[k] += weights[seat - 1] * (SEEN_TAKE * min(hits, 2) + LAYS_OFF * lays)


@kernel
def loose(sets: np.ndarray, near: np.ndarray, kind: int, hand: np.ndarray) -> bool:
    """No partner of ``kind`` in ``hand`` (greedy's "in no partial meld"): no card of its
    rank in another suit, none a run position away in its suit; over the relation tables
    (``PAD`` entries never held)."""
    for j in range(sets.shape[1]):
        if sets[kind, j] < NUM_KINDS and hand[sets[kind, j]]:
            return False
    for j in range(near.shape[1]):
        if near[kind, j] < NUM_KINDS and hand[near[kind, j]]:
            return False
    return True


def held_for_opening(hands: np.ndarray, unopened: np.ndarray, rules: RuleSet) -> np.ndarray:
    """int64 (B, 53): for each unopened row, the cards of each kind in the hand's best
    joker-free melds by points (what the hand holds back for its opening); 0 for the
    rows that have opened."""
    table = meld_table(rules)
    hands = np.ascontiguousarray(hands, np.int64)
    out = np.zeros(hands.shape, np.int64)
    _held_rows(hands, np.ascontiguousarray(unopened, np.bool_), table.points,
               *search_args(table), out)
    return out


@kernel
def _held_rows(hands: np.ndarray, active: np.ndarray, points: np.ndarray, group: np.ndarray,
               naturals: np.ndarray, sizes: np.ndarray, absent: np.ndarray,
               jokers: np.ndarray, clean: np.ndarray, out: np.ndarray) -> None:
    for b in range(len(hands)):
        if active[b]:
            held_row(hands[b], points, group, naturals, sizes, absent, jokers, clean, out[b])


@kernel
def held_row(hand: np.ndarray, points: np.ndarray, group: np.ndarray, naturals: np.ndarray,
             sizes: np.ndarray, absent: np.ndarray, jokers: np.ndarray, clean: np.ndarray,
             out: np.ndarray) -> None:
    """``held_for_opening`` of one unopened hand into ``out`` (53,), zeroed first; the
    meld table's arrays as ``meld_table.search_args`` gives them, ``points`` its values."""
    out[:] = 0
    _, rows, _, _ = search_hand(hand, 0, np.zeros(len(hand)), points, group, naturals, sizes,
                                absent, jokers, clean)
    for row in rows:
        for j in range(sizes[row]):
            out[naturals[row, j]] += 1


__all__ = ["danger_row", "danger_values", "danger_weights", "held_for_opening", "held_row",
           "keep_rows", "keep_values", "loose", "relation_tables", "run_neighbours",
           "set_partners"]
