"""The duplicate reference: each training deal played again by a reference agent in the
learner's seat, the learner rewarded by its result minus the reference's."""

import numpy as np
import pytest

from agents.registry import make_agent
from tests.train.conftest import tiny_config
from train.selfplay import OpponentPool, PoolVecEnv
from zolik_env.rummy import rules
from zolik_env.rummy.observe import observe


def _drive(env, driver, steps, seed=0):
    """Play ``driver`` in the learner's seat for ``steps`` steps: the ended deals' infos
    and rewards."""
    rng = np.random.default_rng(seed)
    env.reset()
    ended = []
    for _ in range(steps):
        moves = driver.act_batch(observe(env.rules, env.state, env.learner),
                                 env.action_masks(), rng)
        _, rewards, done, infos = env.step(np.asarray(moves))
        ended += [(infos[i], float(rewards[i])) for i in np.flatnonzero(done)]
    return ended


def test_duplicate_reference__a_learner_that_plays_like_the_reference_earns_zero():
    rule_set = rules.preset("cz", max_turns=60)
    greedy = make_agent("greedy", rule_set)
    pool = OpponentPool(rule_set, {"greedy": 1.0}, 2, seed=0)
    env = PoolVecEnv(4, rule_set, pool, seed=3, reference=greedy)
    ended = _drive(env, greedy, 150)
    assert len(ended) >= 4
    for info, reward in ended:  # the same deterministic moves: the same deal, to the card
        assert info["reference_reward"] == pytest.approx(info["deal_reward"])
        assert reward == pytest.approx(0.0, abs=1e-6)
    assert any(abs(info["deal_reward"]) > 0 for info, _ in ended)


def test_duplicate_reference__reward_is_own_minus_the_reference_s_on_the_same_deal():
    rule_set = rules.preset("cz", max_turns=60)
    greedy = make_agent("greedy", rule_set)

    def env(reference):
        pool = OpponentPool(rule_set, {"greedy": 1.0}, 2, seed=0)
        return PoolVecEnv(4, rule_set, pool, seed=3, reference=reference)

    driver = make_agent("random", rule_set)
    with_ref = _drive(env(greedy), driver, 120, seed=1)
    again = _drive(env(greedy), driver, 120, seed=1)
    plain = _drive(env(None), driver, 120, seed=1)
    assert [r for _, r in with_ref] == [r for _, r in again]  # deterministic
    assert len(with_ref) == len(plain) >= 4
    for (info, reward), (plain_info, plain_reward) in zip(with_ref, plain, strict=True):
        assert info["deal_scores"] == plain_info["deal_scores"]  # the learner's deal unchanged
        assert reward == pytest.approx(plain_reward - info["reference_reward"], abs=1e-6)
    assert any(info["reference_reward"] != info["deal_reward"] for info, _ in with_ref)


def test_config__duplicate_reference_must_name_an_agent(tmp_path):
    with pytest.raises(ValueError, match="duplicate_reference='oracle'"):
        tiny_config(tmp_path, duplicate_reference="oracle")
    assert tiny_config(tmp_path, duplicate_reference="planner").duplicate_reference == "planner"
