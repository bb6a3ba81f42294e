"""Every meld a hand could lay, as one table per rule set, and the compiled choice of a
hand's candidates from it.

``hand_search.candidates`` builds a hand's runs and sets in Python, card by card. The
hand search runs several times per decision (the learner's features, the planner, the
snapshots' features), and building the candidates cost more than searching them. The
candidates of any hand are a subset of a fixed list: a run of one suit from a low to a
high position, joker-free or with the joker in one place; a set of 3-4 suits of one rank,
or 2-3 of them and the joker. ``MeldTable`` holds that list once, and ``select`` (compiled)
picks a hand's candidates from it:

- a candidate's naturals are all in the hand;
- a run's joker stands for a card the hand does not hold (``candidates`` never puts the
  joker where the hand has the card);
- it uses the joker only if the hand has one.

The table is sorted by the candidate's lowest natural, then by the order ``candidates``
lists them, so the chosen ones come out in the order ``hand_search.best_melds`` searches
them (ties between equal choices go the same way). ``tests/agents/test_meld_table.py``
holds the selection to ``candidates``.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from agents.search.hand_search_kernel import search_kernel
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import by_identity, kernel
from zolik_env.rummy.melds import (
    NUM_POSITIONS,
    hand_card_value,
    position_rank,
    position_value,
    set_card_value,
)
from zolik_env.rummy.options import RuleSet

MAX_NATURALS = NUM_RANKS  # the longest run: 13 positions


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


def run_card(suit: int, position: int) -> int:
    return suit * NUM_RANKS + position_rank(position)


@functools.lru_cache(maxsize=1 << 16)
def make_candidate(cards: tuple[int, ...], is_run: bool, rules: RuleSet,
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


@dataclass(frozen=True, eq=False)
class MeldTable:
    """Every ``Candidate`` of one rule set, sorted by its lowest natural, with its fields
    as arrays for the kernels (``T`` candidates)."""

    cands: tuple[Candidate, ...]
    group: np.ndarray  # int64 (NUM_KINDS + 1,): lowest natural k in rows group[k]:group[k+1]
    naturals: np.ndarray  # int64 (T, MAX_NATURALS): natural kinds ascending, -1 padded
    sizes: np.ndarray  # int64 (T,): naturals per candidate
    absent: np.ndarray  # int64 (T,): the kind a run's joker stands for (not held), or -1
    jokers: np.ndarray  # int64 (T,)
    points: np.ndarray  # float64 (T,): meld value
    clean: np.ndarray  # bool (T,): a joker-free run
    is_run: np.ndarray  # bool (T,)


def _run_entries(rules: RuleSet) -> list[tuple]:
    """(cards, is_run, low, absent) of every run, in ``candidates``' order: by suit, low
    position and length; the variants of one (suit, low, length) exclude each other."""
    out = []
    for suit in range(NUM_SUITS):
        for low in range(1, NUM_POSITIONS - 1):
            top = NUM_POSITIONS - 1 if low == 1 else NUM_POSITIONS  # A..K A: one ace twice
            for high in range(low + 2, top + 1):
                kinds = [run_card(suit, p) for p in range(low, high + 1)]
                out.append((tuple(kinds), True, low, -1))
                for i, kind in enumerate(kinds):
                    out.append(((*kinds[:i], JOKER, *kinds[i + 1:]), True, low, kind))
    return out


def _set_entries() -> list[tuple]:
    """(cards, is_run, low, absent) of every set, in ``candidates``' order."""
    out = []
    for rank in range(NUM_RANKS):
        for size in (3, 4):
            for chosen in itertools.combinations(range(NUM_SUITS), size):
                out.append((tuple(s * NUM_RANKS + rank for s in chosen), False, 0, -1))
            for chosen in itertools.combinations(range(NUM_SUITS), size - 1):
                cards = (*(s * NUM_RANKS + rank for s in chosen), JOKER)
                out.append((cards, False, 0, -1))
    return out


