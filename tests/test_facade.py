"""Both rules cores speak one dialect: the same four functions with the same call shape,
``step`` returning ``(State, StepOut)``, the seat to act in ``state.current`` and the seat
count in ``rules.num_players``."""

import dataclasses
import inspect

import numpy as np
import pytest

from zolik_env.core import StepOut
from zolik_env.dice import DiceRules
from zolik_env.dice import game as dice_game
from zolik_env.rummy import game as rummy_game
from zolik_env.rummy import rules as rummy_rules

FUNCTIONS = ("init", "legal_action_mask", "step", "observe")
# the leading parameters every core function shares, by name
SHARED = {
    "init": ["rules", "seeds"],
    "legal_action_mask": ["rules", "state"],
    "step": ["rules", "state", "actions", "validate"],
    "observe": ["rules", "state", "seat"],
}
CORES = {
    "rummy": (rummy_game, rummy_rules.preset("cz", num_players=3)),
    "dice": (dice_game, DiceRules(num_players=3, joker="forced")),
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_cores__expose_the_four_functions_with_one_call_shape(function):
    for name, (game, _) in CORES.items():
        assert callable(getattr(game, function, None)), f"{name}.game.{function}"
        assert function in game.__all__, f"{name}.game.__all__ lacks {function}"
        params = list(inspect.signature(getattr(game, function)).parameters)
        assert params[: len(SHARED[function])] == SHARED[function], (name, params)
    step_defaults = {name: inspect.signature(game.step).parameters["validate"].default
                     for name, (game, _) in CORES.items()}
    assert step_defaults == {"rummy": True, "dice": True}


def test_step_out__is_one_frozen_type_with_rewards_terminated_truncated():
    assert [f.name for f in dataclasses.fields(StepOut)] == ["rewards", "terminated", "truncated"]
    assert rummy_game.StepOut is dice_game.StepOut is StepOut
    out = StepOut(np.zeros((1, 2)), np.zeros(1, bool), np.zeros(1, bool))
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.rewards = np.ones((1, 2))


@pytest.mark.parametrize("core", sorted(CORES))
def test_step__returns_state_and_step_out_of_matching_shapes(core):
    game, rules = CORES[core]
    b, p = 4, rules.num_players
    state = game.init(rules, np.arange(b))
    rng = np.random.default_rng(0)
    for _ in range(3):
        mask = game.legal_action_mask(rules, state)
        assert mask.dtype == bool and mask.shape[0] == b
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs = game.observe(rules, state, state.current)
        assert obs.ndim == 2 and obs.shape[0] == b
        state, out = game.step(rules, state, actions)
        assert type(state) is type(game.init(rules, [0]))
        assert isinstance(out, StepOut)
        assert out.rewards.shape == (b, p)
        assert out.terminated.shape == out.truncated.shape == (b,)
        assert out.terminated.dtype == out.truncated.dtype == bool
        assert state.current.shape == (b,) and ((state.current >= 0) & (state.current < p)).all()


def test_step_out__keeps_each_core_s_reward_dtype_and_dice_never_truncates():
    rummy, r = CORES["rummy"]
    state = rummy.init(r, [0])
    action = np.flatnonzero(rummy.legal_action_mask(r, state)[0])[:1]
    assert rummy.step(r, state, action)[1].rewards.dtype == np.float32
    dice, dice_rules = CORES["dice"]
    state = dice.init(dice_rules, [0, 1])
    _, out = dice.step(dice_rules, state, [0, 0])
    assert out.rewards.dtype == np.int32 and not out.truncated.any()


def test_kostky_v0__players_is_a_deprecated_alias_of_num_players():
    from zolik_env import kostky_v0

    with pytest.warns(DeprecationWarning, match="num_players"):
        old = kostky_v0.raw_env(players=3)
    assert old.rules == kostky_v0.raw_env(num_players=3).rules
    assert old.rules.num_players == len(old.possible_agents) == 3
