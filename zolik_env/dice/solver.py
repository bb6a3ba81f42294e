"""Exact solver for solitaire ``classic`` Pět kostek by dynamic programming.

A scorecard state between turns is ``(mask, upper, flag)``: ``mask`` (13 bits) the filled
boxes, ``upper`` the Ones..Sixes total capped at 63, ``flag`` whether the Yahtzee box
holds 50 (only tracked with the Yahtzee bonus). ``E[flag, mask, upper]`` is the expected
score still to come under optimal play; states are solved from the full card backwards,
all states with the same number of filled boxes at once, in chunks, as numpy arrays
``(rolls or keeps, states)``. Within a turn (docs/rules-spec.md §5.1):

    V3[r]  = best legal box for final roll r: value + bonuses + E[next state]
    K2[k]  = sum_r P(r | keep k) V3[r];   V2[r] = max over keeps k within r of K2[k]
    K1[k]  = sum_r P(r | keep k) V2[r];   V1[r] = max over keeps k within r of K1[k]
    E      = sum_r P(r) V1[r]

Tables are cached as ``.npy`` files in ``$ZOLIK_CACHE_DIR`` (default ``~/.cache/zolik``).
This module imports only numpy and stdlib.
"""

from __future__ import annotations

import functools
import os
import pathlib
from collections.abc import Callable

import numpy as np

from zolik_env.dice import combos
from zolik_env.dice.rules import (
    JOKER_VALUES,
    JOKERS,
    NUM_BOXES,
    NUM_UPPER,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE,
    YAHTZEE_BONUS,
    base_scores,
)

NUM_MASKS = 1 << NUM_BOXES
NUM_UPPER_STATES = UPPER_BONUS_THRESHOLD + 1  # 0..63, 63 meaning "63 or more"
FULL_MASK = NUM_MASKS - 1
_CACHE_VERSION = 1
_CHUNK = 2048
_ROLL_SCORES = base_scores(combos.ROLLS).astype(np.float64)  # (252, 13)
_YAHTZEE_ROWS = np.flatnonzero(combos.ROLLS.max(axis=1) == 5)  # (6,) ordered by face
_IS_YAHTZEE = combos.ROLLS.max(axis=1) == 5  # (252,)


def cache_dir() -> pathlib.Path:
    """Where tables are cached: ``$ZOLIK_CACHE_DIR`` or ``~/.cache/zolik``."""
    return pathlib.Path(os.environ.get("ZOLIK_CACHE_DIR", "~/.cache/zolik")).expanduser()


def _check(joker: str) -> None:
    if joker not in JOKERS:
        raise ValueError(f"joker must be one of {JOKERS}, got {joker!r}")


def reachable_states(bonus: bool, fixed_order: bool) -> np.ndarray:
    """Reachable scorecard states ``(S, 3) int64`` rows ``(mask, upper, flag)``."""
    upper_sets = [{0}]  # upper totals reachable for each 6-bit upper mask
    for m in range(1, 1 << NUM_UPPER):
        low = (m & -m).bit_length() - 1
        rest = upper_sets[m & ~(1 << low)]
        upper_sets.append({min(63, u + c * (low + 1)) for u in rest for c in range(6)})
    masks = np.arange(NUM_MASKS)
    if fixed_order:
        masks = (1 << np.arange(NUM_BOXES + 1)) - 1
    rows = []
    for mask in masks.tolist():
        flags = (0, 1) if bonus and mask >> YAHTZEE & 1 else (0,)
        rows += [(mask, u, f) for u in sorted(upper_sets[mask & 63]) for f in flags]
    return np.array(rows, np.int64)


def box_values(
    table: np.ndarray, states: np.ndarray, joker: str, bonus: bool, fixed_order: bool
) -> np.ndarray:
    """Value of filling each box with each final roll: ``(13, 252, S)``, -inf if illegal.

    The value is the box score plus upper and Yahtzee bonuses plus ``table`` at the next
    state. ``table`` is ``E`` flattened over ``(flag, mask, upper)``; ``states`` as above.
    """
    mask, upper, flag = states.T
    is_open = (mask[None, :] >> np.arange(NUM_BOXES)[:, None] & 1) == 0  # (13, S)
    if fixed_order:
        first = np.argmax(is_open, axis=0)
        is_open &= np.arange(NUM_BOXES)[:, None] == first[None, :]
    out = np.empty((NUM_BOXES, combos.NUM_ROLLS, states.shape[0]))
    for box in range(NUM_BOXES):
        nxt = ((flag * NUM_MASKS) + (mask | 1 << box)) * NUM_UPPER_STATES
        if box < NUM_UPPER:
            face = box + 1
            by_count = np.empty((6, states.shape[0]))
            for c in range(6):
                new_upper = np.minimum(UPPER_BONUS_THRESHOLD, upper + c * face)
                crossed = (upper < UPPER_BONUS_THRESHOLD) & (new_upper >= UPPER_BONUS_THRESHOLD)
                by_count[c] = c * face + UPPER_BONUS * crossed + table[nxt + new_upper]
            by_count[:, ~is_open[box]] = -np.inf
            out[box] = by_count[combos.ROLLS[:, box]]
        else:
            after = np.where(is_open[box], table[nxt + upper], -np.inf)
            out[box] = _ROLL_SCORES[:, box, None] + after[None, :]
            if box == YAHTZEE and bonus:  # a 50 there turns the flag on
                after50 = table[nxt + NUM_MASKS * NUM_UPPER_STATES * (1 - flag) + upper]
                after50 = np.where(is_open[box], after50, -np.inf)
                out[box, _YAHTZEE_ROWS] = _ROLL_SCORES[_YAHTZEE_ROWS, box, None] + after50
    if joker != "none":
        _apply_joker(out, mask, joker, fixed_order)
    if bonus:
        out[:, _YAHTZEE_ROWS] += YAHTZEE_BONUS * flag[None, None, :]
    return out


