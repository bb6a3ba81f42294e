"""Ratings with uncertainty for a pool of agents (openskill's Plackett-Luce model).

Each duplicate deal of each match is one game: its agents are ranked by their mean
reward over their seats and rotations (ties allowed). Games are fed in a fixed order,
deal by deal across the matches, so ratings are reproducible. The interval is
``mu ± z·sigma`` with z for the requested level; sigma is the model's posterior spread
after the games seen, not a frequentist interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import NormalDist

import numpy as np
from openskill.models import PlackettLuce


def rate_pool(agents: Sequence[str], games: Iterable[tuple[Sequence[int], np.ndarray]],
              confidence: float = 0.95) -> list[dict[str, float | str]]:
    """Rate every agent of ``agents`` from ``games``.

    Args:
        games: (agent indices (k,), values float (k,)) per game; higher values rank better.

    Returns:
        One row per agent, in the order of ``agents``: name, mu, sigma, low, high,
        ordinal (mu - 3 sigma, openskill's conservative estimate), games.
    """
    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in agents]
    played = [0] * len(agents)
    for who, values in games:
        teams = [[ratings[a]] for a in who]
        rated = model.rate(teams, scores=[float(v) for v in values])
        for a, team in zip(who, rated, strict=True):
            ratings[a] = team[0]
            played[a] += 1
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return [{"agent": name, "mu": r.mu, "sigma": r.sigma, "low": r.mu - z * r.sigma,
             "high": r.mu + z * r.sigma, "ordinal": float(r.ordinal()), "games": played[a]}
            for a, (name, r) in enumerate(zip(agents, ratings, strict=True))]
