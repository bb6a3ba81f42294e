"""Metrics, bootstrap intervals over deals, ratings."""

import numpy as np
import pytest

from eval import stats
from eval.harness import MatchResult, seat_rotations
from eval.ratings import rate_pool


def fake_match(scores, winner=None):
    """A 2-agent, 2-seat match with given cz scores (D, R=2, P=2)."""
    scores = np.asarray(scores, np.int32)
    d = scores.shape[0]
    winner = np.full((d, 2), -1, np.int8) if winner is None else np.asarray(winner, np.int8)
    return MatchResult(("a", "b"), seat_rotations(2, 2), 2_000_000_000 + np.arange(d), scores,
                       -scores, scores == 0, winner, np.zeros((d, 2), bool),
                       np.ones((d, 2), np.int32))


def test_agent_values__average_over_the_agents_seats_and_rotations():
    # rotation 0: a at seat 0; rotation 1: a at seat 1
    match = fake_match([[[0, 10], [30, 4]]])
    score = stats.seat_metrics(match)["score"]
    np.testing.assert_allclose(stats.agent_values(match, score), [[(0 + 4) / 2, (10 + 30) / 2]])
    np.testing.assert_allclose(stats.seat_values(match, score), [[[0, 4], [30, 10]]])
    np.testing.assert_allclose(stats.pair_difference(match), [18.0])  # b's penalty is higher


def test_seat_metrics__ties_share_the_win_and_out_follows_the_winner():
    match = fake_match([[[5, 5], [0, 9]]], winner=[[-1, 0]])
    m = stats.seat_metrics(match)
    np.testing.assert_allclose(m["win"][0], [[0.5, 0.5], [1, 0]])
    np.testing.assert_allclose(m["out"][0], [[0, 0], [1, 0]])


def test_bootstrap_ci__covers_the_mean_and_narrows_with_more_deals():
    rng = np.random.default_rng(1)
    small, large = rng.normal(3, 1, 50), rng.normal(3, 1, 2000)
    lo_s, hi_s = stats.bootstrap_ci(small, resamples=1000)
    lo_l, hi_l = stats.bootstrap_ci(large, resamples=1000)
    assert lo_l < 3 < hi_l
    assert hi_l - lo_l < (hi_s - lo_s) / 3
    assert stats.bootstrap_ci(small, resamples=1000) == (lo_s, hi_s)  # seeded
    assert stats.bootstrap_ci(np.full(7, 2.0)) == (2.0, 2.0)
    with pytest.raises(ValueError):
        stats.bootstrap_ci(np.zeros(0))


def test_bootstrap_ci__level_matches_the_normal_interval():
    values = np.random.default_rng(2).normal(0, 1, 400)
    lo, hi = stats.bootstrap_ci(values, 0.95, 4000)
    half = 1.96 * values.std() / np.sqrt(values.size)
    assert hi - lo == pytest.approx(2 * half, rel=0.1)


def test_cluster_by_deal__one_value_per_seed():
    seeds_a, seeds_b = np.array([5, 6]), np.array([6, 7])
    out = stats.cluster_by_deal([(seeds_a, np.array([1.0, 2.0])), (seeds_b, np.array([4.0, 8.0]))])
    np.testing.assert_allclose(out, [1.0, 3.0, 8.0])


def test_excludes_zero():
    assert stats.excludes_zero({"low": 0.1, "high": 2})
    assert stats.excludes_zero({"low": -2, "high": -0.1})
    assert not stats.excludes_zero({"low": -0.1, "high": 2})


def test_rate_pool__the_consistent_winner_rates_higher_with_intervals():
    games = [((0, 1), np.array([1.0, 0.0])), ((1, 2), np.array([1.0, 0.0])),
             ((0, 2), np.array([1.0, 0.0]))] * 20
    rows = rate_pool(["top", "mid", "low"], games)
    mu = [r["mu"] for r in rows]
    assert mu[0] > mu[1] > mu[2]
    assert all(r["low"] < r["mu"] < r["high"] for r in rows)
    assert [r["games"] for r in rows] == [40, 40, 40]
    even = rate_pool(["x", "y"], [((0, 1), np.array([0.0, 0.0]))] * 10)
    assert even[0]["mu"] == pytest.approx(even[1]["mu"])
