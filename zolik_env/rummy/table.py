"""Moves on the table: laying melds, lay-offs, joker swaps and the opening requirement.

Functions edit a dict of mutable state arrays in place, on the given rows only.
"""

from __future__ import annotations

import numpy as np

from zolik_env.arrays import BoolArray
from zolik_env.rummy.actions import (
    JOKER_CELL,
    MELD_CELLS,
    MELD_PATTERN_CELLS,
    MELD_PATTERN_COUNTS,
    MELD_PATTERN_KEY,
    MELD_PATTERN_KIND,
    NATURAL,
    RUN,
    SET,
    SET_JOKER_CELL,
)
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.fits import frees_set_joker
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_cards
from zolik_env.rummy.state import peek
from zolik_env.rummy.values import cell_values

Arrays = dict[str, np.ndarray]


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


def note_laid(d: Arrays, rows: np.ndarray, counts: np.ndarray) -> None:
    """The current seat puts the cards ``counts`` (R, K) from hand on the table.

    Bookkeeping: a laid copy counts as a taken one (copies are interchangeable), it
    fulfils cz/sk's must-use and public knowledge of taken cards, and a laid joker pays
    back a freed one.
    """
    cur = peek(d, "current")[rows]
    d["hands"][rows, cur] -= counts
    d["table_counts"][rows] += counts
    d["known_taken"][rows, cur] = np.maximum(d["known_taken"][rows, cur] - counts, 0)
    # (the rest is skipped, when no row could need it, for speed at small batches)
    if peek(d, "took_pile")[rows].any():  # only then was anything taken this turn
        d["taken_unlaid"][rows] = np.maximum(d["taken_unlaid"][rows] - counts, 0)
        must = d["must_use"][rows]
        used = (must >= 0) & (counts[np.arange(len(rows)), np.maximum(must, 0)] > 0)
        d["must_use"][rows] = np.where(used, -1, must)
    if counts[:, JOKER].any():
        d["freed_jokers"][rows] = np.maximum(d["freed_jokers"][rows] - counts[:, JOKER], 0)
    d["laid"][rows] = True


def one_card(cards: np.ndarray) -> np.ndarray:
    """int8 (R, K) count vectors of one card each."""
    counts = np.zeros((len(cards), NUM_KINDS), np.int8)
    counts[np.arange(len(cards)), cards] = 1
    return counts


def lay_meld(rules: RuleSet, d: Arrays, rows: np.ndarray, pattern: np.ndarray) -> None:
    """Lay meld pattern ``pattern`` (R,) from hand into the next free slot."""
    slot = d["num_melds"][rows].astype(np.int64)
    cur = peek(d, "current")[rows]
    cells = MELD_PATTERN_CELLS[pattern]
    d["meld_kind"][rows, slot] = MELD_PATTERN_KIND[pattern]
    d["meld_key"][rows, slot] = MELD_PATTERN_KEY[pattern]
    d["cells"][rows, slot] = cells
    d["cell_owner"][rows, slot] = np.where(cells != 0, cur[:, None], -1)
    d["num_melds"][rows] = slot + 1
    note_laid(d, rows, MELD_PATTERN_COUNTS[pattern])
    update_opening(rules, d, rows)


