"""``zolik/Zolik-v0``: Gymnasium and SB3 checkers, seats, opponents, rewards, bad input."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import zolik_env.envs  # noqa: F401 (registers the ids)
from zolik_env.envs.registration import ENV_IDS
from zolik_env.envs.zolik_common import SCORE_SCALE
from zolik_env.envs.zolik_gym import ZolikEnv
from zolik_env.rummy import actions, game


class FirstLegal:
    """A Policy-like opponent with only ``act``: the lowest legal id (never UNDO first)."""

    name = "first"

    def __init__(self):
        self.calls = 0

    def act(self, obs, mask, rng):
        assert obs.dtype == np.int16 and obs.ndim == 1
        self.calls += 1
        return int(np.flatnonzero(mask)[0])


def play(env, seed, rng=None):
    rng = rng or np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps, total, done = 0, 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, reward, term, trunc, info = env.step(action)
        total, steps, done = total + reward, steps + 1, term or trunc
    return total, info, term, trunc, steps


@pytest.mark.parametrize("kwargs", [{}, {"rules": "sk", "num_players": 3},
                                    {"rules": "jolly", "num_players": 4, "reward": "win_loss"}],
                         ids=str)
def test_zolik_env__gymnasium_and_sb3_checkers(kwargs):
    assert ENV_IDS["zolik/Zolik-v0"] == "zolik_env.envs.zolik_gym:ZolikEnv"
    gym_check_env(gym.make("zolik/Zolik-v0", **kwargs).unwrapped, skip_render_check=True)
    sb3_check_env(ZolikEnv(**kwargs))


def test_zolik_env__learner_seat_is_drawn_from_the_seed():
    env = gym.make("zolik/Zolik-v0", num_players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    assert env.reset(seed=7)[1]["seat"] == env.reset(seed=7)[1]["seat"]
    assert np.array_equal(env.reset(seed=7)[0], env.reset(seed=7)[0])
    fixed = gym.make("zolik/Zolik-v0", num_players=4, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {2}


def test_zolik_env__learner_gets_its_seats_reward_and_opponents_play_first():
    opponent = FirstLegal()
    env = gym.make("zolik/Zolik-v0", rules="sk", num_players=2, opponents=[opponent])
    for seed in range(20):
        total, info, _term, _trunc, _ = play(env, seed)
        seat = info["seat"]
        scores = game.rewards_of(env.unwrapped.rules, env.unwrapped.state)[0].astype(float)
        assert total == pytest.approx((scores[seat] - scores.mean()) / SCORE_SCALE)
        assert info["deal_scores"] == env.unwrapped.state.scores[0].tolist()
        if seat == 1 and total != 0:
            break
    assert seat == 1 and opponent.calls > 0  # the learner sat second: the opponent started


def test_zolik_env__cut_off_deal_is_truncated():
    env = ZolikEnv(rule_options={"max_turns": 5})
    _, _info, term, trunc, _ = play(env, 0)
    assert trunc and not term and not env.action_masks().any()
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)


def test_zolik_env__illegal_move_ends_the_episode_with_a_penalty():
    env = ZolikEnv(learner_seat=0, illegal_reward=-2.0)
    env.reset(seed=0)
    _, reward, term, _, info = env.step(actions.DRAW_STOCK)  # the starter must discard
    assert term and reward == -2.0 and info["illegal_action"]
    assert info["illegal_move"].startswith("draw stock (action 0) for seat 0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action 2658 out of range"):
        env.step(actions.NUM_ACTIONS)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"opponents": ["gredy"]}, ValueError, "unknown agent 'gredy'"),
    ({"opponents": ["random", "random"]}, ValueError, "expected 1 opponent"),
    ({"opponents": [object()]}, TypeError, "neither act_batch nor act"),
    ({"learner_seat": 2}, ValueError, "learner_seat=2 is not a seat"),
    ({"rules": "xx"}, ValueError, "unknown preset 'xx'"),
])
def test_zolik_env__bad_arguments_raise_naming_them(kwargs, error, message):
    with pytest.raises(error, match=message):
        ZolikEnv(**kwargs)


def test_zolik_env__agents_registry_policies_are_accepted_as_opponents():
    from agents.registry import make_agent

    env = ZolikEnv(num_players=3, opponents=[make_agent("random", None)] * 2)
    total, *_ = play(env, 3)
    assert isinstance(total, float)


def test_zolik_env__ansi_render_shows_only_the_learners_hand():
    env = ZolikEnv(num_players=3, learner_seat=1, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0 (not opened): 14 cards" in text or "seat 0 (not opened): 15 cards" in text
    assert "seat 1 (not opened): " in text and "cards" not in text.split("seat 1")[1].split("\n")[0]


def test_gym_make__action_masks_works_on_what_make_returns():
    env = gym.make("zolik/Zolik-v0", rules="sk", num_players=3)
    _, info = env.reset(seed=0)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    with pytest.raises(ValueError, match="reset"):  # no order-enforcing wrapper needed
        gym.make("zolik/Zolik-v0").step(0)
    gym_check_env(gym.make("zolik/Zolik-v0"), skip_render_check=True)
