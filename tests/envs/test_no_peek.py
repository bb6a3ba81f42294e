"""No hidden information reaches a seat: counterfactual states that differ only in what
a seat cannot see give it the same observation, legal moves, text view, table image and
replay view (``zolik replay --seat``, on a move legal in both), and the Gymnasium env's
learner the same observation and info entries.

A counterfactual trades one card a seat cannot see, held by another seat since before
the current turn, with a stock card of another kind, in that hand and, for the seat to
act, in its turn-start snapshot (which UNDO restores), and redraws jolly's shuffle key.
The checker is shown to fail on planted leaks, one per place hidden cards live.
"""

import numpy as np
import pytest

from zolik_env.envs import replay
from zolik_env.envs.zolik_aec import raw_env
from zolik_env.envs.zolik_image import table_image
from zolik_env.rummy import actions, game, options, render
from zolik_env.rummy.observe import observe


def hidden_swap(state, seat, rng):
    """A batch-of-one copy of ``state`` differing only in what ``seat`` cannot see, or
    None when no card can trade places (see the module docstring)."""
    d = state.to_dict()
    current = int(d["current"][0])
    stock = d["stock"][0, : int(d["stock_len"][0])]
    choices = []
    for p in range(d["hands"].shape[1]):
        if p == seat:
            continue
        free = d["hands"][0, p].astype(np.int16) - d["known_taken"][0, p]
        if p == current:  # held since the turn began, so also in its snapshot
            free = np.minimum(free, d["snap_hand"][0].astype(np.int16) - d["snap_known"][0])
            free -= d["taken_unlaid"][0]
        for kind in np.flatnonzero(free > 0):
            choices += [(p, int(kind), int(pos)) for pos in np.flatnonzero(stock != kind)]
    if not choices:
        return None
    p, kind, pos = choices[rng.integers(len(choices))]
    other = int(stock[pos])
    d["hands"][0, p, kind] -= 1
    d["hands"][0, p, other] += 1
    d["stock"][0, pos] = kind
    if p == current:
        d["snap_hand"][0, kind] -= 1
        d["snap_hand"][0, other] += 1
    d["rng_key"][0] = np.uint64(rng.integers(2**63))
    return type(state)(**d)


def seat_views(rules, state, seat, move=None, observe_fn=observe,
               mask_fn=game.legal_action_mask, replay_fn=replay.seat_text):
    """Everything the kit shows ``seat`` of a batch-of-one state; with ``move`` (a move
    string), also the line the seat's replay view shows for that move."""
    views = {"observation": observe_fn(rules, state, seat)[0],
             "text": render.render(rules, state, 0, seat),
             "image": table_image(rules, state, seat)}
    if int(state.current[0]) == seat and not state.done[0]:
        views["mask"] = mask_fn(rules, state)[0]
    if move is not None:
        views["replay"] = replay_fn(rules, state, seat, move)
    return views


def common_move(rules, state, other):
    """A move legal in both states (the replay view is compared on the same move), or None."""
    if state.done[0]:
        return None
    both = np.flatnonzero(game.legal_action_mask(rules, state)[0]
                          & game.legal_action_mask(rules, other)[0])
    return actions.action_to_string(int(both[-1])) if both.size else None


def first_leak(rules, states, rng, **fns):
    """``(state index, seat, view)`` of the first view that a counterfactual changes, or
    None; also the number of counterfactuals compared."""
    compared = 0
    for i, state in enumerate(states):
        for seat in range(rules.num_players):
            other = hidden_swap(state, seat, rng)
            if other is None:
                continue
            compared += 1
            move = common_move(rules, state, other)
            before = seat_views(rules, state, seat, move, **fns)
            after = seat_views(rules, other, seat, move, **fns)
            for name in before:
                if not np.array_equal(before[name], after[name]):
                    return (i, seat, name), compared
    return None, compared


def sampled_states(rules, deals=3, every=7, seed=0):
    """Batch-of-one states along random deals, mid-turn ones included."""
    rng = np.random.default_rng(seed)
    out = []
    for deal in range(deals):
        state = game.init(rules, [seed * 100 + deal])
        step = 0
        while not state.done[0]:
            if step % every == 0:
                out.append(state)
            state = game.step(rules, state, game.sample_legal(
                game.legal_action_mask(rules, state), rng))[0]
            step += 1
    return out


CASES = [(preset, players) for preset in options.PRESETS for players in (2, 3, 4)]


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_no_peek__counterfactuals_change_nothing_a_seat_is_shown(preset, players):
    rules = options.preset(preset, num_players=players, max_turns=60)
    leak, compared = first_leak(rules, sampled_states(rules), np.random.default_rng(1))
    assert leak is None
    assert compared >= 40


def test_no_peek__the_aec_env_shows_the_same_to_every_agent():
    env = raw_env("sk", 3)
    env.reset(seed=4)
    rng = np.random.default_rng(2)
    swapped = 0
    for _ in range(120):
        agent = env.agent_selection
        for seat, name in enumerate(env.possible_agents):
            other = hidden_swap(env.core_state, seat, rng)
            if other is None:
                continue
            before = env.observe(name)
            real, env.core_state = env.core_state, other
            after = env.observe(name)
            env.core_state = real
            for key in before:
                np.testing.assert_array_equal(before[key], after[key])
            swapped += 1
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert swapped >= 100


