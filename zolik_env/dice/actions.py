"""Flat action table of Pět kostek.

=====================  =============================================================
action id              meaning
=====================  =============================================================
``0 .. 30``            reroll: action ``a`` rerolls the dice whose bits are set in
                       ``a + 1`` (bit ``i`` = die ``i`` of the sorted dice); legal while
                       ``rolls_left > 0``. "Reroll none" is not an action: stop by scoring.
``31 .. 31 + NB - 1``  score box ``c * 13 + k`` (column ``c``, box ``k`` = ONES..CHANCE).
=====================  =============================================================

``NB`` is 13 on the ``classic`` table (44 actions) and 39 on ``triple`` (70 actions).
This module imports only numpy and stdlib.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zolik_env.dice.rules import BOX_NAMES, NUM_BOXES, NUM_DICE, DiceRules

REROLL_BASE = 0
NUM_REROLLS: int = 2**NUM_DICE - 1
SCORE_BASE = REROLL_BASE + NUM_REROLLS


def num_actions(rules: DiceRules) -> int:
    """Size of the flat action space for ``rules``."""
    return SCORE_BASE + rules.num_boxes


def reroll_action(positions: Sequence[int]) -> int:
    """The action rerolling the sorted dice at ``positions`` (non-empty, each 0..4)."""
    bits = 0
    for i in positions:
        if not 0 <= i < NUM_DICE:
            raise ValueError(f"die position {i} out of range")
        bits |= 1 << i
    if bits == 0:
        raise ValueError("a reroll needs at least one die; score a box to stop")
    return REROLL_BASE + bits - 1


def score_action(box: int, column: int = 0) -> int:
    """The action scoring box ``box`` (0..12) of column ``column``."""
    return SCORE_BASE + column * NUM_BOXES + box


# (31, 5) bool: REROLL_MASKS[a, i] is True when reroll action a rerolls die i.
REROLL_MASKS = ((np.arange(1, NUM_REROLLS + 1)[:, None] >> np.arange(NUM_DICE)) & 1).astype(bool)


def action_to_string(rules: DiceRules, action: int) -> str:
    """Readable name, e.g. ``"reroll 0,3"`` or ``"score full_house"`` / ``"score ones x2"``."""
    if not 0 <= action < num_actions(rules):
        raise ValueError(f"action {action} out of range for {num_actions(rules)} actions")
    if action < SCORE_BASE:
        dice = np.flatnonzero(REROLL_MASKS[action - REROLL_BASE])
        return "reroll " + ",".join(str(i) for i in dice)
    column, box = divmod(action - SCORE_BASE, NUM_BOXES)
    suffix = f" x{rules.column_factors[column]}" if rules.num_columns > 1 else ""
    return f"score {BOX_NAMES[box]}{suffix}"
