"""``render_mode="rgb_array"`` of Pět kostek: the dice and every scorecard as a
``uint8 (H, W, 3)`` image.

A status line (seat to act, rerolls left), the five dice, then one scorecard per seat
(a column per table column, ``-`` for an open box) with its total; the seat to act is
labelled in yellow. Every fact drawn is public: the game's dice key and roll counter,
which fix the rolls to come, are not. The size depends only on the rules.

Imports only numpy and the core.
"""

from __future__ import annotations

import numpy as np

from zolik_env.dice.rules import NUM_BOXES, NUM_DICE, DiceRules
from zolik_env.dice.scorecard import totals
from zolik_env.dice.state import State
from zolik_env.envs import raster
from zolik_env.envs.raster import LINE

SCALE = 3  # image pixels per base pixel
DIE, DIE_PITCH, CELL, LABEL_W = 19, 24, 16, 20
BOX_LABELS = ("1", "2", "3", "4", "5", "6", "3K", "4K", "FH", "SS", "LS", "YZ", "CH")
# pip centres (row, column) on a 3x3 grid for faces 1..6
_PIPS = {1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
         4: ((0, 0), (0, 2), (2, 0), (2, 2)), 5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
         6: ((0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2))}


def _die(image: np.ndarray, y: int, x: int, face: int) -> None:
    raster.box(image, y, x, DIE, DIE, raster.WHITE, raster.GREY)
    for r, c in _PIPS[face]:
        raster.box(image, y + 3 + 5 * r + r, x + 3 + 5 * c + c, 3, 3, raster.BLACK)


def _group_width(rules: DiceRules) -> int:
    return rules.num_columns * CELL + 6


def dice_image(rules: DiceRules, state: State, b: int = 0) -> np.ndarray:
    """``uint8 (H, W, 3)`` image of game ``b``."""
    group = _group_width(rules)
    width = max(4 + 34 * 4, LABEL_W + rules.num_players * group + 4)
    height = 3 + LINE + DIE + 4 + 2 * LINE + (NUM_BOXES + 1) * LINE + 3
    image = raster.canvas(height, width)
    seat = int(state.current[b])
    status = "game over" if state.done[b] else (
        f"seat {seat} to play  rerolls left {int(state.rolls_left[b])}")
    raster.text(image, 3, 4, status)
    y = 3 + LINE
    for i in range(NUM_DICE):
        _die(image, y, 4 + DIE_PITCH * i, int(state.dice[b, i]))
    y += DIE + 4
    scores = totals(rules, state)[b]
    for k, label in enumerate((*BOX_LABELS, "TOT")):
        raster.text(image, y + 2 * LINE + k * LINE, 4, label, raster.LIGHT)
    for p in range(rules.num_players):
        x = LABEL_W + p * group
        acting = not state.done[b] and p == seat
        raster.text(image, y, x, f"seat {p}", raster.YELLOW if acting else raster.WHITE)
        boxes = state.boxes[b, p].reshape(rules.num_columns, NUM_BOXES)
        for c, factor in enumerate(rules.column_factors):
            raster.text(image, y + LINE, x + c * CELL, f"x{factor}", raster.LIGHT)
            for k in range(NUM_BOXES):
                value = int(boxes[c, k])
                raster.text(image, y + 2 * LINE + k * LINE, x + c * CELL,
                            "-" if value < 0 else str(value))
        raster.text(image, y + 2 * LINE + NUM_BOXES * LINE, x, str(int(scores[p])),
                    raster.YELLOW if acting else raster.WHITE)
    return raster.scale(image, SCALE)
