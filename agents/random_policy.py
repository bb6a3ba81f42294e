"""``random``: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from agents.base import SingleFromBatched


class RandomPolicy(SingleFromBatched):
    """Strategy: every legal action is equally likely, UNDO included."""

    name = "random"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        counts = mask.sum(1)
        if (counts == 0).any():
            raise ValueError(f"row {int(np.flatnonzero(counts == 0)[0])} has no legal action")
        pick = (rng.random(len(mask)) * counts).astype(np.int64)
        order = np.cumsum(mask, axis=1)
        return np.argmax(order > pick[:, None], axis=1).astype(np.int64)


def make(rules: object, argument: str = "") -> RandomPolicy:
    if argument:
        raise ValueError(f"agent 'random' takes no argument, got {argument!r}")
    return RandomPolicy()
