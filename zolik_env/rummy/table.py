"""Moves on the table: laying melds, lay-offs, joker swaps and the opening requirement.

The moves are compiled kernels on one deal ``b`` of ``s`` (a ``state.Fields``), called
by ``moves.apply``; what fits where is ``fits``'s. ``meets_opening`` and ``count_table``
answer the same questions for arrays from outside the moves (agents, tests).
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import JOKER_CELL, MAX_MELDS, MELD_CELLS, NATURAL, RUN, SET
from zolik_env.rummy.actions import SET_JOKER_CELL as SET_JOKER
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.fits import set_frees_joker
from zolik_env.rummy.jit import R_CLEAN_RUN, R_OPENING_POINTS, inline_kernel, kernel, params
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_cards
from zolik_env.rummy.state import Fields
from zolik_env.rummy.values import cell_value_table

HIGH_CELL = MELD_CELLS - 1
PATTERN_KIND = A.MELD_PATTERN_KIND
PATTERN_KEY = A.MELD_PATTERN_KEY
PATTERN_CELLS = A.MELD_PATTERN_CELLS
PATTERN_NATURALS = A.MELD_PATTERN_NATURALS
PATTERN_JOKERS = A.MELD_PATTERN_JOKERS


def _build_cell_kind_table() -> np.ndarray:
    """int64 (3, 13, C): the natural kind in cell c of a meld of slot kind and key."""
    lut = np.zeros((3, NUM_RANKS, MELD_CELLS), np.int64)
    for key in range(NUM_RANKS):
        for c in range(MELD_CELLS):
            lut[RUN, key, c] = min(key, NUM_SUITS - 1) * NUM_RANKS + c % NUM_RANKS
            lut[SET, key, c] = min(c, NUM_SUITS - 1) * NUM_RANKS + key
    return lut


CELL_KIND = _build_cell_kind_table()


def count_table(meld_kind: np.ndarray, meld_key: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """int8 (B, K): the cards on the table by kind, counted cell by cell (a joker counted as
    a joker). Moves keep ``table_counts`` up to date instead; this recount checks them."""
    b = len(cells)
    kinds = np.where(cells == JOKER_CELL, JOKER, CELL_KIND[meld_kind, meld_key])
    return count_cards(kinds.reshape(b, -1), cells.reshape(b, -1) != 0)


def meets_opening(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray,
                  cells: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """bool (R,): the melds in the slots where ``counted`` (R, M) holds meet the opening
    requirement: a joker-free run where the preset needs one, and at least
    ``opening_points`` meld points. ``meld_kind``/``meld_key`` (R, M) and ``cells``
    (R, M, C) as in ``State``. The core judges every opening with the same kernel
    (``meets_opening_kernel``); it agrees with ``rules.check_opening`` on the same melds."""
    out = np.zeros(len(counted), np.bool_)
    kinds, keys, cell_rows, counted_rows = _rows(meld_kind, meld_key, cells, counted)
    _meets_opening_rows(params(rules), cell_value_table(rules), kinds, keys, cell_rows,
                        counted_rows, out)
    return out


def _rows(meld_kind: np.ndarray, meld_key: np.ndarray, cells: np.ndarray,
          counted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The arrays as the kernels take them: int8 and bool, contiguous."""
    return (np.ascontiguousarray(meld_kind, np.int8), np.ascontiguousarray(meld_key, np.int8),
            np.ascontiguousarray(cells, np.int8), np.ascontiguousarray(counted, np.bool_))


@kernel
def _meets_opening_rows(p: np.ndarray, cell_value: np.ndarray, meld_kind: np.ndarray,
                        meld_key: np.ndarray, cells: np.ndarray, counted: np.ndarray,
                        out: np.ndarray) -> None:
    for r in range(len(out)):
        out[r] = meets_opening_kernel(p, cell_value, meld_kind[r], meld_key[r], cells[r],
                                      counted[r])


@kernel
def meets_opening_kernel(p: np.ndarray, cell_value: np.ndarray, meld_kind: np.ndarray,
                  meld_key: np.ndarray, cells: np.ndarray, counted: np.ndarray) -> bool:
    """The melds in the slots where ``counted`` (M,) holds meet the opening requirement:
    a joker-free run where the preset needs one, and at least ``opening_points`` meld
    points. It agrees with ``rules.check_opening`` on the same melds (a test checks it)."""
    if p[R_CLEAN_RUN]:
        clean = False
        for m in range(len(counted)):
            if counted[m] and meld_kind[m] == RUN and not (cells[m] == JOKER_CELL).any():
                clean = True
                break
        if not clean:
            return False
    return bool(melds_value(cell_value, meld_kind, meld_key, cells, counted)
                >= p[R_OPENING_POINTS])


