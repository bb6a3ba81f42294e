"""``zolik_v0``: PettingZoo peer suites, reward credit, ends, matches, bad input."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from zolik_env import zolik_v0
from zolik_env.envs.zolik_common import SCORE_SCALE
from zolik_env.rummy import actions, game, options

SHORT = {"max_turns": 12}  # deals cut off after 12 turns keep the suites quick
CONFIGS = [(preset, players) for preset in options.PRESETS for players in (2, 3, 4)]


def play(env, seed, chooser=None):
    """Play ``env`` to its end; returns each agent's reward and info at its end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finals, infos = {}, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent], infos[agent] = reward, info
            env.step(None)
            continue
        mask = obs["action_mask"]
        env.step(chooser(mask) if chooser else int(rng.choice(np.flatnonzero(mask))))
    return finals, infos


@pytest.mark.parametrize(("preset", "players"), CONFIGS, ids=str)
def test_zolik_v0__pettingzoo_api_and_seed_tests(preset, players):
    make = lambda: zolik_v0.env(rules=preset, num_players=players, rule_options=SHORT)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observations draw advisory warnings
        api_test(make(), num_cycles=40)
        seed_test(make, num_cycles=40)


def test_zolik_v0__api_test_over_whole_deals():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(zolik_v0.env(rules="sk", num_players=2), num_cycles=1000)


def test_zolik_v0__render_test_and_card_notation():
    render_test(lambda render_mode: zolik_v0.env(num_players=3, render_mode=render_mode))
    env = zolik_v0.env(rules="jolly", render_mode="ansi", render_seat="all")
    env.reset(seed=1)
    text = env.render()
    assert "seat 0 (not opened):" in text and "seat 1 (not opened):" in text
    assert "cards" not in text.splitlines()[-1]  # spectator view: cards, not counts
    env = zolik_v0.env(rules="jolly", render_mode="ansi")
    env.reset(seed=1)
    assert env.render().splitlines()[-1].endswith("13 cards")  # seat 1 hidden from seat 0


@pytest.mark.parametrize("mode", ["score", "win_loss"])
def test_zolik_v0__each_agent_gets_its_own_seats_reward(mode):
    env = zolik_v0.env(rules="sk", num_players=3, reward=mode)
    for seed in range(6):
        finals, infos = play(env, seed)
        state = env.unwrapped.core_state
        scores = game.rewards_of(env.unwrapped.rules, state)[0].astype(float)
        winner = int(state.winner[0])
        for p in range(3):
            if mode == "score":
                want = (scores[p] - scores.mean()) / SCORE_SCALE
            else:
                want = 0.0 if winner < 0 else (1.0 if p == winner else -0.5)
            assert finals[f"player_{p}"] == pytest.approx(want)
        assert sum(finals.values()) == pytest.approx(0.0)
        assert infos["player_0"]["deal_scores"] == state.scores[0].tolist()
        if winner >= 0 and len(set(scores)) > 1:
            break
    assert winner >= 0 and len(set(finals.values())) > 1  # the check could tell seats apart


def test_zolik_v0__cut_off_deal_is_truncated_not_terminated():
    env = zolik_v0.env(rules="cz", rule_options={"max_turns": 6})
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert env.unwrapped.core_state.truncated[0] and int(env.unwrapped.core_state.turn[0]) == 6


def test_zolik_v0__reset_reseeds_only():
    env = zolik_v0.env(rules="sk", num_players=3, rule_options={"opening_points": 60},
                       reward="win_loss")
    raw = env.unwrapped
    rules, mode = raw.rules, raw.reward_mode
    env.reset(seed=1)
    first = raw.core_state.hands.copy()
    env.reset(seed=2)
    assert not np.array_equal(first, raw.core_state.hands)
    env.reset()
    assert raw.rules is rules and raw.reward_mode == mode == "win_loss"
    assert raw.rules.opening_points == 60 and raw.rules.num_players == 3
    env.reset(seed=1)
    assert np.array_equal(first, raw.core_state.hands)


