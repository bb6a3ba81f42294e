"""Tables of a pool evaluation: per agent, per agent and seat, per pair, and ratings.

Per-agent values pool every match the agent played: for each deal seed, the agent's
mean over its seats, rotations and matches is one cluster of the bootstrap. Because a
pooled mean mixes opponents, ``opponent_rows`` breaks it down per opponent: the agent's
points per deal against each one and its difference to that opponent on the same deals. Pairs
compare two agents on the same deals (``stats.pair_difference``); the pairwise win
rate counts the deals where the first agent's mean reward beat the second's (ties half).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval import stats
from eval.harness import MatchResult
from eval.ratings import rate_pool

Pair = tuple[int, int]


@dataclass(frozen=True)
class Summary:
    """Everything the report shows; rows are JSON-ready dicts."""

    agents: list[dict[str, Any]]  # agent, deals, then one {mean, low, high} per metric
    seats: list[dict[str, Any]]  # agent, seat, deals, then per metric
    pairs: list[dict[str, Any]]  # first, second, deals, difference, win_rate, stopped_early
    ratings: list[dict[str, Any]]  # agent, mu, sigma, low, high, ordinal, games
    win_matrix: np.ndarray  # float64 (n, n): row's win rate against column, NaN diagonal
    # agent, opponent, deals, points {mean, low, high}, difference {mean, low, high}
    opponents: list[dict[str, Any]] = field(default_factory=list)
    # names of privileged agents (oracles, ``agents.base.OraclePolicy``: they see every card)
    privileged: list[str] = field(default_factory=list)


def agent_rows(names: Sequence[str], matches: Mapping[Pair, MatchResult], confidence: float,
               resamples: int, seed: int) -> list[dict[str, Any]]:
    """Per agent: each metric's mean and interval over its deals (all its matches)."""
    rows = []
    for a, name in enumerate(names):
        row: dict[str, Any] = {"agent": name}
        for metric in stats.METRICS:
            parts = []
            for pair, match in matches.items():
                if a in pair:
                    values = stats.agent_values(match, stats.seat_metrics(match)[metric])
                    parts.append((match.seeds, values[:, pair.index(a)]))
            per_deal = stats.cluster_by_deal(parts)
            row["deals"] = int(per_deal.size)
            row[metric] = stats.summarize(per_deal, confidence, resamples, seed)
        rows.append(row)
    return rows


def seat_rows(names: Sequence[str], matches: Mapping[Pair, MatchResult], num_players: int,
              confidence: float, resamples: int, seed: int) -> list[dict[str, Any]]:
    """Per agent and seat (seat 0 starts every deal): each metric's mean and interval."""
    rows = []
    for a, name in enumerate(names):
        for s in range(num_players):
            row: dict[str, Any] = {"agent": name, "seat": s}
            for metric in stats.METRICS:
                parts = []
                for pair, match in matches.items():
                    if a in pair:
                        values = stats.seat_values(match, stats.seat_metrics(match)[metric])
                        parts.append((match.seeds, values[:, pair.index(a), s]))
                per_deal = stats.cluster_by_deal(parts)
                row["deals"] = int(per_deal.size)
                row[metric] = stats.summarize(per_deal, confidence, resamples, seed)
            rows.append(row)
    return rows


def pair_rows(names: Sequence[str], matches: Mapping[Pair, MatchResult], stopped: set[Pair],
              confidence: float, resamples: int, seed: int) -> list[dict[str, Any]]:
    """Per pair: the per-deal reward difference (first minus second) and win rate."""
    rows = []
    for (i, j), match in matches.items():
        diff = stats.pair_difference(match)
        difference = stats.summarize(diff, confidence, resamples, seed)
        rows.append({
            "first": names[i], "second": names[j], "deals": match.num_deals,
            "difference": difference,
            "win_rate": stats.summarize(stats.win_share(diff), confidence, resamples, seed),
            "significant": stats.excludes_zero(difference),
            "stopped_early": (i, j) in stopped,
        })
    return rows


def opponent_rows(names: Sequence[str], matches: Mapping[Pair, MatchResult], confidence: float,
                  resamples: int, seed: int) -> list[dict[str, Any]]:
    """Per agent and opponent (each match it played): its points per deal there (the
    reward, higher is better) and the per-deal difference agent minus opponent."""
    rows = []
    for a, name in enumerate(names):
        for pair, match in matches.items():
            if a not in pair:
                continue
            mine, theirs = pair.index(a), 1 - pair.index(a)
            points = stats.agent_values(match, stats.seat_metrics(match)["reward"])
            rows.append({
                "agent": name, "opponent": names[pair[theirs]], "deals": match.num_deals,
                "points": stats.summarize(points[:, mine], confidence, resamples, seed),
                "difference": stats.summarize(stats.pair_difference(match, mine, theirs),
                                              confidence, resamples, seed),
            })
    return rows


def win_matrix(num_agents: int, matches: Mapping[Pair, MatchResult]) -> np.ndarray:
    """float64 (n, n): entry [i, j] is i's duplicate win rate against j; NaN on the
    diagonal and for pairs that did not play."""
    out = np.full((num_agents, num_agents), np.nan)
    for (i, j), match in matches.items():
        share = float(stats.win_share(stats.pair_difference(match)).mean())
        out[i, j], out[j, i] = share, 1 - share
    return out


def rating_games(matches: Mapping[Pair, MatchResult]) -> Iterator[tuple[Pair, np.ndarray]]:
    """Games for ``rate_pool``: deal by deal, across the matches in their order."""
    per_match = [(pair, stats.agent_values(m, stats.seat_metrics(m)["reward"]))
                 for pair, m in matches.items()]
    longest = max(values.shape[0] for _, values in per_match)
    for d in range(longest):
        for pair, values in per_match:
            if d < values.shape[0]:
                yield pair, values[d]


def summarize_pool(names: Sequence[str], matches: Mapping[Pair, MatchResult], num_players: int,
                   stopped: set[Pair], confidence: float, resamples: int,
                   seed: int, privileged: Collection[str] = ()) -> Summary:
    """All tables of one evaluation; every row that names an agent of ``privileged``
    says so (``privileged``, ``opponent_privileged``, ``first_privileged``, ...)."""
    summary = Summary(
        agents=agent_rows(names, matches, confidence, resamples, seed),
        seats=seat_rows(names, matches, num_players, confidence, resamples, seed),
        pairs=pair_rows(names, matches, stopped, confidence, resamples, seed),
        ratings=rate_pool(names, rating_games(matches), confidence),
        win_matrix=win_matrix(len(names), matches),
        opponents=opponent_rows(names, matches, confidence, resamples, seed),
        privileged=[n for n in names if n in privileged],
    )
    marked = set(summary.privileged)
    for rows, keys in ((summary.agents, ("agent",)), (summary.seats, ("agent",)),
                       (summary.ratings, ("agent",)), (summary.opponents, ("agent", "opponent")),
                       (summary.pairs, ("first", "second"))):
        for row in rows:
            for key in keys:
                row["privileged" if key == "agent" else f"{key}_privileged"] = row[key] in marked
    return summary
