"""Metrics of duplicate matches and their bootstrap intervals, clustered by deal.

The unit of resampling is the duplicate deal: every rotation and seat of one deal
share its cards, so their outcomes are averaged into one value per deal before the
deals are resampled (a cluster bootstrap; percentile intervals).

Metrics per seat and game (one deal in one rotation):
  - ``score``: the deal score as the preset writes it (cz penalties: lower is better);
  - ``reward``: the same, oriented so that higher is better (cz negated);
  - ``win``: 1 for the best reward at the table, shared 1/k among k tied seats;
  - ``opened``: the seat had opened when the deal ended;
  - ``out``: the seat went out (ended the deal by melding its last cards).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from eval.harness import MatchResult

METRICS = ("score", "reward", "win", "opened", "out")
_BLOCK = 256  # bootstrap resamples drawn at once (bounds the index matrix)


def seat_metrics(match: MatchResult) -> dict[str, np.ndarray]:
    """float64 (D, R, P) per metric of ``METRICS`` (see the module docstring)."""
    rewards = match.rewards.astype(np.float64)
    best = rewards == rewards.max(-1, keepdims=True)
    seat = np.arange(match.rewards.shape[-1])
    return {
        "score": match.scores.astype(np.float64),
        "reward": rewards,
        "win": best / best.sum(-1, keepdims=True),
        "opened": match.opened.astype(np.float64),
        "out": (match.winner[..., None] == seat).astype(np.float64),
    }


def agent_values(match: MatchResult, values: np.ndarray) -> np.ndarray:
    """float64 (D, n): per deal, each agent's mean of ``values`` (D, R, P) over its seats."""
    n = len(match.agents)
    sits = match.rotations[None] == np.arange(n)[:, None, None]  # (n, R, P)
    return np.einsum("drp,nrp->dn", values, sits) / sits.sum((1, 2))


def seat_values(match: MatchResult, values: np.ndarray) -> np.ndarray:
    """float64 (D, n, P): per deal, each agent's mean of ``values`` at each seat."""
    n = len(match.agents)
    sits = match.rotations[None] == np.arange(n)[:, None, None]  # (n, R, P)
    return np.einsum("drp,nrp->dnp", values, sits) / sits.sum(1)


def pair_difference(match: MatchResult, first: int = 0, second: int = 1) -> np.ndarray:
    """float64 (D,): per deal, the mean reward of ``first``'s seats minus ``second``'s
    (higher = ``first`` better)."""
    per_agent = agent_values(match, seat_metrics(match)["reward"])
    return per_agent[:, first] - per_agent[:, second]


def win_share(diff: np.ndarray) -> np.ndarray:
    """float64 (D,): 1 where the difference is positive, 0.5 where tied, 0 below."""
    return (diff > 0) + 0.5 * (diff == 0)


def bootstrap_ci(values: np.ndarray, confidence: float = 0.95, resamples: int = 2000,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean over deals.

    Args:
        values: float (D,) or (D, K), one value (or K values) per deal.

    Returns:
        (low, high), each of shape ``values.shape[1:]``. One deal gives a zero-width
        interval.
    """
    values = np.asarray(values, np.float64)
    d = values.shape[0]
    if d == 0:
        raise ValueError("bootstrap over zero deals")
    rng = np.random.default_rng(seed)
    means = []
    for start in range(0, resamples, _BLOCK):
        pick = rng.integers(0, d, size=(min(_BLOCK, resamples - start), d))
        means.append(values[pick].mean(1))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(np.concatenate(means), [tail, 100 - tail], axis=0)
    return low, high


def summarize(values: np.ndarray, confidence: float, resamples: int,
              seed: int) -> dict[str, float]:
    """``{"mean", "low", "high", "deals"}`` of per-deal ``values`` (D,)."""
    low, high = bootstrap_ci(values, confidence, resamples, seed)
    return {"mean": float(np.mean(values)), "low": float(low), "high": float(high),
            "deals": int(values.size)}


def cluster_by_deal(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """float64 (U,): per distinct deal seed, the mean of the values given for it.

    Args:
        parts: (seeds int (D_i,), values float (D_i,)) pairs, e.g. one per match an agent
            played on the same deals.
    """
    seeds = np.concatenate([s for s, _ in parts])
    values = np.concatenate([v for _, v in parts])
    unique, index = np.unique(seeds, return_inverse=True)
    total = np.bincount(index, weights=values, minlength=unique.size)
    return total / np.bincount(index, minlength=unique.size)


def excludes_zero(summary: dict[str, float]) -> bool:
    """Whether the interval lies wholly above or below zero."""
    return summary["low"] > 0 or summary["high"] < 0
