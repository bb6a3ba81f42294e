"""PettingZoo and Gymnasium conventions of both games' envs: int8 masks that
``action_space.sample(mask=...)`` takes, ids registered by ``import zolik_env``, the AEC
``state()`` and ``state_space``, real constructor signatures, one ``num_players``, and
``rgb_array`` images that show no more than the viewing seat may know."""

import dataclasses
import inspect
import json
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, render_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test

import zolik_env  # noqa: F401 (registers the ids)
from zolik_env import kostky_v0, zolik_v0
from zolik_env.dice import observe as dice_observe
from zolik_env.envs import kostky_aec, zolik_aec
from zolik_env.envs.kostky import KostkyEnv
from zolik_env.envs.zolik_gym import ZolikEnv
from zolik_env.rummy.observe import obs_slices

GYM_IDS = {"zolik/Zolik-v0": {"num_players": 3}, "zolik/Kostky-v0": {"joker": "forced"}}
AEC = {"zolik_v0": (zolik_v0, {"rules": "sk", "num_players": 3,
                                "rule_options": {"max_turns": 12}}),
       "kostky_v0": (kostky_v0, {"num_players": 2, "joker": "forced"})}


# -- masks -------------------------------------------------------------------------------

@pytest.mark.parametrize("env_id", sorted(GYM_IDS))
def test_gym_envs__int8_masks_drive_action_space_sample(env_id):
    env = gym.make(env_id, **GYM_IDS[env_id])
    _, info = env.reset(seed=0)
    for step in range(60):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
        assert np.array_equal(mask, env.unwrapped.action_masks())
        action = env.action_space.sample(mask=mask)
        assert mask[action] == 1, (step, action)
        _, _, term, trunc, info = env.step(action)
        assert "illegal_action" not in info
        if term or trunc:
            assert info["action_mask"].dtype == np.int8 and not info["action_mask"].any()
            _, info = env.reset(seed=step)


@pytest.mark.parametrize("name", sorted(AEC))
def test_aec_envs__int8_masks_drive_action_space_sample(name):
    module, kwargs = AEC[name]
    env = module.env(**kwargs)
    env.reset(seed=1)
    for agent in env.agent_iter(200):
        obs, _, term, trunc, _ = env.last()
        assert obs["action_mask"].dtype == np.int8
        action = None if term or trunc else env.action_space(agent).sample(
            mask=obs["action_mask"])
        assert action is None or obs["action_mask"][action] == 1
        env.step(action)


# -- registration ------------------------------------------------------------------------

@pytest.mark.parametrize("first", ["import zolik_env; import gymnasium",
                                   "import gymnasium; import zolik_env"])
