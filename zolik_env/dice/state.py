"""Batched state of Pět kostek and its counter-based dice RNG.

Every game carries its own 64-bit key and a roll counter, so a roll is a pure function
of (key, counter): game ``i`` is the same whether it is played alone or in a batch of
any size, and ``step`` is deterministic given the state. The dice are hashed with
SplitMix64 (``zolik_env.rng``).

This module imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from zolik_env.dice.rules import NUM_DICE, NUM_FACES
from zolik_env.rng import GOLDEN_GAMMA, MIX2, splitmix64


@dataclasses.dataclass(frozen=True, slots=True)
class State:
    """A batch of B games; seat p's boxes are ``boxes[:, p]``.

    Box ``c * 13 + k`` is box ``k`` (rules.ONES ... rules.CHANCE) of column ``c``.
    """

    dice: np.ndarray  # I8 (B, 5) faces 1..6, sorted ascending
    rolls_left: np.ndarray  # I8 (B,) rerolls still allowed this turn
    boxes: np.ndarray  # I16 (B, P, NB) raw box score (before the column factor); -1 = open
    yahtzee_bonuses: np.ndarray  # I16 (B, P) number of +100 Yahtzee bonuses earned
    current: np.ndarray  # I8 (B,) seat to act
    key: np.ndarray  # U64 (B,) per-game RNG key derived from the game's seed
    counter: np.ndarray  # U32 (B,) rolls made so far (the RNG counter)
    done: np.ndarray  # bool (B,) every box of every seat is filled

    @property
    def batch_size(self) -> int:
        return int(self.dice.shape[0])

    def take(self, rows: np.ndarray | slice) -> State:
        """The sub-batch ``rows`` (for tests and single-game views)."""
        return State(*(getattr(self, f.name)[rows] for f in dataclasses.fields(self)))


def keys_from_seeds(seeds: np.ndarray) -> np.ndarray:
    """Per-game keys ``(B,) uint64`` from non-negative integer seeds ``(B,)``."""
    seeds = np.asarray(seeds)
    if seeds.ndim != 1 or (seeds < 0).any():
        raise ValueError("seeds must be a 1-D array of non-negative integers")
    return splitmix64(splitmix64(seeds.astype(np.uint64)))


def roll_dice(key: np.ndarray, counter: np.ndarray) -> np.ndarray:
    """Five fresh dice ``(B, 5) int8`` (unsorted) for roll number ``counter`` of each game."""
    with np.errstate(over="ignore"):
        base = key ^ (counter.astype(np.uint64) * MIX2)
        draws = base[:, None] + np.arange(NUM_DICE, dtype=np.uint64) * GOLDEN_GAMMA
        bits = splitmix64(draws) >> np.uint64(32)  # 32 uniform bits per die
        faces = (bits * np.uint64(NUM_FACES)) >> np.uint64(32)  # Lemire: bias < 2**-29
    return (faces + np.uint64(1)).astype(np.int8)


def where_rows(rows: np.ndarray, new: State, old: State) -> State:
    """Rows ``rows`` (``(B,) bool``) from ``new``, the others from ``old`` (same shapes)."""
    fields = {}
    for f in dataclasses.fields(old):
        a, b = getattr(new, f.name), getattr(old, f.name)
        fields[f.name] = np.where(rows.reshape(-1, *([1] * (a.ndim - 1))), a, b)
    return State(**fields)