def _apply_joker(out: np.ndarray, mask: np.ndarray, joker: str, fixed_order: bool) -> None:
    """Joker values and (forced) placement on the six Yahtzee rolls, in place."""
    is_joker = (mask >> YAHTZEE & 1) == 1  # (S,) the Yahtzee box is filled
    lower_open = ((mask >> NUM_UPPER) & ((1 << (NUM_BOXES - NUM_UPPER)) - 1)) != (
        (1 << (NUM_BOXES - NUM_UPPER)) - 1
    )
    for face, row in enumerate(_YAHTZEE_ROWS):
        match_filled = (mask >> face & 1) == 1
        full_values = is_joker & match_filled
        for box, value in JOKER_VALUES.items():
            raised = out[box, row] + (value - _ROLL_SCORES[row, box])
            out[box, row] = np.where(full_values, raised, out[box, row])
        if joker == "forced" and not fixed_order:
            only_match = is_joker & ~match_filled
            only_lower = full_values & lower_open
            keep = np.ones_like(out[:, row], dtype=bool)  # (13, S)
            keep[:, only_match] = False
            keep[face, only_match] = True
            keep[:NUM_UPPER, only_lower] = False
            out[:, row] = np.where(keep, out[:, row], -np.inf)


def turn_value(roll_values: np.ndarray) -> np.ndarray:
    """Expected value ``(S,)`` of a turn whose final rolls are worth ``roll_values``."""
    v2 = combos.best_subkeep(combos.keep_values(roll_values))[combos.ROLL_OFFSET :]
    v1 = combos.best_subkeep(combos.keep_values(v2))[combos.ROLL_OFFSET :]
    value: np.ndarray = combos.FIRST_ROLL @ v1
    return value


Progress = Callable[[int, int], None]  # (states solved so far, states to solve)


def solve(joker: str = "none", bonus: bool = True, fixed_order: bool = False,
          progress: Progress | None = None) -> np.ndarray:
    """Compute ``E`` ``(2, 8192, 64) float64`` (NaN on unreachable states); no caching.
    ``progress`` is called after every chunk of states."""
    _check(joker)
    table = np.full(2 * NUM_MASKS * NUM_UPPER_STATES, np.nan)
    states = reachable_states(bonus, fixed_order)
    filled = np.array([bin(m).count("1") for m in range(NUM_MASKS)])[states[:, 0]]
    index = (states[:, 2] * NUM_MASKS + states[:, 0]) * NUM_UPPER_STATES + states[:, 1]
    table[index[filled == NUM_BOXES]] = 0.0
    done, total = 0, int((filled < NUM_BOXES).sum())
    for n in range(NUM_BOXES - 1, -1, -1):
        layer = np.flatnonzero(filled == n)
        for start in range(0, layer.size, _CHUNK):
            rows = layer[start : start + _CHUNK]
            values = box_values(table, states[rows], joker, bonus, fixed_order).max(axis=0)
            table[index[rows]] = turn_value(values)
            done += rows.size
            if progress is not None:
                progress(done, total)
    return table.reshape(2, NUM_MASKS, NUM_UPPER_STATES)


def table_path(joker: str = "none", bonus: bool = True,
               fixed_order: bool = False) -> pathlib.Path:
    """Where the disk cache keeps one variant's table."""
    _check(joker)
    name = f"dice_classic_{joker}_bonus{int(bonus)}_fixed{int(fixed_order)}_v{_CACHE_VERSION}.npy"
    return cache_dir() / name


def ensure_table(joker: str = "none", bonus: bool = True, fixed_order: bool = False,
                 progress: Progress | None = None) -> pathlib.Path:
    """Solve one variant into the disk cache unless it is there (atomically); its path.
    ``progress``: see ``solve`` (not called when the table is cached)."""
    path = table_path(joker, bonus, fixed_order)
    if not path.exists():
        table = solve(joker, bonus, fixed_order, progress)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, table)
        tmp.replace(path)
    return path


@functools.lru_cache(maxsize=16)
def value_table(joker: str = "none", bonus: bool = True, fixed_order: bool = False) -> np.ndarray:
    """``E`` for one variant, from memory, the disk cache, or a fresh ``solve``."""
    table: np.ndarray = np.load(ensure_table(joker, bonus, fixed_order))
    table.flags.writeable = False
    return table


def expected_score(joker: str = "none", bonus: bool = True, fixed_order: bool = False) -> float:
    """Expected final score of optimal solitaire ``classic`` play from the empty card."""
    return float(value_table(joker, bonus, fixed_order)[0, 0, 0])
