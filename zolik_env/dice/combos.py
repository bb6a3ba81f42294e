"""Dice combinatorics for the solver: rolls, keeps and reroll probabilities.

A *roll* is a multiset of five dice (252 of them); a *keep* is a multiset of 0..5 dice
held before a reroll (462, the rolls are the keeps of size 5). Both are face-count
vectors ``(6,)``. Keeps are ordered by size, so ``KEEPS[ROLL_OFFSET:]`` are the rolls in
``ROLLS`` order. This module imports only numpy and stdlib.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from zolik_env.dice.rules import NUM_DICE, NUM_FACES


def _multisets(size: int) -> list[tuple[int, ...]]:
    """Face-count vectors of all multisets of ``size`` dice, lexicographic on sorted dice."""
    out = []
    for dice in itertools.combinations_with_replacement(range(NUM_FACES), size):
        out.append(tuple(int(np.sum(np.array(dice) == f)) for f in range(NUM_FACES)))
    return out


KEEPS = np.array([c for m in range(NUM_DICE + 1) for c in _multisets(m)], np.int8)  # (462, 6)
NUM_KEEPS = KEEPS.shape[0]
ROLL_OFFSET = NUM_KEEPS - math.comb(NUM_DICE + NUM_FACES - 1, NUM_DICE)  # 210
ROLLS = KEEPS[ROLL_OFFSET:]  # (252, 6)
NUM_ROLLS = ROLLS.shape[0]
# A face-count vector's code is ``counts @ CODE_POWERS``; KEEP_OF_CODE maps it to the keep id
# (-1 for codes that are no keep), for array lookups where ``keep_index`` would loop.
CODE_POWERS = NUM_FACES ** np.arange(NUM_FACES)
KEEP_OF_CODE = np.full(NUM_FACES**NUM_FACES, -1, np.int64)
KEEP_OF_CODE[KEEPS.astype(np.int64) @ CODE_POWERS] = np.arange(NUM_KEEPS)
_KEEP_INDEX = {tuple(int(x) for x in k): i for i, k in enumerate(KEEPS)}


def keep_index(counts: np.ndarray) -> np.ndarray:
    """Keep ids ``(N,) int64`` of face-count rows ``(N, 6)``."""
    return np.array([_KEEP_INDEX[tuple(int(x) for x in row)] for row in counts], np.int64)


def _multinomial(counts: tuple[int, ...]) -> float:
    """Probability of rolling exactly the multiset ``counts`` with ``sum(counts)`` dice."""
    n = sum(counts)
    ways = math.factorial(n)
    for c in counts:
        ways //= math.factorial(c)
    rolls: int = NUM_FACES**n
    return ways / rolls


def _transition() -> np.ndarray:
    """``(210, 252)``: probability of ending at each roll from each keep of size < 5."""
    out = np.zeros((ROLL_OFFSET, NUM_ROLLS))
    roll_index = {tuple(int(x) for x in r): i for i, r in enumerate(ROLLS)}
    for k, keep in enumerate(KEEPS[:ROLL_OFFSET]):
        for extra in _multisets(NUM_DICE - int(keep.sum())):
            roll = tuple(int(a) + b for a, b in zip(keep, extra, strict=True))
            out[k, roll_index[roll]] += _multinomial(extra)
    return out


def _parents() -> np.ndarray:
    """``(462, 6)``: keep ids with one die fewer (padded with a valid one; row 0 -> 0)."""
    out = np.zeros((NUM_KEEPS, NUM_FACES), np.int64)
    for k, keep in enumerate(KEEPS):
        ids = []
        for f in range(NUM_FACES):
            if keep[f] > 0:
                smaller = keep.copy()
                smaller[f] -= 1
                ids.append(_KEEP_INDEX[tuple(int(x) for x in smaller)])
        out[k] = (ids + [ids[0]] * NUM_FACES)[:NUM_FACES] if ids else 0
    return out


TRANSITION = _transition()  # (210, 252) float64, rows sum to 1
PARENTS = _parents()  # (462, 6) int64
FIRST_ROLL = TRANSITION[0]  # (252,) distribution of a roll of all five dice
SIZE_STARTS = tuple(math.comb(m + NUM_FACES - 1, m) for m in range(NUM_DICE + 1))


def best_subkeep(keep_values: np.ndarray) -> np.ndarray:
    """Max of ``keep_values`` over all sub-multisets of each keep.

    Args:
        keep_values: ``(462, S)`` value of holding each keep.

    Returns:
        ``(462, S)``; rows ``ROLL_OFFSET:`` are the best keep of each roll.
    """
    best = keep_values.copy()
    start = 1
    for size in range(1, NUM_DICE + 1):
        stop = start + SIZE_STARTS[size]
        rows = slice(start, stop)
        for f in range(NUM_FACES):
            np.maximum(best[rows], best[PARENTS[start:stop, f]], out=best[rows])
        start = stop
    return best


def keep_values(roll_values: np.ndarray) -> np.ndarray:
    """Expected ``roll_values`` ``(252, S)`` after holding each keep: ``(462, S)``."""
    out = np.empty((NUM_KEEPS, roll_values.shape[1]))
    np.matmul(TRANSITION, roll_values, out=out[:ROLL_OFFSET])
    out[ROLL_OFFSET:] = roll_values
    return out
