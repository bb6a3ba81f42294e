"""Potential-based reward shaping in ``ZolikVecEnv``: it only moves credit within a deal."""

import numpy as np
import pytest

from agents.registry import make_agent
from train.zolik_vec import ZolikVecEnv
from zolik_env.envs.zolik_common import make_rules
from zolik_env.rummy import game

RULES = {"max_turns": 40}
GAMMA = 0.99


def _play(shaping, steps=400, num_envs=8, gamma=GAMMA):
    """Rewards (steps, envs), dones and infos of random learner moves against greedy."""
    rules = make_rules("cz", 2, RULES)
    env = ZolikVecEnv(num_envs, rules, opponents=make_agent("greedy", rules), seed=4,
                      shaping=shaping, gamma=gamma)
    env.reset()
    rng = np.random.default_rng(9)
    rewards, dones, infos = [], [], []
    for _ in range(steps):
        _, r, d, i = env.step(game.sample_legal(env.action_masks(), rng))
        rewards.append(r)
        dones.append(d)
        infos.append(i)
    return np.array(rewards, np.float64), np.array(dones), infos


def _deals(dones):
    """(env, first step, last step) of every deal that ended within the steps played."""
    out = []
    for env in range(dones.shape[1]):
        first = 0
        for last in np.flatnonzero(dones[:, env]):
            out.append((env, first, last))
            first = last + 1
    return out


def test_shaping__discounted_terms_of_a_finished_deal_sum_to_zero():
    plain, dones, _ = _play(0.0)
    shaped, dones_again, _ = _play(1.0)
    assert (dones == dones_again).all()  # shaping changes rewards, never the play
    terms = shaped - plain
    deals = _deals(dones)
    assert len(deals) >= 8
    moved = 0.0
    for env, first, last in deals:
        seq = terms[first:last + 1, env]
        discount = GAMMA ** np.arange(seq.size)
        assert abs(float(discount @ seq)) < 1e-5, (env, first, last)
        moved = max(moved, float(np.abs(seq).max()))
    assert moved > 0.05  # the terms are not all zero: credit did move within deals


def test_shaping__laying_cards_down_is_credited_when_it_happens():
    plain, dones, _ = _play(0.0)
    shaped, _, _ = _play(1.0)
    terms = shaped - plain
    running = terms[~dones]
    assert (running > 0).any() and (running < 0).any()


def test_shaping__infos_keep_the_unshaped_deal_reward():
    plain, dones, _ = _play(0.0)
    _, _, infos = _play(0.5)
    for step, env in zip(*np.nonzero(dones), strict=True):
        assert infos[step][env]["deal_reward"] == pytest.approx(plain[step, env], abs=1e-6)


@pytest.mark.parametrize(("shaping", "gamma"), [(-0.1, 0.99), (0.5, 0.0), (0.5, 1.5)])
def test_shaping__bad_values_are_clear_errors(shaping, gamma):
    with pytest.raises(ValueError, match="shaping must be >= 0"):
        ZolikVecEnv(2, "cz", 2, shaping=shaping, gamma=gamma)
