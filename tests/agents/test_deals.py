"""Both heuristic agents play whole deals of every preset legally, finish them, and repeat
themselves exactly from the same seed."""

import numpy as np
import pytest

from agents.base import Policy
from agents.registry import make_agent
from tests.agents.play import play_deal
from zolik_env.rummy import actions as A
from zolik_env.rummy import rules

PRESETS = list(rules.PRESETS)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("spec", ["greedy", "planner"])
def test_agent__plays_whole_deals_legally_to_the_end(spec, preset, players):
    r = rules.preset(preset, num_players=players)
    agent = make_agent(spec, r)
    seats = [agent if p % 2 == 0 else make_agent("random", r) for p in range(players)]
    for seed in (1, 2):
        state, actions = play_deal(r, [agent] * players, seed)
        assert state.done[0] and int(state.winner[0]) >= 0, "self-play deals end with a winner"
        assert A.UNDO not in actions, "the plans never need UNDO"
        state, _ = play_deal(r, seats, seed)
        assert state.done[0]


@pytest.mark.parametrize("spec", ["greedy", "planner"])
def test_agent__same_seed_gives_the_same_actions(spec):
    r = rules.preset("jolly", num_players=3)
    first = play_deal(r, [make_agent(spec, r) for _ in range(3)], seed=7)[1]
    reused = make_agent(spec, r)  # one instance for every seat, caches warm from before
    play_deal(r, [reused] * 3, seed=8)
    assert play_deal(r, [reused] * 3, seed=7)[1] == first
    assert play_deal(r, [make_agent(spec, r)] * 3, seed=9)[1] != first


@pytest.mark.parametrize("spec", ["greedy", "planner"])
def test_act_batch__equals_act_row_by_row(spec):
    r = rules.preset("cz")
    from zolik_env.rummy import game
    from zolik_env.rummy.observe import observe

    state = game.init(r, np.arange(4))
    batched: Policy = make_agent(spec, r)
    single: Policy = make_agent(spec, r)  # a twin that sees the same rows one by one
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = game.legal_action_mask(r, state)
        obs = observe(r, state, state.current)
        batch = batched.act_batch(obs, mask, rng)
        assert batch.shape == (4,) and batch.dtype == np.int64
        assert list(batch) == [single.act(o, m, rng) for o, m in zip(obs, mask, strict=True)]
        state = game.step(r, state, batch)[0]


def test_registry__builds_the_heuristic_agents_and_rejects_arguments():
    r = rules.preset("sk")
    assert make_agent("greedy", r).name == "greedy"
    assert make_agent("planner", r).name == "planner"
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("greedy:deep", r)
    with pytest.raises(ValueError, match="'deep' is not KEY=VALUE"):
        make_agent("planner:deep", r)


def test_strength__duplicate_deals_swap_seats_and_give_an_interval():
    from eval.strength import duplicate_differences, interval

    diffs = duplicate_differences("cz", 2, "greedy", "greedy", [3])
    assert np.allclose(diffs, 0.0)  # the same agent on both sides of a duplicate deal
    diffs = duplicate_differences("cz", 2, "planner", "greedy", [3, 4, 5])
    mean, low, high = interval(diffs)
    assert diffs.shape == (3,) and low < mean < high and mean > 0
