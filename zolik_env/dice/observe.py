"""Observation encoder of Pět kostek: one flat float32 vector with named slices.

=================  ===========  ====================================================
slice              shape        meaning (for the observing seat)
=================  ===========  ====================================================
``dice``           (5, 6)       one-hot faces of the five dice, sorted ascending
``rolls_left``     (R,)         one-hot rerolls left this turn (R = num_rolls)
``open``           (NB,)        1 where the seat's box is still open
``values``         (NB,)        raw value / 50 of each box the seat may fill now
                                (0 if illegal, or if it is not the seat's turn)
``upper``          (C,)         Ones..Sixes total of each column / 63, capped at 1
``yahtzee_50``     (C,)         1 where the column's Yahtzee box holds 50
``bonus_now``      (1,)         1 if filling a box now earns the +100 Yahtzee bonus
``scores``         (P,)         totals / 500, starting with the seat, then the next seats
=================  ===========  ====================================================

The encoding is exact: ``decode_observation`` recovers the scorecard state the solver
needs. This module imports only numpy and stdlib.
"""

from __future__ import annotations

import numpy as np

from zolik_env.dice.rules import (
    NUM_BOXES,
    NUM_DICE,
    NUM_FACES,
    NUM_UPPER,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE,
    YAHTZEE_SCORE,
    DiceRules,
)
from zolik_env.dice.scorecard import totals, turn_context
from zolik_env.dice.state import State

SCORE_SCALE = 500.0


def obs_layout(rules: DiceRules) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Names and shapes of the observation slices, in order."""
    nb, c = rules.num_boxes, rules.num_columns
    return (
        ("dice", (NUM_DICE, NUM_FACES)),
        ("rolls_left", (rules.num_rolls,)),
        ("open", (nb,)),
        ("values", (nb,)),
        ("upper", (c,)),
        ("yahtzee_50", (c,)),
        ("bonus_now", (1,)),
        ("scores", (rules.num_players,)),
    )


def obs_size(rules: DiceRules) -> int:
    return sum(int(np.prod(shape)) for _, shape in obs_layout(rules))


def observe(rules: DiceRules, state: State, seat: int | np.ndarray) -> np.ndarray:
    """Observations ``(B, OBS) float32`` of ``seat`` (an int or ``(B,)`` seats)."""
    b = state.batch_size
    rows = np.arange(b)
    seat = np.broadcast_to(np.asarray(seat, np.int64), (b,))
    to_act = (seat == state.current) & ~state.done
    ctx = turn_context(rules, state)
    values = np.where(ctx.legal, ctx.values, 0).reshape(b, -1) / YAHTZEE_SCORE
    boxes = state.boxes[rows, seat].reshape(b, rules.num_columns, NUM_BOXES)
    upper = np.where(boxes[:, :, :NUM_UPPER] >= 0, boxes[:, :, :NUM_UPPER], 0).sum(axis=2)
    order = (seat[:, None] + np.arange(rules.num_players)) % rules.num_players
    parts = [
        (state.dice[:, :, None] == np.arange(1, NUM_FACES + 1)).reshape(b, -1),
        state.rolls_left[:, None] == np.arange(rules.num_rolls),
        boxes.reshape(b, -1) < 0,
        values * to_act[:, None],
        np.minimum(upper, UPPER_BONUS_THRESHOLD) / UPPER_BONUS_THRESHOLD,
        boxes[:, :, YAHTZEE] == YAHTZEE_SCORE,
        (ctx.yahtzee_bonus & to_act)[:, None],
        totals(rules, state)[rows[:, None], order] / SCORE_SCALE,
    ]
    return np.concatenate([np.asarray(p, np.float32) for p in parts], axis=1)


def obs_slices(rules: DiceRules) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """``{name: (start, stop, shape)}`` of every slice of the observation, in order."""
    out, start = {}, 0
    for name, shape in obs_layout(rules):
        size = int(np.prod(shape))
        out[name] = (start, start + size, shape)
        start += size
    return out


def split_observation(rules: DiceRules, obs: np.ndarray) -> dict[str, np.ndarray]:
    """Named views ``{name: (B, *shape)}`` of observations ``(B, OBS)``."""
    return {name: obs[:, start:stop].reshape(obs.shape[0], *shape)
            for name, (start, stop, shape) in obs_slices(rules).items()}


def decode_observation(rules: DiceRules, obs: np.ndarray) -> dict[str, np.ndarray]:
    """The exact game facts in observations ``(B, OBS)`` of the seat to act.

    Returns:
        ``dice (B, 5) int8`` faces, ``rolls_left (B,) int8``, ``filled_mask (B,) int64``
        (bit ``c * 13 + k`` set when that box is filled), ``upper (B, C) int64`` (capped at
        63) and ``yahtzee_50 (B, C) bool``.
    """
    parts = split_observation(rules, np.asarray(obs))
    filled = parts["open"] < 0.5
    bits = np.left_shift(1, np.arange(rules.num_boxes, dtype=np.int64))
    return {
        "dice": (parts["dice"].argmax(axis=2) + 1).astype(np.int8),
        "rolls_left": parts["rolls_left"].argmax(axis=1).astype(np.int8),
        "filled_mask": (filled * bits).sum(axis=1),
        "upper": np.rint(parts["upper"] * UPPER_BONUS_THRESHOLD).astype(np.int64),
        "yahtzee_50": parts["yahtzee_50"] > 0.5,
    }