def _leaky_observe(field, rows):
    """``observe`` with a planted leak: ``rows`` of state field ``field`` appended."""
    def leaky(rules, state, seat, **kwargs):
        extra = np.asarray(getattr(state, field)).reshape(state.batch_size, -1)
        return np.concatenate([observe(rules, state, seat, **kwargs),
                               extra[:, rows].astype(np.int16)], axis=1)
    return leaky


@pytest.mark.parametrize(("field", "rows"), [
    ("snap_hand", slice(None)),  # the UNDO snapshot of the seat to act
    ("hands", slice(None)),  # every hand
    ("stock", slice(None)),  # the stock's order
    ("rng_key", slice(None)),  # jolly's shuffle key
])
def test_no_peek__a_planted_leak_is_caught(field, rows):
    rules = options.preset("jolly", num_players=3, max_turns=60)
    leak, _ = first_leak(rules, sampled_states(rules), np.random.default_rng(1),
                         observe_fn=_leaky_observe(field, rows))
    assert leak is not None and leak[2] == "observation"


def test_no_peek__a_replay_view_that_shows_every_hand_is_caught():
    rules = options.preset("cz", num_players=3, max_turns=60)

    def spectator_replay(rules, state, seat, move):  # the table of a spectator: every hand
        return f"{render.render(rules, state, 0)}\n> {move}"

    leak, _ = first_leak(rules, sampled_states(rules), np.random.default_rng(1),
                         replay_fn=spectator_replay)
    assert leak is not None and leak[2] == "replay"


def _hand_lines(text):
    """The hand lines of each seat in a printed replay (``seat N (opened): ...``)."""
    return {seat: [line for line in text.splitlines() if line.startswith(f"seat {seat} (")]
            for seat in range(3)}


def test_replay__the_seat_view_prints_only_that_seats_hand(capsys):
    rules = options.preset("sk", num_players=3, max_turns=40)
    records = replay.record_random(rules, 987_654_321).records
    count = replay.print_game(records, seat=1)
    out = capsys.readouterr().out
    assert count > 0 and out.count("> seat ") == count
    hands = _hand_lines(out)
    assert hands[1] and all(not line.endswith(" cards") for line in hands[1])
    assert hands[0] and all(line.endswith(" cards") for line in hands[0] + hands[2])
    assert str(records[1]["seed"]) not in out
    replay.print_game(records, table=True)  # the spectator's view shows every hand
    assert any(not line.endswith(" cards") for line in _hand_lines(capsys.readouterr().out)[0])
    with pytest.raises(ValueError, match="seat 3 is not a seat"):
        replay.print_game(records, seat=3)


def test_no_peek__a_mask_that_reads_the_stock_is_caught():
    rules = options.preset("cz", num_players=2, max_turns=60)

    def leaky_mask(rules, state):
        mask = game.legal_action_mask(rules, state).copy()
        mask[:, 0] = state.stock[:, 0] % 2 == 0  # legal moves that depend on a hidden card
        return mask

    leak, _ = first_leak(rules, sampled_states(rules), np.random.default_rng(1),
                         mask_fn=leaky_mask)
    assert leak is not None and leak[2] == "mask"


def _gym_views(env):
    """What the Gymnasium env hands its learner now: the observation and every info entry
    (the mask recomputed from the state, as ``step`` does)."""
    env._mask = game.legal_action_mask(env.rules, env.state)[0].astype(np.int8)
    return {"observation": env._obs(),
            **{f"info[{key!r}]": np.asarray(value) for key, value in env._info().items()}}


def _gym_leak(env, steps, rng):
    """The first view a counterfactual of the learner's hidden cards changes, or None; and
    how many counterfactuals were compared."""
    compared = 0
    for _ in range(steps):
        other = hidden_swap(env.state, env.seat, rng)
        if other is not None:
            real = env.state
            before = _gym_views(env)
            env.state = other
            after = _gym_views(env)
            env.state = real
            env._mask = game.legal_action_mask(env.rules, real)[0].astype(np.int8)
            compared += 1
            for key in before:
                if not np.array_equal(before[key], after[key]):
                    return key, compared
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            env.reset(seed=int(rng.integers(1000)))
    return None, compared


@pytest.mark.parametrize("preset", options.PRESETS)
def test_no_peek__the_gym_env_observation_and_info_hide_other_hands(preset):
    from zolik_env.envs.zolik_gym import ZolikEnv

    env = ZolikEnv(rules=preset, num_players=3, opponents="greedy")
    env.reset(seed=3)
    leak, compared = _gym_leak(env, 60, np.random.default_rng(5))
    assert leak is None and compared >= 40


def test_no_peek__a_leak_planted_in_the_gym_info_is_caught(monkeypatch):
    from zolik_env.envs.zolik_gym import ZolikEnv

    honest = ZolikEnv._info
    monkeypatch.setattr(ZolikEnv, "_info", lambda self: {**honest(self),
                                                          "hands": self.state.hands[0]})
    env = ZolikEnv(rules="cz", num_players=2)
    env.reset(seed=3)
    leak, _ = _gym_leak(env, 60, np.random.default_rng(5))
    assert leak == "info['hands']"
