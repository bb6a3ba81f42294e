"""What can go where on the table: which naturals and jokers fit which melds and cells.

The one home of the lay-off rules (docs/rules-spec.md §1.6, §1.7): a natural extends a
run at either end, fills a set's missing suit, or takes a joker's cell and frees the
joker (not before its seat has met the opening); a joker extends a run or joins a set,
within the preset's joker limits. The legal-action mask reads the batched form;
agents and search read the one-meld form; both give the same answers (a test checks it).

Batched, over R deals and M meld slots (``meld_kind``/``meld_key`` (R, M), ``cells``
(R, M, C) as in ``State``):

    occupied, joker, before, after = edges(cells)
    seen = without_swaps(opened, is_set, occupied, joker)  # no swaps before the opening
    fits, ace_high = natural_fits(is_run, key, *seen, before, after)
    jokers = joker_fits(rules, is_run, is_set, occupied, joker, before, after)

One meld of one deal, as a plain ``(meld_kind, meld_key, cells)`` (the observation's
``meld_kind``, ``meld_key`` and ``meld_cells`` rows hold exactly these):

    natural_places(meld_kind, meld_key, cells, kind)  # -> (Place(cell, high, swap), ...)
    all_natural_places(meld_kind, meld_key, cells)    # -> the same for kinds 0..51
    joker_places(rules, meld_kind, meld_key, cells)   # -> (Place(...), ...), low end first
    lay_off_action(slot, kind, place)                 # -> the action id that makes it

Whether a seat may touch a meld at all (opened, or its own meld laid this turn) and what
it holds are the mask's business, not this module's. Imports only numpy and siblings.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from zolik_env.arrays import BoolArray
from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import JOKER_CELL, RUN, SET, SET_JOKER_CELL
from zolik_env.rummy.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.options import RuleSet

_SUITS = np.arange(NUM_SUITS)
_RANKS = np.arange(NUM_RANKS)
HIGH_CELL = A.MELD_CELLS - 1  # a run's last cell: position 14, the high ace


def edges(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For cells int (R, M, C): bool (R, M, C) occupied, joker, and whether the cell before /
    after each cell is occupied (a run's cells are contiguous, so these find its two ends)."""
    occupied = cells != 0
    before = np.zeros(occupied.shape, bool)
    before[..., 1:] = occupied[..., :-1]
    after = np.zeros(occupied.shape, bool)
    after[..., :-1] = occupied[..., 1:]
    return occupied, cells == JOKER_CELL, before, after


def natural_fits(is_run: np.ndarray, key: np.ndarray, occupied: np.ndarray,
                 joker: np.ndarray, before: np.ndarray,
                 after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bool (R, M, 52) natural kind k fits meld m (an ace at a run's low end), and
    bool (R, M, 4) the ace of a suit fits at a run's high end.

    A run takes its suit's card for the empty cell just outside either end, or for a
    joker's cell (a swap); a set takes its rank in an empty suit cell."""
    run_cell = ((before | after) & ~occupied) | joker
    suit_is_key = key[..., None] == _SUITS
    # (R, M, suit, rank) by broadcasting, then flattened to kind = suit * 13 + rank
    run_fits = suit_is_key[..., None] & run_cell[..., None, :NUM_RANKS]
    set_fits = ~occupied[..., :NUM_SUITS, None] & (key[..., None] == _RANKS)[..., None, :]
    fits = np.where(is_run[..., None, None], run_fits, set_fits)
    ace_high = suit_is_key & (is_run & run_cell[..., HIGH_CELL])[..., None]
    return fits.reshape(*is_run.shape, NUM_NATURALS), ace_high


def joker_fits(rules: RuleSet, is_run: np.ndarray, is_set: np.ndarray, occupied: np.ndarray,
               joker: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """bool (R, M, 2): a joker may go on meld m at the low (0) / high (1) end (sets: 0)."""
    fits = np.zeros((*is_run.shape, 2), bool)
    size = occupied.sum(-1)
    if rules.jokers_fewer_than_naturals:
        jokers = joker.sum(-1)
        fewer = jokers + 1 < size - jokers
        is_run = is_run & fewer
        is_set = is_set & fewer
    # no room past a run's end when its first cell 0 / last cell C-1 is occupied
    fits[..., 0] = is_run & ~occupied[..., 0]
    fits[..., 1] = is_run & ~occupied[..., HIGH_CELL]
    if not rules.jokers_adjacent_in_run and joker.any():  # an end card may not be a joker
        fits[..., 0] &= ~(joker & ~before).any(-1)
        fits[..., 1] &= ~(joker & ~after).any(-1)
    if rules.max_jokers_in_set >= 1 and is_set.any():
        fits[..., 0] |= is_set & ~occupied[..., SET_JOKER_CELL] & (size < 4)
    return fits


def frees_set_joker(is_set: np.ndarray, occupied: np.ndarray, joker: np.ndarray) -> np.ndarray:
    """bool (R, M): a natural laid on set m swaps its joker out (the set holds a joker and
    three naturals, so the natural is its fourth and last suit)."""
    frees: BoolArray = (is_set & joker[..., SET_JOKER_CELL]
                        & (occupied[..., :NUM_SUITS].sum(-1) == 3))
    return frees


def without_swaps(opened: np.ndarray, is_set: np.ndarray, occupied: np.ndarray,
                  joker: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``occupied`` and ``joker`` cells (R, M, C) to give ``natural_fits`` so that the
    rows whose seat has not met the opening (``opened`` bool (R,) False) get no natural
    lay-off that swaps a joker out (docs/rules-spec.md §1.5: no swap before the requirement
    is met): for those rows a run's joker cell takes no natural, and a set whose last free
    suit would free its joker counts as full. In the one-meld form these are the places
    with ``swap`` set. Costs two elementwise passes, not a second ``natural_fits``."""
    closed = ~opened[:, None]
    full = frees_set_joker(is_set, occupied, joker) & closed
    occupied = occupied.copy()
    occupied[..., :NUM_SUITS] |= full[..., None]
    hidden: BoolArray = joker & ~closed[..., None]
    return occupied, hidden


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


def _one(meld_kind: int, meld_key: int, cells: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The batched inputs for one meld: is_run, is_set, key (1, 1), edges (1, 1, C)."""
    array = np.asarray(cells, np.int8).reshape(1, 1, -1)
    return (np.full((1, 1), meld_kind == RUN), np.full((1, 1), meld_kind == SET),
            np.full((1, 1), meld_key), *edges(array))


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
    is_run, is_set, key, occupied, joker, before, after = _one(meld_kind, meld_key, cells)
    fits, ace_high = natural_fits(is_run, key, occupied, joker, before, after)
    set_swap = bool(frees_set_joker(is_set, occupied, joker)[0, 0])
    out = []
    for kind in range(NUM_NATURALS):
        suit, rank = divmod(kind, NUM_RANKS)
        places = []
        if meld_kind == RUN and fits[0, 0, kind]:
            places.append(Place(rank, False, cells[rank] == JOKER_CELL))
        elif meld_kind == SET and fits[0, 0, kind]:
            places.append(Place(suit, False, set_swap))
        if rank == 0 and ace_high[0, 0, suit]:
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
    is_run, is_set, _, occupied, joker, before, after = _one(meld_kind, meld_key, cells)
    ends = joker_fits(rules, is_run, is_set, occupied, joker, before, after)[0, 0]
    if meld_kind == SET:
        return (Place(SET_JOKER_CELL, False, False),) if ends[0] else ()
    used = np.flatnonzero(occupied[0, 0])
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
