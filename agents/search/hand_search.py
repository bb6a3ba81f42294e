"""Meld candidates of a hand and the best disjoint choice of them (hand decomposition).

A *candidate* is a run (≥ 3 consecutive positions of one suit) or a set (3-4 ranks-equal
cards of different suits) that the hand can lay, with at most one joker: every such meld
is valid under all presets (a joker always has ≥ 2 naturals beside it, never a
neighbour joker) and is reachable through the action table as a 3-card pattern plus
lay-offs on the new meld (``table_model.meld_steps``).

``best_melds`` is an exact search over the hand's count vector: the lowest natural card
is either left in hand (its *dead value*) or laid in one of the candidates whose lowest
natural it is; sub-hands are memoised. It returns the best value overall and the best
value among choices holding a joker-free run (cz/sk openings need one).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.search.hand_search_kernel import NEG as NEG  # re-exported: the "no clean choice" value
from agents.search.hand_search_kernel import search_kernel
from agents.search.meld_table import Candidate as Candidate  # re-exported: the melds' type
from agents.search.meld_table import (
    make_candidate,
    meld_table,
    run_card,
    search_args,
    search_hand,
    select,
)
from zolik_env.rummy.cards import JOKER, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.melds import NUM_POSITIONS, position_rank
from zolik_env.rummy.options import RuleSet, preset

_POSITION_RANKS = [position_rank(p) for p in range(NUM_POSITIONS + 1)]  # index 0 unused


def _runs(counts: np.ndarray, jokers: int, rules: RuleSet) -> list[Candidate]:
    """Every run of ≥ 3 positions the hand holds, with at most one joker (never two in a
    run: not adjacent anywhere, and the fewest jokers per natural)."""
    held = (np.asarray(counts[:JOKER]) > 0).reshape(NUM_SUITS, NUM_RANKS).tolist()
    out: list[Candidate] = []
    for suit in range(NUM_SUITS):
        out.extend(_suit_runs(suit, tuple(held[suit]), min(jokers, 1), rules))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _suit_runs(suit: int, held: tuple[bool, ...], limit: int,
               rules: RuleSet) -> tuple[Candidate, ...]:
    """The runs of one suit, given which of its ranks the hand ``held`` and how many
    jokers a run may use (cached: a suit's cards change little between decisions)."""
    present = [held[rank] for rank in _POSITION_RANKS]
    out = []
    for low in range(1, NUM_POSITIONS - 1):
        cards: list[int] = []
        missing = 0
        for position in range(low, NUM_POSITIONS + 1):
            if position == NUM_POSITIONS and low == 1:
                break  # A ... K A would need both copies of one ace
            if present[position]:
                cards.append(run_card(suit, position))
            else:
                missing += 1
                if missing > limit:
                    break
                cards.append(JOKER)
            if len(cards) >= 3 and len(cards) - missing >= 2:
                out.append(make_candidate(tuple(cards), True, rules, low))
    return tuple(out)


def _sets(counts: np.ndarray, jokers: int, rules: RuleSet) -> list[Candidate]:
    """Every set of 3-4 cards the hand holds, with at most one joker."""
    out: list[Candidate] = []
    for rank in range(NUM_RANKS):
        suits = tuple(s for s in range(NUM_SUITS) if counts[s * NUM_RANKS + rank] > 0)
        if len(suits) >= 2:
            out.extend(_rank_sets(rank, suits, jokers > 0, rules))
    return out


@functools.lru_cache(maxsize=1 << 12)
def _rank_sets(rank: int, suits: tuple[int, ...], joker: bool,
               rules: RuleSet) -> tuple[Candidate, ...]:
    """The sets of one rank from the ``suits`` held (cached)."""
    out = []
    for size in (3, 4):
        for chosen in itertools.combinations(suits, size):
            out.append(make_candidate(tuple(s * NUM_RANKS + rank for s in chosen), False, rules))
        if joker and size - 1 >= 2:
            for chosen in itertools.combinations(suits, size - 1):
                cards = (*(s * NUM_RANKS + rank for s in chosen), JOKER)
                out.append(make_candidate(cards, False, rules))
    return tuple(out)


def candidates(counts: np.ndarray, jokers: int, rules: RuleSet) -> list[Candidate]:
    """All runs and sets the hand ``counts`` (53,) could lay with up to ``jokers`` jokers."""
    return _runs(counts, jokers, rules) + _sets(counts, jokers, rules)


@dataclass(frozen=True, slots=True)
class Best:
    """The best choice of melds and its value; ``clean_*`` among choices with a clean run."""

    value: float
    melds: tuple[Candidate, ...]
    clean_value: float
    clean_melds: tuple[Candidate, ...]


def best_melds(counts: np.ndarray, jokers: int, rules: RuleSet,
               meld_value: Callable[[Candidate], float] | None = None,
               dead_value: Sequence[float] | None = None) -> Best:
    """The disjoint melds of the hand ``counts`` (natural kinds; jokers apart) maximising
    the sum of ``meld_value`` (default: the meld's points) over laid melds plus
    ``dead_value[kind]`` over cards kept.

    The candidates are ``candidates``', chosen from the rule set's ``meld_table`` by a
    compiled kernel; the search is compiled too (``agents.search.hand_search_kernel``)."""
    table = meld_table(rules)
    counts = np.asarray(counts, np.int64)
    if meld_value is None:
        dead = np.zeros(JOKER + 1) if dead_value is None else np.asarray(dead_value, float)
        value, best, clean_value, clean = search_hand(counts, int(jokers), dead, table.points,
                                                      *search_args(table))
    else:
        rows, left, start, uses = select(counts, int(jokers), table.group, table.naturals,
                                         table.sizes, table.absent, table.jokers)
        held = np.flatnonzero(counts[:JOKER])
        dead = (np.zeros(len(held)) if dead_value is None
                else np.array([dead_value[k] for k in held], np.float64))
        values = np.array([meld_value(table.cands[i]) for i in rows], np.float64)
        value, best, clean_value, clean = search_kernel(
            left, start, uses, table.sizes[rows], table.jokers[rows], values,
            table.clean[rows], dead)
        best, clean = rows[best], rows[clean]
    return Best(float(value), tuple(table.cands[i] for i in best), float(clean_value),
                tuple(table.cands[i] for i in clean))


def _merge(best: tuple[float, tuple[Candidate, ...], float, tuple[Candidate, ...]],
           value: float, cand: Candidate, v: float, m: tuple[Candidate, ...], cv: float,
           cm: tuple[Candidate, ...]) -> tuple[float, tuple[Candidate, ...], float,
                                               tuple[Candidate, ...]]:
    """Fold "lay ``cand`` then the best of the rest" into ``best``."""
    bv, bm, bcv, bcm = best
    if value + v > bv:
        bv, bm = value + v, (cand, *m)
    clean = value + (v if cand.clean_run else cv)
    if clean > bcv:
        bcv, bcm = clean, (cand, *(m if cand.clean_run else cm))
    return bv, bm, bcv, bcm


def greedy_melds(counts: np.ndarray, jokers: int, rules: RuleSet) -> list[Candidate]:
    """Melds picked one at a time, most cards first, then the highest penalty removed."""
    cands = sorted(candidates(counts, jokers, rules),
                   key=lambda c: (-len(c.cards), -c.penalty, c.cards))
    left = counts.astype(np.int64).copy()
    left[JOKER] = jokers
    chosen = []
    for cand in cands:
        if cand.jokers > left[JOKER] or any(left[k] == 0 for k in cand.naturals):
            continue
        for k in cand.naturals:
            left[k] -= 1
        left[JOKER] -= cand.jokers
        chosen.append(cand)
    return chosen


def shrink(cand: Candidate, rules: RuleSet) -> list[tuple[Candidate, int]]:
    """Smaller melds left when one end natural of ``cand`` stays in hand: (meld, card kept)."""
    if len(cand.cards) < 4:
        return []
    out = []
    if cand.is_run:
        for cards, low, kept in ((cand.cards[1:], cand.low + 1, cand.cards[0]),
                                 (cand.cards[:-1], cand.low, cand.cards[-1])):
            if kept != JOKER and len(cards) - cards.count(JOKER) >= 2:
                out.append((make_candidate(cards, True, rules, low), kept))
        return out
    for kept in cand.naturals:
        cards = tuple(c for c in cand.cards if c != kept)
        if len(cards) - cards.count(JOKER) >= 2:
            out.append((make_candidate(cards, False, rules), kept))
    return out


def compile_kernels() -> None:
    """Compile (or load from the on-disk cache) the search's kernels, by one search;
    ``scripts/test.sh`` calls it with the core's before the test workers start."""
    hand = np.zeros(JOKER + 1, np.int64)
    hand[[0, 1, 2, 13, 26, JOKER]] = 1
    best_melds(hand, 1, preset("cz"))
    best_melds(hand, 1, preset("cz"), lambda cand: float(cand.penalty))
