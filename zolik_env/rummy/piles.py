"""Counting the cards of piles by kind (the moves themselves are in ``moves``).

The moves keep ``discard_counts`` up to date as they go; these recounts build it for a
set-up position and let the property tests check it.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.cards import NUM_KINDS


def count_cards(kinds: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """int8 (R, K): how many of each kind row r of ``kinds`` (R, n) holds where ``valid``."""
    r = len(kinds)
    row_start = np.arange(0, r * (NUM_KINDS + 1), NUM_KINDS + 1)[:, None]
    flat = np.where(valid, kinds, NUM_KINDS) + row_start  # kind K: not a card
    counts = np.bincount(flat.ravel(), minlength=r * (NUM_KINDS + 1))
    return counts.reshape(r, NUM_KINDS + 1)[:, :NUM_KINDS].astype(np.int8)


def count_pile(pile: np.ndarray, length: np.ndarray) -> np.ndarray:
    """int8 (B, K): cards by kind among the first ``length`` entries of each pile row."""
    return count_cards(pile, np.arange(pile.shape[1]) < length[:, None])
