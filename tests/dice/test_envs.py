"""Peer API suites and adapter behaviour of the Gymnasium, SB3 VecEnv and PettingZoo envs."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import zolik_env.envs  # noqa: F401 (registers the ids)
from train.dice.vec import KostkyVecEnv
from zolik_env import kostky_v0
from zolik_env.dice import DiceRules, totals
from zolik_env.envs.kostky import KostkyEnv

AEC_CONFIGS = [
    {"num_players": 1},
    {"num_players": 2, "joker": "forced"},
    {"num_players": 2, "joker": "free", "fixed_order": True},
    {"num_players": 3, "table": "triple", "joker": "forced"},
    {"num_players": 2, "reward": "points", "yahtzee_bonus": False},
]


@pytest.mark.parametrize("kwargs", AEC_CONFIGS, ids=str)
def test_kostky_v0__pettingzoo_api_and_seed_tests(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observations draw advisory warnings
        api_test(kostky_v0.env(**kwargs), num_cycles=300)
        seed_test(lambda: kostky_v0.env(**kwargs), num_cycles=300)


def test_kostky_v0__outcome_rewards_sum_to_the_ranking():
    env = kostky_v0.env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            finals[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = totals(env.unwrapped.rules, env.unwrapped.core_state)[0]
    if scores[0] == scores[1]:
        assert finals == {"player_0": 0.0, "player_1": 0.0}
    else:
        winner = f"player_{int(np.argmax(scores))}"
        assert finals[winner] == 1.0 and sum(finals.values()) == 0.0


def test_kostky_v0__illegal_move_ends_the_game_with_minus_one():
    env = kostky_v0.env(num_players=2)
    env.reset(seed=0)
    env.step(31 + 12)  # player_0 fills chance
    env.step(31 + 12)  # player_1 fills chance
    env.step(31 + 12)  # player_0 again: chance is filled, illegal
    assert env.rewards["player_0"] == -1 and all(env.terminations.values())


@pytest.mark.parametrize("kwargs", [{}, {"joker": "forced"}, {"table": "triple"}], ids=str)
def test_kostky_env__gymnasium_and_sb3_checkers(kwargs):
    gym_check_env(gym.make("zolik/Kostky-v0", **kwargs).unwrapped, skip_render_check=True)
    sb3_check_env(KostkyEnv(**kwargs))


def test_kostky_env__episode_return_is_the_final_score():
    env = gym.make("zolik/Kostky-v0", joker="forced")
    _, info = env.reset(seed=5)
    total, done, steps = 0.0, False, 0
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        _obs, reward, done, _, info = env.step(action)
        total += reward
        steps += 1
    assert steps == 13 and total == info["score"] > 0
    assert not env.unwrapped.action_masks().any()


def test_kostky_env__illegal_action_terminates_with_penalty():
    env = KostkyEnv()
    env.reset(seed=0)
    env.step(31)  # fill ones
    _, reward, terminated, _, info = env.step(31)
    assert terminated and reward == -1.0 and info["illegal_action"]


def test_kostky_env__same_seed_same_game():
    a, b = KostkyEnv(), KostkyEnv()
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    assert np.array_equal(oa, ob)
    for action in (0, 5, 40):
        ra = a.step(action)
        rb = b.step(action)
        assert np.array_equal(ra[0], rb[0]) and ra[1] == rb[1]


def test_kostky_vec_env__masks_autoreset_and_reproducibility():
    env = KostkyVecEnv(8, DiceRules(joker="forced"), seed=4)
    obs = env.reset()
    assert obs.shape == (8, 63) and env.action_masks().shape == (8, 44)
    assert len(env.env_method("action_masks")) == 8
    finished = []
    for _ in range(13):
        actions = env.action_masks()[:, 31:].argmax(axis=1) + 31
        obs, _rewards, dones, infos = env.step(actions)
    assert dones.all() and all("terminal_observation" in i for i in infos)
    finished = [i["score"] for i in infos]
    assert env.action_masks().all()  # every game restarted
    again = KostkyVecEnv(8, DiceRules(joker="forced"), seed=4)
    again.reset()
    for _ in range(13):
        _, _, _, infos2 = again.step(again.action_masks()[:, 31:].argmax(axis=1) + 31)
    assert [i["score"] for i in infos2] == finished


def test_kostky_vec_env__maskable_ppo_smoke():
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = KostkyVecEnv(16, DiceRules(joker="forced"), seed=0, reward_scale=0.02)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
