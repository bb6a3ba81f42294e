"""``game.step_in_place``, ``game.step_rows_in_place`` and ``game.reset_in_place``: the
same positions and StepOuts as ``step`` (of the rows taken and put back) and
``reset_where``, written into the state they are given; and the AEC env, which steps its
deal in place, hands out copies."""

import numpy as np
import pytest

from zolik_env.envs import zolik_aec
from zolik_env.rummy import game, rules
from zolik_env.rummy.state import FIELD_NAMES


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_step_in_place__plays_exactly_as_step(preset, players):
    r = rules.preset(preset, num_players=players)
    pure = game.init(r, np.arange(5))
    owned = game.init(r, np.arange(5))
    rng = np.random.default_rng(3)
    for _ in range(400):
        actions = game.sample_legal(game.legal_action_mask(r, pure), rng)
        pure, out = game.step(r, pure, actions)
        owned_out = game.step_in_place(r, owned, actions)
        for name in FIELD_NAMES:
            np.testing.assert_array_equal(getattr(owned, name), getattr(pure, name), name)
        for a, b in zip((out.rewards, out.terminated, out.truncated),
                        (owned_out.rewards, owned_out.terminated, owned_out.truncated),
                        strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_step_rows_in_place__plays_exactly_as_take_step_put(preset, players):
    r = rules.preset(preset, num_players=players, max_turns=30)
    pure = game.init(r, np.arange(9))
    owned = game.init(r, np.arange(9))
    rng = np.random.default_rng(4)
    for _ in range(300):
        rows = np.flatnonzero(rng.random(9) < 0.5)  # any subset, finished deals included
        rng.shuffle(rows)
        sub = pure.take(rows)
        actions = game.sample_legal(game.legal_action_mask(r, sub), rng)
        sub, out = game.step(r, sub, actions, validate=False)
        pure.put(rows, sub)
        owned_out = game.step_rows_in_place(r, owned, rows, actions)
        assert (owned.buffer == pure.buffer).all()
        for a, b in zip((out.rewards, out.terminated, out.truncated),
                        (owned_out.rewards, owned_out.terminated, owned_out.truncated),
                        strict=True):
            np.testing.assert_array_equal(a, b)
    assert pure.done.any()
    with pytest.raises(ValueError, match="one action per row"):
        game.step_rows_in_place(r, owned, np.array([0, 1]), np.array([0]))
    with pytest.raises(IndexError, match="outside the batch of 9"):
        game.step_rows_in_place(r, owned, np.array([9]), np.array([0]))
    with pytest.raises(ValueError, match="must be integers"):
        game.step_rows_in_place(r, owned, np.array([0]), np.array([0.5]))
    with pytest.raises(ValueError, match="is not a state of"):
        other = rules.preset(preset, num_players=3 if players == 2 else 2)
        game.step_rows_in_place(other, owned, np.array([0]), np.array([0]))


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("jolly", 3)])
def test_reset_in_place__deals_exactly_as_reset_where(preset, players):
    r = rules.preset(preset, num_players=players)
    state = game.init(r, np.arange(6))
    rng = np.random.default_rng(5)
    for _ in range(30):
        state, _ = game.step(r, state, game.sample_legal(game.legal_action_mask(r, state), rng))
    rows, seeds, deal_index = np.array([4, 1]), [70, 71], [1, 2]
    pure = game.reset_where(r, state, rows, seeds, deal_index)
    owned = state.copy()
    hands = owned.hands
    game.reset_in_place(r, owned, rows, seeds, deal_index)
    assert owned.hands is hands and (owned.buffer == pure.buffer).all()
    fresh = game.init(r, seeds, deal_index)
    assert (owned.take(rows).buffer == fresh.buffer).all()
    kept = np.setdiff1d(np.arange(6), rows)
    assert (owned.take(kept).buffer == state.take(kept).buffer).all()
    game.reset_in_place(r, owned, np.array([], np.int64), [])  # no rows: nothing changes
    assert (owned.buffer == pure.buffer).all()


def test_step_in_place__writes_into_the_given_state_and_checks_moves():
    r = rules.preset("cz")
    state = game.init(r, [0])
    turn = state.turn.copy()
    hands = state.hands
    discard = game.legal_action_mask(r, state)[0].nonzero()[0][-1]
    game.step_in_place(r, state, [discard])
    assert state.hands is hands and state.turn[0] == turn[0] + 1
    with pytest.raises(ValueError, match="illegal move"):
        game.step_in_place(r, state, [discard])  # a discard in the draw phase


def test_aec_env__core_state_is_a_copy_that_stays_as_it_was():
    env = zolik_aec.raw_env()
    env.reset(seed=1)
    kept = env.core_state
    turn = int(kept.turn[0])
    while int(env.core_state.turn[0]) == turn:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert int(kept.turn[0]) == turn and int(env.core_state.turn[0]) == turn + 1


def test_step__finished_deals_may_be_given_any_action():
    """A finished deal's action is ignored, whatever it is (-1 is a common filler)."""
    r = rules.preset("cz")
    state = game.init(r, np.arange(3))
    state = state.replace(terminated=np.array([True, False, False]))
    mask = game.legal_action_mask(r, state)
    live = game.sample_legal(mask, np.random.default_rng(0))
    for filler in (-1, 10**6):
        actions = np.where([True, False, False], filler, live)
        new, _ = game.step(r, state, actions)
        assert (new.hands[0] == state.hands[0]).all() and new.turn[0] == state.turn[0]
        game.step_in_place(r, state.replace(**state.to_dict()), actions)
