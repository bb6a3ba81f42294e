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

from agents.hand_search_kernel import NEG as NEG  # re-exported: the "no clean choice" value
from agents.hand_search_kernel import search_kernel
from zolik_env.rummy.cards import JOKER, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.melds import (
    NUM_POSITIONS,
    hand_card_value,
    position_rank,
    position_value,
    set_card_value,
)
from zolik_env.rummy.options import RuleSet, preset


@dataclass(frozen=True, slots=True)
class Candidate:
    """One meld the hand can lay: ``cards`` in table order (JOKER for the joker)."""

    cards: tuple[int, ...]
    naturals: tuple[int, ...]  # the natural kinds, ascending
    jokers: int
    is_run: bool
    points: int  # meld value (opening points; jolly's laid score)
    penalty: int  # what the cards would cost if left in hand
    low: int = 0  # a run's first position (1 = low ace .. 14 = high ace); 0 for a set

    @property
    def clean_run(self) -> bool:
        return self.is_run and self.jokers == 0


_POSITION_RANKS = [position_rank(p) for p in range(NUM_POSITIONS + 1)]  # index 0 unused


def _run_card(suit: int, position: int) -> int:
    return suit * NUM_RANKS + position_rank(position)


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
                cards.append(_run_card(suit, position))
            else:
                missing += 1
                if missing > limit:
                    break
                cards.append(JOKER)
            if len(cards) >= 3 and len(cards) - missing >= 2:
                out.append(_candidate(tuple(cards), True, rules, low))
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
            out.append(_candidate(tuple(s * NUM_RANKS + rank for s in chosen), False, rules))
        if joker and size - 1 >= 2:
            for chosen in itertools.combinations(suits, size - 1):
                cards = (*(s * NUM_RANKS + rank for s in chosen), JOKER)
                out.append(_candidate(cards, False, rules))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def _candidate(cards: tuple[int, ...], is_run: bool, rules: RuleSet,
               low: int = 0) -> Candidate:
    """The Candidate of ``cards`` (cached: it is immutable, and the same melds recur in
    the hands of a deal)."""
    naturals = tuple(sorted(c for c in cards if c != JOKER))
    if is_run:
        points = sum(position_value(low + i, rules) for i in range(len(cards)))
    else:
        points = set_card_value(naturals[0] % NUM_RANKS, rules) * len(cards)
    penalty = sum(hand_card_value(c, rules) for c in cards)
    return Candidate(cards, naturals, len(cards) - len(naturals), is_run, points, penalty, low)


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
               meld_value: Callable[[Candidate], float],
               dead_value: Sequence[float] | None = None) -> Best:
    """The disjoint melds of the hand ``counts`` (natural kinds; jokers apart) maximising
    the sum of ``meld_value`` over laid melds plus ``dead_value[kind]`` over cards kept.

    The candidates and their values are made here; the search is compiled
    (``agents.hand_search_kernel``)."""
    kinds = np.flatnonzero(counts[:JOKER])
    position = np.full(JOKER, -1, np.int64)
    position[kinds] = np.arange(len(kinds))
    cands = candidates(counts, jokers, rules)
    # grouped by their lowest natural's position; a stable sort keeps the candidates'
    # own order inside a group, which decides ties as the recursion always did
    lows = np.array([position[c.naturals[0]] for c in cands], np.int64)
    order = np.argsort(lows, kind="stable")
    ordered = [cands[i] for i in order]
    width = max((len(c.naturals) for c in ordered), default=1)
    uses = np.full((len(ordered), width), -1, np.int64)
    for i, cand in enumerate(ordered):
        uses[i, :len(cand.naturals)] = position[list(cand.naturals)]
    start = np.zeros(len(kinds) + 1, np.int64)
    start[1:] = np.cumsum(np.bincount(lows, minlength=len(kinds)))
    dead = (np.zeros(len(kinds)) if dead_value is None
            else np.array([dead_value[k] for k in kinds], np.float64))
    left = np.append(counts[kinds].astype(np.int64), int(jokers))
    value, best, clean_value, clean = search_kernel(
        left, start, uses, np.array([len(c.naturals) for c in ordered], np.int64),
        np.array([c.jokers for c in ordered], np.int64),
        np.array([meld_value(c) for c in ordered], np.float64),
        np.array([c.clean_run for c in ordered], np.bool_), dead)
    return Best(float(value), tuple(ordered[i] for i in best), float(clean_value),
                tuple(ordered[i] for i in clean))


def held_for_opening(counts: np.ndarray, rules: RuleSet) -> np.ndarray:
    """int64 (53,) the cards of each kind in the hand's best joker-free melds by points:
    what an unopened hand holds back for its opening (the planner never throws them)."""
    held = np.zeros(JOKER + 1, np.int64)
    for cand in best_melds(counts, 0, rules, _meld_points).melds:
        for k in cand.naturals:
            held[k] += 1
    return held


def _meld_points(cand: Candidate) -> float:
    return float(cand.points)


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
                out.append((_candidate(cards, True, rules, low), kept))
        return out
    for kept in cand.naturals:
        cards = tuple(c for c in cand.cards if c != kept)
        if len(cards) - cards.count(JOKER) >= 2:
            out.append((_candidate(cards, False, rules), kept))
    return out


def compile_kernels() -> None:
    """Compile (or load from the on-disk cache) the search's kernels, by one search;
    ``scripts/test.sh`` calls it with the core's before the test workers start."""
    hand = np.zeros(JOKER + 1, np.int64)
    hand[[0, 1, 2, 13, 26, JOKER]] = 1
    best_melds(hand, 1, preset("cz"), _meld_points)