def run_ends(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last occupied cell of each run, int (...,)."""
    occupied = cells != 0
    low = np.argmax(occupied, axis=-1)
    high = MELD_CELLS - 1 - np.argmax(occupied[..., ::-1], axis=-1)
    return low, high


def lay_off_natural(rules: RuleSet, d: Arrays, rows: np.ndarray, slot: np.ndarray,
                    card: np.ndarray, ace_high: np.ndarray | bool = False) -> None:
    """Put natural ``card`` on meld ``slot``: at a run's end it extends the run, in a set
    it fills its suit; on a run's joker it swaps it (the joker goes to hand, to be laid
    again this turn), and a set's last missing suit replaces the set's joker. An ace goes
    to the low end of a run unless ``ace_high``."""
    cur = peek(d, "current")[rows]
    kind = d["meld_kind"][rows, slot]
    run_cell = np.where(ace_high, MELD_CELLS - 1, card % NUM_RANKS)
    cell = np.where(kind == SET, card // NUM_RANKS, run_cell)
    meld_cells = d["cells"][rows, slot]
    set_swap = frees_set_joker(kind == SET, meld_cells != 0, meld_cells == JOKER_CELL)
    swap_cell = np.where(set_swap, SET_JOKER_CELL, cell)
    swapped = d["cells"][rows, slot, swap_cell] == JOKER_CELL
    d["cells"][rows, slot, swap_cell] = np.where(swapped, 0, d["cells"][rows, slot, swap_cell])
    d["cell_owner"][rows, slot, swap_cell] = np.where(swapped, -1,
                                                      d["cell_owner"][rows, slot, swap_cell])
    d["cells"][rows, slot, cell] = NATURAL
    d["cell_owner"][rows, slot, cell] = cur
    d["hands"][rows, cur, JOKER] += swapped.astype(np.int8)
    d["table_counts"][rows, JOKER] -= swapped.astype(np.int8)
    d["freed_jokers"][rows] += swapped.astype(np.int8)
    note_laid(d, rows, one_card(card))
    update_opening(rules, d, rows)


def lay_off_joker(rules: RuleSet, d: Arrays, rows: np.ndarray, slot: np.ndarray,
                  high: np.ndarray) -> None:
    """Put a joker at the low/high end of run ``slot``, or into set ``slot``."""
    cur = peek(d, "current")[rows]
    low_cell, high_cell = run_ends(d["cells"][rows, slot])
    is_run = d["meld_kind"][rows, slot] == RUN
    cell = np.where(is_run, np.where(high, high_cell + 1, low_cell - 1), SET_JOKER_CELL)
    d["cells"][rows, slot, cell] = JOKER_CELL
    d["cell_owner"][rows, slot, cell] = cur
    note_laid(d, rows, one_card(np.full(len(rows), JOKER)))
    update_opening(rules, d, rows)


def update_opening(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """Judge the opening of the current seat, if it had not opened before this turn, on its
    provisional melds as they stand now (docs/rules-spec.md §1.5): ``opened`` holds exactly while
    they meet the requirement, so a later move that spoils it (a joker on the only clean
    run) takes it back, and any order of moves reaching a table gives the same answer."""
    pending = ~peek(d, "opened_before")[rows]
    if not pending.any():
        return
    r = rows[pending]
    new = new_melds(d, r)
    used = new.shape[1]
    d["opened"][r, peek(d, "current")[r]] = meets_opening(
        rules, d["meld_kind"][r, :used], d["meld_key"][r, :used], d["cells"][r, :used], new)


def meets_opening(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray,
                  cells: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """bool (R,): the melds in the slots where ``counted`` (R, M) holds meet the opening
    requirement: a joker-free run where the preset needs one, and at least
    ``opening_points`` meld points. ``meld_kind``/``meld_key`` (R, M) and ``cells``
    (R, M, C) as in ``State``. The core judges every opening with this; it agrees with
    ``rules.check_opening`` on the same melds."""
    met: BoolArray = np.ones(len(counted), bool)
    if rules.opening_needs_clean_run:  # checked first: it is cheaper than the points
        met = (counted & (meld_kind == RUN) & ~(cells == JOKER_CELL).any(-1)).any(1)
        if not met.any():
            return met
    return met & (meld_points(rules, meld_kind, meld_key, cells, counted)
                  >= rules.opening_points)


def new_melds(d: Arrays, rows: np.ndarray | slice) -> np.ndarray:
    """bool (R, used): the slots laid this turn, over the slots in use in these rows."""
    num_melds = d["num_melds"][rows, None]
    slots = np.arange(num_melds.max(initial=0))
    return (slots >= d["snap_num_melds"][rows, None]) & (slots < num_melds)


def meld_points(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray, cells: np.ndarray,
                counted: np.ndarray) -> np.ndarray:
    """int (R,): the meld value of the slots where ``counted`` (R, M) holds."""
    points: np.ndarray = (cell_values(rules, meld_kind, meld_key, cells).sum(-1, dtype=np.int32)
                          * counted).sum(-1)
    return points


def opening_points(rules: RuleSet, d: Arrays, rows: np.ndarray | slice) -> np.ndarray:
    """int (R,) meld value of the melds laid this turn (for observations and tests)."""
    new = new_melds(d, rows)
    used = new.shape[1]
    return meld_points(rules, d["meld_kind"][rows, :used], d["meld_key"][rows, :used],
                       d["cells"][rows, :used], new)
