"""Counter-based shuffles: a deal's randomness is a pure function of (seed, counter).

Each deal keeps one 64-bit key; a shuffle sorts its cards by a SplitMix64 hash of
(key, salt, index) (``zolik_env.rng``).
So game ``i`` deals and reshuffles the same cards whether it runs alone or in a batch of
1024, and ``step`` stays a deterministic function of the state and the actions.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rng import GOLDEN_GAMMA, splitmix64


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
    index = np.arange(length, dtype=np.uint64)
    salted = splitmix64(keys.astype(np.uint64) ^ (np.asarray(salt, np.uint64) * GOLDEN_GAMMA))
    with np.errstate(over="ignore"):
        noise = splitmix64(salted[:, None] + index[None, :] * np.uint64(0xD1B54A32D192ED03))
    if valid is not None:
        noise = np.where(valid, noise >> np.uint64(1), np.uint64(2**63) + index[None, :])
    return np.argsort(noise, axis=1, kind="stable")
