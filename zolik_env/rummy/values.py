"""Card values as arrays for the batched core, built from the readable rules API."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from zolik_env.rummy.actions import MELD_CELLS, RUN, SET, SET_JOKER_CELL, meld_pattern_valid
from zolik_env.rummy.cards import NUM_KINDS, NUM_SUITS
from zolik_env.rummy.jit import by_identity, params
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


@functools.lru_cache(maxsize=64)
def cell_value_table(rules: RuleSet) -> np.ndarray:
    """int16 (3, 13, C): the meld value of cell c of a slot of meld kind (empty, run, set)
    and key, were the cell occupied (a joker counts as the card it stands for)."""
    table = np.zeros((3, 13, MELD_CELLS), np.int16)
    table[RUN] = run_cell_values(rules)
    set_cells = [*range(NUM_SUITS), SET_JOKER_CELL]
    table[SET][:, set_cells] = set_card_values(rules)[:, None]
    return table


def cell_values(rules: RuleSet, meld_kind: np.ndarray, meld_key: np.ndarray,
                cells: np.ndarray) -> np.ndarray:
    """int16 (..., M, C): the meld value of every occupied cell (a joker counts as the card
    it stands for); 0 for empty cells."""
    values: np.ndarray = cell_value_table(rules)[meld_kind, meld_key] * (cells != 0)
    return values


class KernelTables(NamedTuple):
    """What the compiled kernels read of a rule set."""

    params: np.ndarray  # int64 (NUM_PARAMS,) the options (``jit.params``)
    hand_value: np.ndarray  # int16 (K,) ``hand_values``
    cell_value: np.ndarray  # int16 (3, 13, C) ``cell_value_table``
    pattern_valid: np.ndarray  # bool (NUM_MELD_PATTERNS,) ``actions.meld_pattern_valid``


@by_identity
def kernel_tables(rules: RuleSet) -> KernelTables:
    """The kernels' tables of ``rules`` (memoised by identity: a step looks them up)."""
    return KernelTables(params(rules), hand_values(rules), cell_value_table(rules),
                        meld_pattern_valid(rules))
