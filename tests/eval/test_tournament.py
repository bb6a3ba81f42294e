"""Pools: a strong agent beats random, copies tie, workers and stopping are deterministic."""

import numpy as np
import pytest

from agents.random_policy import RandomPolicy
from agents.registry import AGENTS, make_agent
from eval.config import EvalConfig
from eval.tournament import play_pool, run, unique_names
from tests.eval.policies import MeldFirst
from zolik_env.rummy.options import preset


def config(agents, **kw):
    base = {"deals": 16, "chunk_deals": 8, "workers": 1, "progress": False, "bootstrap": 500}
    return EvalConfig(agents=tuple(agents), **{**base, **kw})


def strong_agent(name):
    """The registered ``greedy``, or the test-local meld-first policy."""
    if name == "meld_first":
        return MeldFirst()
    if name not in AGENTS:
        pytest.skip(f"agent {name!r} is not registered yet")
    return make_agent(name, preset("cz"))


@pytest.mark.parametrize("name", ["greedy", "meld_first"])
def test_run__finds_the_strong_agent_better_than_random(name):
    result = run(config([name, "random"], deals=32), [strong_agent(name), RandomPolicy()],
                 write=False)
    pair = result.summary.pairs[0]
    assert pair["significant"] and pair["difference"]["low"] > 0
    assert result.summary.win_matrix[0, 1] > 0.6
    ratings = result.summary.ratings
    assert ratings[0]["low"] > ratings[1]["mu"]
    agents = result.summary.agents
    assert agents[0]["score"]["high"] < agents[1]["score"]["low"]  # cz penalties
    assert agents[0]["out"]["mean"] > agents[1]["out"]["mean"]


def test_run__an_agent_and_its_copy_do_not_differ():
    result = run(config(["random", "random"], deals=32), write=False)
    pair = result.summary.pairs[0]
    assert not pair["significant"], pair
    assert result.names == ("random", "random#2")
    # a deterministic agent and its copy play mirror games: every difference is 0
    same = run(config(["meld_first", "meld_first"]), [MeldFirst(), MeldFirst()], write=False)
    assert same.summary.pairs[0]["difference"] == pytest.approx(
        {"mean": 0, "low": 0, "high": 0, "deals": 16})


def test_play_pool__results_do_not_depend_on_workers():
    cfg = config(["random", "random"], deals=4, chunk_deals=1)
    _, serial, _ = play_pool(cfg)
    _, parallel, _ = play_pool(EvalConfig(**{**cfg.__dict__, "workers": 2}))
    assert list(serial) == [(0, 1)] == list(parallel)
    np.testing.assert_array_equal(serial[(0, 1)].scores, parallel[(0, 1)].scores)
    np.testing.assert_array_equal(serial[(0, 1)].turns, parallel[(0, 1)].turns)
    np.testing.assert_array_equal(serial[(0, 1)].seeds, 2_000_000_000 + np.arange(4))


def test_play_pool__round_robin_over_every_pair():
    cfg = config(["meld_first", "random", "random"], deals=2)
    names, matches, _ = play_pool(cfg, [MeldFirst(), RandomPolicy(), RandomPolicy()])
    assert names == ("meld_first", "random", "random#2")
    assert list(matches) == [(0, 1), (0, 2), (1, 2)]
    assert all(m.num_deals == 2 for m in matches.values())
    assert matches[(1, 2)].agents == ("random", "random#2")


def test_play_pool__sequential_stopping_ends_a_clear_pair_early():
    cfg = config(["meld_first", "random"], deals=64, sequential=True, min_deals=16)
    _, matches, stopped = play_pool(cfg, [MeldFirst(), RandomPolicy()])
    assert stopped == {(0, 1)}
    assert matches[(0, 1)].num_deals == 16
    _, full, stopped = play_pool(EvalConfig(**{**cfg.__dict__, "sequential": False,
                                               "deals": 24}), [MeldFirst(), RandomPolicy()])
    assert not stopped and full[(0, 1)].num_deals == 24


def test_unique_names():
    assert unique_names(["random", "greedy", "random"]) == ("random", "greedy", "random#2")
