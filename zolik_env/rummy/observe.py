"""Observations of the batched core (imperfect information, one seat's view)."""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import JOKER_CELL, RUN, SET
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.state import State


def table_counts(state: State) -> np.ndarray:
    """int16 (B, K): cards on the table by kind (a joker counted as a joker)."""
    b = state.batch_size
    counts = np.zeros((b, NUM_KINDS), np.int16)
    cells = state.cells
    is_run = state.meld_kind == RUN
    suit = np.clip(state.meld_key, 0, NUM_SUITS - 1)
    for c in range(cells.shape[2]):
        rank = c % NUM_RANKS
        run_kind = suit * NUM_RANKS + rank
        natural = cells[..., c] == 1
        rows, slots = np.nonzero(natural & is_run)
        np.add.at(counts, (rows, run_kind[rows, slots]), 1)
        if c < NUM_SUITS:
            set_kind = c * NUM_RANKS + np.clip(state.meld_key, 0, NUM_RANKS - 1)
            rows, slots = np.nonzero(natural & (state.meld_kind == SET))
            np.add.at(counts, (rows, set_kind[rows, slots]), 1)
    counts[:, JOKER] = (cells == JOKER_CELL).sum((1, 2))
    return counts


def card_locations(state: State) -> np.ndarray:
    """int16 (B, 5, K): counts of each kind in the hands, stock, discard pile, bottom card
    and table, for the conservation invariant."""
    b = state.batch_size
    size = state.stock.shape[1]
    stock = np.zeros((b, NUM_KINDS + 1), np.int16)
    inside = np.arange(size)[None, :] < state.stock_len[:, None]
    np.add.at(stock, (np.nonzero(inside)[0], state.stock[inside]), 1)
    discard = np.zeros((b, NUM_KINDS + 1), np.int16)
    inside = np.arange(size)[None, :] < state.discard_len[:, None]
    np.add.at(discard, (np.nonzero(inside)[0], state.discard[inside]), 1)
    bottom = np.zeros((b, NUM_KINDS + 1), np.int16)
    has = state.bottom >= 0
    bottom[np.flatnonzero(has), state.bottom[has]] = 1
    hands = state.hands.sum(1, dtype=np.int16)
    return np.stack([hands, stock[:, :NUM_KINDS], discard[:, :NUM_KINDS],
                     bottom[:, :NUM_KINDS], table_counts(state)], axis=1)


