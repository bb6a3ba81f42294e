"""Strict action ids in every env: no string, float or bool plays action 0 by coercion."""

import gymnasium as gym
import numpy as np
import pytest

import zolik_env  # noqa: F401  (registers the Gymnasium ids)
from zolik_env import kostky_v0, zolik_v0
from zolik_env.envs.checks import action_id, action_ids

BAD = ["0", 0.7, 1.0, True, None, [1, 2], np.float32(3)]


@pytest.mark.parametrize("bad", BAD)
def test_action_id__refuses_what_is_not_an_integer(bad):
    with pytest.raises(ValueError, match="expected an integer action id"):
        action_id(bad, 10)


def test_action_id__accepts_python_and_numpy_integers_in_range():
    assert [action_id(a, 10) for a in (3, np.int64(4), np.array(5), np.array([6]))] == [3, 4, 5, 6]
    with pytest.raises(ValueError, match=r"player_0: action 10 out of range \[0, 10\)"):
        action_id(10, 10, "player_0")


def test_action_ids__a_float_batch_is_refused_not_truncated():
    with pytest.raises(ValueError, match="expected integer action ids, got dtype float64"):
        action_ids(np.array([0.7, 1.2]), 2, 10)
    with pytest.raises(ValueError, match="env 1: action -1 out of range"):
        action_ids(np.array([0, -1]), 2, 10)
    with pytest.raises(ValueError, match="expected 2 actions"):
        action_ids(np.array([0, 1, 2]), 2, 10)


@pytest.mark.parametrize("make", [lambda: zolik_v0.raw_env(), lambda: kostky_v0.raw_env()])
@pytest.mark.parametrize("bad", ["0", 0.7, True])
def test_aec_envs__step_refuses_non_integer_actions(make, bad):
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="expected an integer action id"):
        env.step(bad)


@pytest.mark.parametrize("env_id", ["zolik/Zolik-v0", "zolik/Kostky-v0"])
def test_gym_envs__step_refuses_non_integer_actions(env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    for bad in ("0", 0.7):
        with pytest.raises(ValueError, match="expected an integer action id"):
            env.step(bad)


def test_kostky_gym__stepping_after_the_game_ended_is_an_error():
    env = gym.make("zolik/Kostky-v0").unwrapped
    _, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, _, info = env.step(int(legal[-1]))
    with pytest.raises(ValueError, match="the game is over: call reset"):
        env.step(0)


def test_vec_envs__float_actions_and_no_envs_are_refused():
    from train.dice.vec import KostkyVecEnv
    from train.zolik_vec import ZolikVecEnv

    env = ZolikVecEnv(2)
    env.reset()
    with pytest.raises(ValueError, match="expected integer action ids"):
        env.step(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got 0"):
        ZolikVecEnv(0)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        KostkyVecEnv(0)


@pytest.mark.parametrize("seat", [7, -1, "me", True])
def test_zolik_aec__render_seat_must_be_a_seat(seat):
    with pytest.raises(ValueError, match=r"render_seat=.*choose a seat in 0..1"):
        zolik_v0.raw_env(render_seat=seat)
    assert zolik_v0.raw_env(render_seat=1).render_seat == 1