def test_import_zolik_env__registers_the_gym_ids_without_training_libraries(first, tmp_path):
    probe = (f"{first}; import json, sys; gymnasium.make('zolik/Zolik-v0').reset(seed=0); "
             "gymnasium.make('zolik/Kostky-v0').reset(seed=0); "
             "gymnasium.make('zolik_env.envs:zolik/Kostky-v0'); "
             "print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert not loaded & {"torch", "stable_baselines3", "sb3_contrib", "agents", "train"}


# -- state -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(AEC))
def test_aec_envs__state_passes_pettingzoo_state_tests(name):
    module, kwargs = AEC[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = module.env(**kwargs)
        pz_state_space_test(env)
        pz_state_test(env, num_cycles=50)
        api_test(module.env(**kwargs), num_cycles=50)
    env.reset(seed=3)
    state = env.state()
    assert state.shape == env.state_space.shape and state.dtype == env.state_space.dtype


def test_zolik_v0__state_is_the_privileged_view_with_every_hand():
    env = zolik_v0.env(num_players=3)
    env.reset(seed=2)
    state = env.state()
    raw = env.unwrapped
    assert raw.state_space.shape == (1463,)
    bounds = {name: (start, stop) for name, start, stop in obs_slices(raw.rules, True)}
    start, stop = bounds["all_hands"]
    assert np.array_equal(state[start:stop].reshape(3, 53), raw.core_state.hands[0])
    observation = env.observe("player_0")["observation"]
    assert np.array_equal(state[:observation.size], observation)  # seat 0's view first


def test_kostky_v0__state_is_every_seats_observation_and_the_seat_to_act():
    env = kostky_v0.env(num_players=3)
    env.reset(seed=2)
    env.step(31 + 12)  # player_0 fills chance: player_1 is to act
    raw = env.unwrapped
    size = env.observation_space("player_0")["observation"].shape[0]
    state = env.state()
    assert state.shape == (3 * size + 3,)
    for seat in range(3):
        expected = dice_observe(raw.rules, raw.core_state, seat)[0]
        assert np.array_equal(state[seat * size:(seat + 1) * size], expected)
    assert state[-3:].tolist() == [0.0, 1.0, 0.0]


# -- signatures and names ----------------------------------------------------------------

@pytest.mark.parametrize(("wrapped", "raw"), [(zolik_v0.env, zolik_v0.raw_env),
                                              (kostky_v0.env, kostky_v0.raw_env)])
def test_env_constructors__have_real_signatures_and_docstrings(wrapped, raw):
    params = inspect.signature(wrapped).parameters
    assert "kwargs" not in params and "num_players" in params
    assert params == inspect.signature(raw).parameters  # env and raw_env agree
    for name in params:
        assert f"{name}:" in wrapped.__doc__, name
    assert "**kwargs" not in str(inspect.signature(wrapped))
    assert zolik_v0.env is zolik_aec.env and kostky_v0.env is kostky_aec.env


def test_num_players__is_the_name_in_every_constructor():
    for constructor in (zolik_v0.env, zolik_v0.raw_env, kostky_v0.env, kostky_v0.raw_env,
                        ZolikEnv, KostkyEnv):
        assert "num_players" in inspect.signature(constructor).parameters, constructor
    for make in (kostky_v0.env, kostky_v0.raw_env):
        with pytest.warns(DeprecationWarning, match="'players' is deprecated"):
            old = make(players=3)
        assert len(old.possible_agents) == 3
    assert gym.make("zolik/Kostky-v0", num_players=1).unwrapped.rules.num_players == 1
    with pytest.raises(ValueError, match="solitaire"):
        KostkyEnv(num_players=2)


# -- rgb_array ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(AEC))
def test_aec_envs__render_test_with_rgb_array(name):
    module, kwargs = AEC[name]
    render_test(lambda render_mode: module.env(**kwargs, render_mode=render_mode))
    env = module.env(**kwargs, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 3  # something is drawn


@pytest.mark.parametrize("env_id", sorted(GYM_IDS))
def test_gym_envs__rgb_array_passes_the_render_check(env_id):
    env = gym.make(env_id, render_mode="rgb_array", **GYM_IDS[env_id])
    gym_check_env(env.unwrapped)
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3
    env.step(env.action_space.sample(mask=env.unwrapped.action_masks()))
    assert env.render().shape == first.shape  # one size for the whole episode


def _swap_hidden_card(state, seat):
    """``state`` with one card of ``seat``'s hand exchanged for a different kind from the
    stock: the same counts everywhere, other hidden cards."""
    hands, stock = state.hands.copy(), state.stock.copy()
    held = int(np.flatnonzero(hands[0, seat])[0])
    pos = next(i for i in range(int(state.stock_len[0])) if stock[0, i] != held)
    other = int(stock[0, pos])
    hands[0, seat, held] -= 1
    hands[0, seat, other] += 1
    stock[0, pos] = held
    return state.replace(hands=hands, stock=stock)


@pytest.mark.parametrize("players", [2, 4])
def test_zolik_images__other_seats_hidden_cards_change_no_pixel(players):
    env = zolik_v0.raw_env(rules="jolly", num_players=players, render_mode="rgb_array",
                           render_seat=0)
    env.reset(seed=5)
    before = env.render()
    env.core_state = _swap_hidden_card(env.core_state, seat=1)
    assert np.array_equal(env.render(), before)  # byte-identical for seat 0
    env.render_seat = 1  # the changed hand's own view does change
    changed = env.render()
    env.core_state = _swap_hidden_card(env.core_state, seat=1)
    assert not np.array_equal(env.render(), changed)
    gym_env = ZolikEnv(num_players=players, learner_seat=0, render_mode="rgb_array")
    gym_env.reset(seed=5)
    seen = gym_env.render()
    gym_env.state = _swap_hidden_card(gym_env.state, seat=1)
    assert np.array_equal(gym_env.render(), seen)


def test_kostky_images__the_dice_key_changes_no_pixel():
    env = kostky_v0.raw_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=5)
    before = env.render()
    env.core_state = dataclasses.replace(env.core_state, key=env.core_state.key + 1)
    assert np.array_equal(env.render(), before)
    env.step(31 + 12)
    assert not np.array_equal(env.render(), before)


def test_opponents__any_agent_spec_builds_through_the_registered_builder():
    import gymnasium as gym

    from agents.planner.greedy import GreedyPolicy
    from agents.planner.planner import PlannerPolicy

    env = gym.make("zolik/Zolik-v0", rules="cz", num_players=3, opponents=["planner", "greedy"])
    env.reset(seed=3)
    kinds = [type(p) for p in env.unwrapped.opponents]
    assert kinds == [PlannerPolicy, GreedyPolicy]
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        gym.make("zolik/Zolik-v0", opponents="nope")


def test_opponents__without_a_builder_only_random_and_objects_work(monkeypatch):
    import importlib.metadata

    from zolik_env.envs import zolik_common

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    rules = zolik_common.make_rules("cz", 2, None)
    assert len(zolik_common.resolve_opponents("random", rules)) == 1
    with pytest.raises(ValueError, match="no agent builder is installed"):
        zolik_common.resolve_opponents("greedy", rules)
