"""Counter-based shuffles: a deal's randomness is a pure function of (seed, counter).

Each deal keeps one 64-bit key; a shuffle sorts its cards by a SplitMix64 hash of
(key, salt, index) (``zolik_env.rng``).
So game ``i`` deals and reshuffles the same cards whether it runs alone or in a batch of
1024, and ``step`` stays a deterministic function of the state and the actions.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rng import GOLDEN_GAMMA, MIX1, MIX2, splitmix64
from zolik_env.rummy.jit import kernel


def deal_keys(seeds: np.ndarray | list[int]) -> np.ndarray:
    """uint64 (B,) one key per deal from non-negative integer seeds."""
    array = np.asarray(seeds)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"seeds must be a non-empty 1-D sequence of integers, got shape "
                         f"{array.shape}")
    if not np.issubdtype(array.dtype, np.integer) or (array < 0).any():
        raise ValueError("seeds must be non-negative integers")
    with np.errstate(over="ignore"):
        return splitmix64(array.astype(np.uint64))


def shuffle_order(keys: np.ndarray, salt: np.ndarray | int, length: int,
                  valid: np.ndarray | None = None) -> np.ndarray:
    """int (B, length): a random permutation per row; entries outside ``valid`` sort last.

    Args:
        keys: uint64 (B,) deal keys.
        salt: which shuffle of the deal this is (0 = the deal, r = the r-th rebuild).
        valid: bool (B, length) positions to permute; the rest keep their order at the end.
    """
    keys = np.asarray(keys).astype(np.uint64)
    salts = np.broadcast_to(np.asarray(salt).astype(np.uint64), keys.shape)
    if valid is None:
        valid = np.ones((len(keys), length), np.bool_)
    out = np.empty((len(keys), length), np.int64)
    for b in range(len(keys)):
        row_order(keys[b], salts[b], np.ascontiguousarray(valid[b], np.bool_), out[b])
    return out


_GAMMA = np.uint64(GOLDEN_GAMMA)
_MIX1, _MIX2 = np.uint64(MIX1), np.uint64(MIX2)
_INDEX_STEP = np.uint64(0xD1B54A32D192ED03)
_LAST = np.uint64(2**63)


@kernel
def _splitmix64(x: np.uint64) -> np.uint64:
    """``zolik_env.rng.splitmix64`` of one uint64, inside kernels (the same numbers)."""
    z = x + _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def row_order(key: np.uint64, salt: np.uint64, valid: np.ndarray, out: np.ndarray) -> None:
    """One row of ``shuffle_order``, written into ``out`` int64 (length,): the positions
    sorted by a hash of (key, salt, position), those outside ``valid`` last in order."""
    salted = _splitmix64(key ^ (salt * _GAMMA))
    noise = np.empty(len(valid), np.uint64)
    for j in range(len(valid)):
        index = np.uint64(j)
        if valid[j]:
            noise[j] = _splitmix64(salted + index * _INDEX_STEP) >> np.uint64(1)
        else:
            noise[j] = _LAST + index
    out[:] = np.argsort(noise, kind="mergesort")