def test_zolik_v0__match_plays_deals_with_rotating_start_until_over():
    opts = {"max_turns": 8, "match_deals": 3}
    env = zolik_v0.env(rules="cz", num_players=3, rule_options=opts, match=True)
    finals, _ = play(env, 4)
    raw = env.unwrapped
    assert len(raw.deal_scores) == 3
    starts = [r["deal_index"] for r in raw.recorder.records if r["kind"] == "deal"]
    assert starts == [0, 1, 2]
    seats = [r["seat"] for r in raw.recorder.records if r["kind"] == "move" and r["turn"] == 0]
    assert seats[0] == 0 and seats[-1] == 2
    assert set(finals) == {"player_0", "player_1", "player_2"}


def test_zolik_v0__match_rewards_every_deal():
    opts = {"max_turns": 4, "match_deals": 2, "match_target": 0}
    env = zolik_v0.raw_env(rules="jolly", rule_options=opts, match=True)
    env.reset(seed=0)
    paid = []
    while not any(env.terminations.values()):
        deals = len(env.deal_scores)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
        if len(env.deal_scores) > deals:
            paid.append(dict(env.rewards))
    assert len(paid) == 2 and all(any(r.values()) for r in paid)
    assert not any(env.truncations.values())


def test_zolik_v0__illegal_move_ends_the_game_with_minus_one_for_the_mover():
    env = zolik_v0.env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(actions.DRAW_STOCK)  # cz: the starter discards first; drawing is illegal
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(env.terminations.values())


def test_zolik_v0__raw_env_names_bad_moves():
    env = zolik_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"player_0: illegal move 'draw stock' \(action 0\)"):
        env.step(actions.DRAW_STOCK)
    with pytest.raises(ValueError, match="action 9999 out of range"):
        env.step(9999)
    with pytest.raises(ValueError, match="expected an action id"):
        env.step(None)
    with pytest.raises(AssertionError):
        zolik_v0.env().step(9999)  # OrderEnforcing: reset first


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rules": "hu"}, "unknown preset 'hu'"),
    ({"rule_options": {"jokers": 3}}, "unknown rule option.*'jokers'"),
    ({"rule_options": {"opening_points": 999}}, "opening_points=999 out of range"),
    ({"num_players": 5}, "num_players=5 not supported"),
    ({"num_players": 1}, "num_players=1 not supported"),
    ({"rule_options": {"num_players": 3}}, "pass num_players as its own argument"),
    ({"reward": "points"}, "reward='points' unknown"),
    ({"render_mode": "rgb"}, "render_mode='rgb' unknown"),
])
def test_zolik_v0__bad_arguments_raise_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        zolik_v0.env(**kwargs)


def test_zolik_v0__a_numpy_player_count_is_a_player_count():
    import numpy as np

    env = zolik_v0.env(num_players=np.int64(3))
    env.reset(seed=0)
    assert len(env.agents) == 3
    with pytest.raises(ValueError, match="num_players=5 not supported"):
        zolik_v0.env(num_players=np.int64(5))


def test_last__answers_as_the_standard_wrappers_do():
    """``wrap``'s wrappers read the unwrapped env directly: the same answers as
    PettingZoo's wrapper chain on every decision of a deal, after an illegal move, and the
    same errors before reset and for an action outside the space."""
    from pettingzoo.utils import wrappers

    fast = zolik_v0.env()
    standard = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(zolik_v0.raw_env(), illegal_reward=-1)))
    for env in (fast, standard):
        with pytest.raises(AttributeError, match="before reset"):
            env.last()
        env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(300):
        got, want = fast.last(), standard.last()
        np.testing.assert_array_equal(got[0]["observation"], want[0]["observation"])
        np.testing.assert_array_equal(got[0]["action_mask"], want[0]["action_mask"])
        assert got[1:] == want[1:]
        if got[2] or got[3]:
            break
        move = int(rng.choice(np.flatnonzero(got[0]["action_mask"])))
        fast.step(move)
        standard.step(move)
    illegal = int(np.flatnonzero(fast.last()[0]["action_mask"] == 0)[0])
    for env in (fast, standard):  # TerminateIllegal: the game ends, -1 for the mover
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.step(illegal)
    assert fast.last()[1:] == standard.last()[1:]
    assert fast.unwrapped.rewards == standard.unwrapped.rewards
    assert any(fast.unwrapped.terminations.values())
    fast.reset(seed=1)
    with pytest.raises(AssertionError, match="action space"):  # AssertOutOfBounds
        fast.step(10**6)


