"""Small deterministic policies for the harness tests (no registry entry needed)."""

import numpy as np

from agents.base import SingleFromBatched
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_RANKS


def _priorities():
    """float (NUM_ACTIONS,): meld > lay-off > draw > discard (high cards first) > rest."""
    p = np.zeros(A.NUM_ACTIONS)
    p[A.MELD_BASE:A.LAYOFF_BASE] = 4
    p[A.LAYOFF_BASE:A.UNDO] = 3
    p[A.DRAW_STOCK] = 2
    kinds = np.arange(A.NUM_ACTIONS - A.DISCARD_BASE)
    rank = kinds % NUM_RANKS
    value = np.where(rank == 0, 10, np.minimum(rank + 1, 10))
    p[A.DISCARD_BASE:] = 1 + value / 100
    p[A.DISCARD_BASE + JOKER] = 1  # keep jokers: they complete melds
    p[A.UNDO] = 0.5
    return p


class MeldFirst(SingleFromBatched):
    """Strategy: meld whenever possible, then lay off, draw from the stock, discard the
    highest card (never a joker unless forced); undo only when nothing else is legal."""

    name = "meld_first"
    priority = _priorities()

    def act_batch(self, obs, mask, rng):
        return np.argmax(np.where(mask, self.priority, -1.0), axis=1).astype(np.int64)


class Recorder(SingleFromBatched):
    """Random play that records the hands (obs 'hand' slice) it was dealt: the first
    observation per deal it sees. Used to check the duplicate rotation."""

    name = "recorder"

    def __init__(self):
        self.first_hands = []

    def act_batch(self, obs, mask, rng):
        self.first_hands.extend(obs[:, :53].copy())
        counts = mask.sum(1)
        pick = (rng.random(len(mask)) * counts).astype(np.int64)
        return np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1).astype(np.int64)
