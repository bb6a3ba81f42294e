"""The readable per-card rules of thumb: the oracle of ``agents.features.rules_of_thumb``.

One card at a time, with Python sets and sums, as the planner once computed them; the
product computes them batched over index tables. Tests compare the two.
"""

import numpy as np

from agents.features.rules_of_thumb import run_neighbours, set_partners
from tests.agents.planner_reference.table_model import TableMeld, natural_fit


def keep_value(kind: int, hand: np.ndarray, unseen: np.ndarray) -> float:
    """How much ``kind`` adds to the hand's future melds: partners weighted by live outs."""
    value = 0.0
    for partner in set_partners(kind):
        if hand[partner]:
            outs = sum(unseen[k] for k in set_partners(kind) if k != partner and not hand[k])
            value += 3.0 + 2.0 * min(outs, 4)
    for partner in run_neighbours(kind, 1):
        if hand[partner]:
            ends = [k for k in run_neighbours(kind, 2) + run_neighbours(partner, 2)
                    if k not in (kind, partner)]
            value += 3.0 + 2.0 * min(sum(unseen[k] for k in set(ends)), 4)
    for partner in run_neighbours(kind, 2):
        if hand[partner]:
            middle = set(run_neighbours(kind, 1)) & set(run_neighbours(partner, 1))
            value += 2.0 + 1.5 * min(sum(unseen[k] for k in middle), 3)
    return value


def danger(kind: int, known: np.ndarray, opened: np.ndarray, table: list[TableMeld],
           weights: list[float]) -> float:
    """Expected help to opponents (relative seats 1..P-1 weighted by ``weights``): the card
    joins discards they were seen to take, or lays off on the table once they have opened."""
    related = set_partners(kind) + run_neighbours(kind, 1) + run_neighbours(kind, 2)
    fits = any(natural_fit(m, kind) is not None for m in table)
    total = 0.0
    for seat, weight in enumerate(weights, start=1):
        hits = sum(int(known[seat, k]) for k in related)
        total += weight * (12.0 * min(hits, 2) + (6.0 if fits and opened[seat] else 0.0))
    return total


def is_loose(kind: int, hand: np.ndarray) -> bool:
    """No partner of ``kind`` in ``hand`` (greedy's "in no partial meld"): the readable
    form of ``rules_of_thumb.loose``."""
    return not any(hand[k] for k in set_partners(kind) + run_neighbours(kind, 1))
