"""Card values as arrays for the batched core, built from the readable rules API."""

from __future__ import annotations

import functools

import numpy as np

from zolik_env.rummy.actions import MELD_CELLS, RUN, SET, SET_JOKER_CELL
from zolik_env.rummy.cards import NUM_KINDS, NUM_SUITS
from zolik_env.rummy.melds import hand_card_value, position_value, set_card_value
from zolik_env.rummy.options import RuleSet


@functools.lru_cache(maxsize=64)
def hand_values(rules: RuleSet) -> np.ndarray:
    """int16 (K,): penalty of each card kind left in hand."""
    return np.array([hand_card_value(k, rules) for k in range(NUM_KINDS)], np.int16)


@functools.lru_cache(maxsize=64)
def run_cell_values(rules: RuleSet) -> np.ndarray:
    """int16 (C,): meld value of each run cell (positions 1..14)."""
    return np.array([position_value(c + 1, rules) for c in range(MELD_CELLS)], np.int16)


@functools.lru_cache(maxsize=64)
def set_card_values(rules: RuleSet) -> np.ndarray:
    """int16 (13,): meld value of one card of a set, per rank."""
    return np.array([set_card_value(r, rules) for r in range(13)], np.int16)


def cell_values(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray,
                cells: np.ndarray) -> np.ndarray:
    """int16 (..., M, C): the meld value of every occupied cell (a joker counts as the card
    it stands for); 0 for empty cells."""
    set_cell = np.zeros(MELD_CELLS, bool)
    set_cell[: NUM_SUITS] = True
    set_cell[SET_JOKER_CELL] = True
    run_value = np.where(meld_kind[..., None] == RUN, run_cell_values(rules), 0)
    set_value = np.where((meld_kind == SET)[..., None] & set_cell,
                         set_card_values(rules)[np.clip(meld_key, 0, 12)][..., None], 0)
    return np.where(cells != 0, run_value + set_value, 0).astype(np.int16)
