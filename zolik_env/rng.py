"""The kit's one hash for counter-based randomness: SplitMix64 (Steele, Lea and Flood 2014).

Both cores and the training vector envs derive every random number as a pure function of
(seed, counter) through ``splitmix64``, so game ``i`` is the same whether it runs alone
or in a batch, and a step is deterministic given the state. SplitMix64 passes BigCrush as
a counter-based generator. Imports only numpy.
"""

from __future__ import annotations

import numpy as np

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # SplitMix64's increment, 2**64 / golden ratio
MIX1 = np.uint64(0xBF58476D1CE4E5B9)  # the finaliser's two multipliers
MIX2 = np.uint64(0x94D049BB133111EB)


def splitmix64(x: np.ndarray | np.uint64) -> np.ndarray:
    """SplitMix64 finaliser of ``x + GOLDEN_GAMMA``, elementwise on uint64 (wraps modulo 2**64).

    Args:
        x: any integer array (or scalar); it is read as uint64.

    Returns:
        uint64 array of ``x``'s shape.
    """
    with np.errstate(over="ignore"):
        z = np.asarray(x).astype(np.uint64) + GOLDEN_GAMMA
        z = (z ^ (z >> np.uint64(30))) * MIX1
        z = (z ^ (z >> np.uint64(27))) * MIX2
        return z ^ (z >> np.uint64(31))
