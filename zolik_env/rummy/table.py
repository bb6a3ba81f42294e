"""The table seen from outside the moves: cards on it by kind, and the opening judged on
a set of melds (the moves themselves are in ``moves``; these call the same kernels)."""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import JOKER_CELL, MELD_CELLS, RUN, SET
from zolik_env.rummy.cards import JOKER, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import kernel, params
from zolik_env.rummy.moves import meets_opening as _meets_opening
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_cards
from zolik_env.rummy.values import cell_value_table


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
    (``moves.meets_opening``); it agrees with ``rules.check_opening`` on the same melds."""
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
        out[r] = _meets_opening(p, cell_value, meld_kind[r], meld_key[r], cells[r], counted[r])
