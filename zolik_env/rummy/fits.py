"""What can go where on the table: which naturals and jokers fit which melds and cells.

The one home of the lay-off rules (docs/rules-spec.md §1.6, §1.7): a natural extends a
run at either end, fills a set's missing suit, or takes a joker's cell and frees the
joker (not before its seat has met the opening); a joker extends a run or joins a set,
within the preset's joker limits. The rules are written once, for one meld, as compiled
kernels (``zolik_env.rummy.jit``): the legal-action mask calls them inside its own
kernel, and the forms below call them too, so every caller gets the same answers.

Inside kernels, one meld (``cells`` int8 (C,)):

    natural_fits(meld_kind, meld_key, cells, swaps, hand, naturals, ace_high)
    joker_fits(params, meld_kind, cells, ends)
    set_frees_joker(meld_kind, cells)
    is_run_end_gap(cells, c)  # cell c of a run: empty, just outside one of its ends

Batched, over R deals and M meld slots (``meld_kind``/``meld_key`` (R, M), ``cells``
(R, M, C) as in ``State``), swaps allowed:

    naturals, ace_high, jokers = table_fits(rules, meld_kind, meld_key, cells)

One meld of one deal, as a plain ``(meld_kind, meld_key, cells)`` (the observation's
``meld_kind``, ``meld_key`` and ``meld_cells`` rows hold exactly these):

    natural_places(meld_kind, meld_key, cells, kind)  # -> (Place(cell, high, swap), ...)
    all_natural_places(meld_kind, meld_key, cells)    # -> the same for kinds 0..51
    joker_places(rules, meld_kind, meld_key, cells)   # -> (Place(...), ...), low end first
    lay_off_action(slot, kind, place)                 # -> the action id that makes it

Whether a seat may touch a meld at all (opened, or its own meld laid this turn) and what
it holds are the mask's business, not this module's. Imports only numpy, numba and
siblings.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import JOKER_CELL, MELD_CELLS, RUN, SET, SET_JOKER_CELL
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import (
    R_FEWER_JOKERS,
    R_JOKERS_ADJACENT,
    R_MAX_JOKERS_IN_SET,
    kernel,
    params,
)
from zolik_env.rummy.options import RuleSet, preset

HIGH_CELL = A.MELD_CELLS - 1  # a run's last cell: position 14, the high ace


@kernel
def set_frees_joker(meld_kind: int, cells: np.ndarray) -> bool:
    """A natural laid on this meld swaps its joker out: a set holding a joker and three
    naturals, so the natural is its fourth and last suit."""
    if meld_kind != SET or cells[SET_JOKER_CELL] != JOKER_CELL:
        return False
    naturals = 0
    for suit in range(NUM_SUITS):
        naturals += cells[suit] != 0
    return naturals == 3


@kernel
def is_run_end_gap(cells: np.ndarray, c: int) -> bool:
    """Cell ``c`` of a run is empty and next to a card: just outside one of its ends."""
    if cells[c] != 0:
        return False
    return (c > 0 and cells[c - 1] != 0) or (c < HIGH_CELL and cells[c + 1] != 0)


@kernel
def natural_fits(meld_kind: int, meld_key: int, cells: np.ndarray, swaps: bool,
                 hand: np.ndarray, naturals: np.ndarray, ace_high: np.ndarray) -> None:
    """Set ``naturals`` (52,) [k] where natural k, held (``hand[k] > 0``), fits this meld
    (an ace at a run's low end) and ``ace_high`` (4,) [s] where the ace of suit s fits at
    a run's high end; entries that do not fit are left as they are.

    A run takes its suit's card for the empty cell just outside either end, or for a
    joker's cell (a swap); a set takes its rank in an empty suit cell. Without ``swaps``
    (a seat that has not met the opening, docs/rules-spec.md §1.5) no natural takes a
    run joker's cell, and a set whose last free suit would free its joker takes nothing.
    """
    if meld_kind == RUN:
        base = meld_key * NUM_RANKS
        for rank in range(NUM_RANKS):
            swap = swaps and cells[rank] == JOKER_CELL
            if (swap or is_run_end_gap(cells, rank)) and hand[base + rank] > 0:
                naturals[base + rank] = True
        swap = swaps and cells[HIGH_CELL] == JOKER_CELL
        if (swap or is_run_end_gap(cells, HIGH_CELL)) and hand[base] > 0:
            ace_high[meld_key] = True
    elif meld_kind == SET:
        if not swaps and set_frees_joker(meld_kind, cells):
            return
        for suit in range(NUM_SUITS):
            if cells[suit] == 0 and hand[suit * NUM_RANKS + meld_key] > 0:
                naturals[suit * NUM_RANKS + meld_key] = True


@kernel
def joker_fits(p: np.ndarray, meld_kind: int, cells: np.ndarray, ends: np.ndarray) -> None:
    """Set ``ends`` (2,) [e] where a joker may go on this meld at a run's low (e = 0) or
    high (e = 1) end, or into a set (e = 0), within the preset's joker limits."""
    size = 0
    jokers = 0
    for c in range(MELD_CELLS):
        size += cells[c] != 0
        jokers += cells[c] == JOKER_CELL
    if p[R_FEWER_JOKERS] and not jokers + 1 < size - jokers:
        return
    if meld_kind == RUN:
        low = cells[0] == 0
        high = cells[HIGH_CELL] == 0
        if not p[R_JOKERS_ADJACENT]:  # an end card may not be a joker
            for c in range(MELD_CELLS):
                if cells[c] == JOKER_CELL:
                    low = low and c > 0 and cells[c - 1] != 0
                    high = high and c < HIGH_CELL and cells[c + 1] != 0
        ends[0] |= low
        ends[1] |= high
    elif meld_kind == SET and p[R_MAX_JOKERS_IN_SET] >= 1:
        ends[0] |= cells[SET_JOKER_CELL] == 0 and size < 4


@kernel
def _table_fits(p: np.ndarray, meld_kind: np.ndarray, meld_key: np.ndarray,
                cells: np.ndarray, naturals: np.ndarray, ace_high: np.ndarray,
                jokers: np.ndarray) -> None:
    hand = np.ones(NUM_KINDS, np.int8)
    for r in range(meld_kind.shape[0]):
        for m in range(meld_kind.shape[1]):
            natural_fits(meld_kind[r, m], meld_key[r, m], cells[r, m], True, hand,
                         naturals[r, m], ace_high[r, m])
            joker_fits(p, meld_kind[r, m], cells[r, m], jokers[r, m])


def table_fits(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray,
               cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For melds ``meld_kind``/``meld_key`` int (R, M) and ``cells`` int (R, M, C) as in
    ``State`` (empty slots take nothing): bool (R, M, 52) natural k fits meld m (swaps
    included, an ace at a run's low end), bool (R, M, 4) the ace of a suit fits at a run's
    high end, bool (R, M, 2) a joker fits at the low / high end (sets: 0)."""
    r, m = meld_kind.shape
    naturals = np.zeros((r, m, NUM_NATURALS), np.bool_)
    ace_high = np.zeros((r, m, NUM_SUITS), np.bool_)
    jokers = np.zeros((r, m, 2), np.bool_)
    _table_fits(params(rules), np.ascontiguousarray(meld_kind, np.int8),
                np.ascontiguousarray(meld_key, np.int8), np.ascontiguousarray(cells, np.int8),
                naturals, ace_high, jokers)
    return naturals, ace_high, jokers


class Place(NamedTuple):
    """Where a card goes on one meld.

    cell: the cell it takes (runs: position - 1; sets: its suit, or ``SET_JOKER_CELL``).
    high: at a run's high end (the ace-high lay-off, or a joker past the last card).
    swap: a joker leaves the meld for the hand (the natural takes a run joker's cell, or
        fills a set's last suit beside its joker).
    """

    cell: int
    high: bool
    swap: bool


_ANY_RULES = preset("cz")  # natural lay-offs do not depend on the rule set


def _one(rules: RuleSet, meld_kind: int, meld_key: int,
         cells: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What fits one meld, by the batched kernel: bool (52,) naturals, (4,) aces high,
    (2,) joker ends."""
    naturals, ace_high, jokers = table_fits(rules, np.full((1, 1), meld_kind, np.int8),
                                            np.full((1, 1), meld_key, np.int8),
                                            np.asarray(cells, np.int8).reshape(1, 1, -1))
    return naturals[0, 0], ace_high[0, 0], jokers[0, 0]


def all_natural_places(meld_kind: int, meld_key: int,
                       cells: Sequence[int]) -> tuple[tuple[Place, ...], ...]:
    """``natural_places`` of every natural kind 0..51 on one meld, indexed by kind."""
    return _natural_table(int(meld_kind), int(meld_key), _key(cells))


def _key(cells: Sequence[int] | np.ndarray) -> tuple[int, ...]:
    """``cells`` as a tuple of ints (the cache key)."""
    return tuple(cells.tolist() if isinstance(cells, np.ndarray) else cells)


_NOTHING: tuple[tuple[Place, ...], ...] = ((),) * NUM_NATURALS


@functools.lru_cache(maxsize=8192)
def _natural_table(meld_kind: int, meld_key: int,
                   cells: tuple[int, ...]) -> tuple[tuple[Place, ...], ...]:
    if meld_kind not in (RUN, SET):
        return _NOTHING
    fits, ace_high, _ = _one(_ANY_RULES, meld_kind, meld_key, cells)
    set_swap = bool(set_frees_joker(meld_kind, np.asarray(cells, np.int8)))
    out = []
    for kind in range(NUM_NATURALS):
        suit, rank = divmod(kind, NUM_RANKS)
        places = []
        if meld_kind == RUN and fits[kind]:
            places.append(Place(rank, False, cells[rank] == JOKER_CELL))
        elif meld_kind == SET and fits[kind]:
            places.append(Place(suit, False, set_swap))
        if rank == 0 and ace_high[suit]:
            places.append(Place(HIGH_CELL, True, cells[HIGH_CELL] == JOKER_CELL))
        out.append(tuple(places))
    return tuple(out)


def natural_places(meld_kind: int, meld_key: int, cells: Sequence[int],
                   kind: int) -> tuple[Place, ...]:
    """Where natural ``kind`` (0..51) may go on one meld: none, one, or for an ace on a
    run both ends (the low end first). ``meld_kind`` is ``RUN`` or ``SET`` (an empty slot
    takes nothing), ``meld_key`` its suit or rank, ``cells`` its C cells."""
    return all_natural_places(meld_kind, meld_key, cells)[kind]


@functools.lru_cache(maxsize=8192)
def _joker_places(rules: RuleSet, meld_kind: int, meld_key: int,
                  cells: tuple[int, ...]) -> tuple[Place, ...]:
    if meld_kind not in (RUN, SET):
        return ()
    _, _, ends = _one(rules, meld_kind, meld_key, cells)
    if meld_kind == SET:
        return (Place(SET_JOKER_CELL, False, False),) if ends[0] else ()
    used = np.flatnonzero(np.asarray(cells) != 0)
    return tuple(Place(cell, bool(high), False)
                 for high, cell in ((0, int(used[0]) - 1), (1, int(used[-1]) + 1)) if ends[high])


def joker_places(rules: RuleSet, meld_kind: int, meld_key: int,
                 cells: Sequence[int]) -> tuple[Place, ...]:
    """Where a joker may go on one meld: a run's low end, then its high end; a set's joker
    cell. Arguments as for ``natural_places``."""
    return _joker_places(rules, int(meld_kind), int(meld_key), _key(cells))


def lay_off_action(slot: int, kind: int, place: Place) -> int:
    """The action id putting ``kind`` (a natural or ``JOKER``) at ``place`` on meld ``slot``."""
    if kind == JOKER:
        return A.JOKER_BASE + slot * 2 + int(place.high)
    if place.high:
        return A.ACE_HIGH_BASE + slot * NUM_SUITS + kind // NUM_RANKS
    return A.LAYOFF_BASE + slot * NUM_NATURALS + kind