@kernel
def melds_value(cell_value: np.ndarray, meld_kind: np.ndarray, meld_key: np.ndarray,
                cells: np.ndarray, counted: np.ndarray) -> int:
    """The meld value of the slots where ``counted`` (M,) holds (a joker counts as the card
    it stands for)."""
    points = 0
    for m in range(len(counted)):
        if counted[m]:
            for c in range(MELD_CELLS):
                if cells[m, c] != 0:
                    points += cell_value[meld_kind[m], meld_key[m], c]
    return points


@kernel
def new_melds(first: int, stop: int) -> np.ndarray:
    """bool (M,): the slots laid this turn, ``first`` (the count at the turn's start) to
    ``stop`` (the count now)."""
    new = np.zeros(MAX_MELDS, np.bool_)
    new[first:stop] = True
    return new


@inline_kernel
def update_opening(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int) -> None:
    """Judge the opening of the current seat, if it had not opened before this turn, on
    its provisional melds as they stand now (docs/rules-spec.md §1.5): ``opened`` holds
    exactly while they meet the requirement, so a later move that spoils it (a joker on
    the only clean run) takes it back, and any order of moves reaching a table gives the
    same answer."""
    if s.opened_before[b]:
        return
    s.opened[b, s.current[b]] = meets_opening_kernel(p, cell_value, s.meld_kind[b], s.meld_key[b],
                                              s.cells[b],
                                              new_melds(s.snap_num_melds[b], s.num_melds[b]))


@inline_kernel
def _lay_card(s: Fields, b: int, card: int) -> None:
    """The current seat puts ``card`` from hand on the table. A laid copy counts as a taken
    one (copies are interchangeable): it fulfils cz/sk's must-use and public knowledge of
    taken cards, and a laid joker pays back a freed one."""
    cur = s.current[b]
    s.hands[b, cur, card] -= 1
    s.table_counts[b, card] += 1
    s.known_taken[b, cur, card] = max(s.known_taken[b, cur, card] - 1, 0)
    s.taken_unlaid[b, card] = max(s.taken_unlaid[b, card] - 1, 0)
    if s.must_use[b] == card:
        s.must_use[b] = -1
    if card == JOKER:
        s.freed_jokers[b] = max(s.freed_jokers[b] - 1, 0)
    s.laid[b] = True


@inline_kernel
def lay_meld(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, pattern: int) -> None:
    """Lay meld pattern ``pattern`` from hand into the next free slot."""
    slot = s.num_melds[b]
    if slot >= MAX_MELDS:
        raise ValueError("no free meld slot")
    cur = s.current[b]
    s.meld_kind[b, slot] = PATTERN_KIND[pattern]
    s.meld_key[b, slot] = PATTERN_KEY[pattern]
    for c in range(MELD_CELLS):
        s.cells[b, slot, c] = PATTERN_CELLS[pattern, c]
        s.cell_owner[b, slot, c] = cur if PATTERN_CELLS[pattern, c] != 0 else -1
    s.num_melds[b] = slot + 1
    for card in PATTERN_NATURALS[pattern]:
        if card < NUM_KINDS:
            _lay_card(s, b, card)
    for _ in range(PATTERN_JOKERS[pattern]):
        _lay_card(s, b, JOKER)
    update_opening(p, cell_value, s, b)


@inline_kernel
def lay_off_natural(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, slot: int,
                    card: int, ace_high: bool) -> None:
    """Put natural ``card`` on meld ``slot``: at a run's end it extends the run, in a set
    it fills its suit; on a run's joker it swaps it (the joker goes to hand, to be laid
    again this turn), and a set's last missing suit replaces the set's joker. An ace goes
    to the low end of a run unless ``ace_high``."""
    cur = s.current[b]
    kind = s.meld_kind[b, slot]
    run_cell = HIGH_CELL if ace_high else card % NUM_RANKS
    cell = card // NUM_RANKS if kind == SET else run_cell
    swap_cell = SET_JOKER if set_frees_joker(kind, s.cells[b, slot]) else cell
    if s.cells[b, slot, swap_cell] == JOKER_CELL:
        s.cells[b, slot, swap_cell] = 0
        s.cell_owner[b, slot, swap_cell] = -1
        s.hands[b, cur, JOKER] += 1
        s.table_counts[b, JOKER] -= 1
        s.freed_jokers[b] += 1
    s.cells[b, slot, cell] = NATURAL
    s.cell_owner[b, slot, cell] = cur
    _lay_card(s, b, card)
    update_opening(p, cell_value, s, b)


@inline_kernel
def lay_off_joker(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, slot: int,
                  high: bool) -> None:
    """Put a joker at the low/high end of run ``slot``, or into set ``slot``."""
    cell = SET_JOKER
    if s.meld_kind[b, slot] == RUN:  # next to the run's last or first card
        cells = s.cells[b, slot]
        for c in range(MELD_CELLS):
            if cells[c] != 0:
                cell = c + 1 if high else c - 1
                if not high:
                    break
    s.cells[b, slot, cell] = JOKER_CELL
    s.cell_owner[b, slot, cell] = s.current[b]
    _lay_card(s, b, JOKER)
    update_opening(p, cell_value, s, b)