@by_identity
def meld_table(rules: RuleSet) -> MeldTable:
    """The ``MeldTable`` of ``rules`` (cached by the rule set's identity: hashing a
    ``RuleSet`` would cost more than the search it prepares)."""
    entries = _run_entries(rules) + _set_entries()
    cands = [make_candidate(cards, is_run, rules, low) for cards, is_run, low, _ in entries]
    order = sorted(range(len(cands)), key=lambda i: (cands[i].naturals[0], i))
    cands = [cands[i] for i in order]
    absent = np.array([entries[i][3] for i in order], np.int64)
    naturals = np.full((len(cands), MAX_NATURALS), -1, np.int64)
    for row, cand in enumerate(cands):
        naturals[row, :len(cand.naturals)] = cand.naturals
    lows = np.array([c.naturals[0] for c in cands], np.int64)
    group = np.searchsorted(lows, np.arange(NUM_KINDS + 1)).astype(np.int64)
    return MeldTable(tuple(cands), group, naturals,
                     np.array([len(c.naturals) for c in cands], np.int64), absent,
                     np.array([c.jokers for c in cands], np.int64),
                     np.array([c.points for c in cands], np.float64),
                     np.array([c.clean_run for c in cands], np.bool_),
                     np.array([c.is_run for c in cands], np.bool_))


@kernel
def select(counts: np.ndarray, jokers: int, group: np.ndarray, naturals: np.ndarray,
           sizes: np.ndarray, absent: np.ndarray, cand_jokers: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidates of the hand ``counts`` (natural kinds; ``jokers`` apart), as
    ``hand_search_kernel.search_kernel`` takes them: (table rows, ``left`` the counts by
    position with the jokers last, ``start`` the rows per lowest position, ``uses`` the
    positions of each candidate's naturals). A position is a natural kind's index among
    the kinds held."""
    last = len(group) - 2  # the joker's kind: naturals are below it
    position = np.full(last, -1, np.int64)
    held = 0
    for kind in range(last):
        if counts[kind] > 0:
            position[kind] = held
            held += 1
    limit = 1 if jokers > 0 else 0
    rows = np.empty(group[last], np.int64)
    start = np.zeros(held + 1, np.int64)
    left = np.empty(held + 1, np.int64)
    n = 0
    for kind in range(last):
        if position[kind] < 0:
            continue
        start[position[kind]] = n
        left[position[kind]] = counts[kind]
        for row in range(group[kind], group[kind + 1]):
            if cand_jokers[row] > limit or (absent[row] >= 0 and counts[absent[row]] > 0):
                continue
            holds = True
            for j in range(1, sizes[row]):  # naturals[row, 0] is ``kind``, held
                if counts[naturals[row, j]] == 0:
                    holds = False
                    break
            if holds:
                rows[n] = row
                n += 1
    start[held] = n
    left[held] = jokers
    uses = np.full((n, naturals.shape[1]), -1, np.int64)
    for i in range(n):
        for j in range(sizes[rows[i]]):
            uses[i, j] = position[naturals[rows[i], j]]
    return rows[:n].copy(), left, start, uses


@kernel
def search_hand(counts: np.ndarray, jokers: int, dead: np.ndarray, values: np.ndarray,
                group: np.ndarray, naturals: np.ndarray, sizes: np.ndarray,
                absent: np.ndarray, cand_jokers: np.ndarray, clean: np.ndarray
                ) -> tuple[float, np.ndarray, float, np.ndarray]:
    """``hand_search.best_melds`` of the hand ``counts`` with the meld values ``values``
    (per table row) and ``dead`` (per kind), compiled end to end: (value, its table rows,
    clean value, its table rows)."""
    rows, left, start, uses = select(counts, jokers, group, naturals, sizes, absent,
                                     cand_jokers)
    held_dead = np.empty(len(left) - 1, np.float64)
    i = 0
    for kind in range(len(group) - 2):
        if counts[kind] > 0:
            held_dead[i] = dead[kind]
            i += 1
    value, best, clean_value, clean_best = search_kernel(
        left, start, uses, sizes[rows], cand_jokers[rows], values[rows], clean[rows],
        held_dead)
    return value, rows[best], clean_value, rows[clean_best]


def search_args(table: MeldTable) -> tuple[np.ndarray, ...]:
    """The table's arrays in the order ``search_hand`` takes them after ``values``."""
    return (table.group, table.naturals, table.sizes, table.absent, table.jokers,
            table.clean)


__all__ = [
    "MAX_NATURALS",
    "Candidate",
    "MeldTable",
    "make_candidate",
    "meld_table",
    "run_card",
    "search_args",
    "search_hand",
    "select",
]
