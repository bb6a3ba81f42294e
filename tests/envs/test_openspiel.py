"""``zolik_env.openspiel``: Žolík as the OpenSpiel game ``python_zolik``.

OpenSpiel's own checks (``random_sim_test`` with serialization), its ISMCTS and random bots
playing whole deals, the adapter against the core dealt the same pack, and the
information-state strings against the kit's infoset keys.
"""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
zo = pytest.importorskip("zolik_env.openspiel")

from open_spiel.python.algorithms import ismcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from zolik_env.envs.zolik_common import shape_rewards  # noqa: E402
from zolik_env.rummy import game as core  # noqa: E402
from zolik_env.rummy.belief import infoset_key  # noqa: E402
from zolik_env.rummy.cards import NUM_KINDS, cards_of, deck_counts  # noqa: E402
from zolik_env.rummy.dealing import deal_stock  # noqa: E402

TABLES = [("cz", 2), ("sk", 3), ("jolly", 4)]


def load(preset, players):
    return pyspiel.load_game("python_zolik", {"preset": preset, "players": players})


def chance_step(state, rs):
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(int(rs.choice(actions, p=probs)))


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_random_sim_test__passes_with_serialization(preset, players):
    pyspiel.random_sim_test(load(preset, players), num_sims=2, serialize=True, verbose=False)


def test_game__parameters_name_every_preset_and_table_size():
    for preset in ("cz", "sk", "jolly"):
        for players in (2, 3, 4):
            game = load(preset, players)
            assert game.num_players() == players
            assert game.get_parameters()["preset"] == preset
            assert game.num_distinct_actions() == core.A.NUM_ACTIONS
            assert game.max_chance_outcomes() == NUM_KINDS


@pytest.mark.parametrize("params", [{"preset": "xx"}, {"players": 5}, {"players": 1},
                                    {"reward": "money"}])
def test_game__bad_parameter_is_a_value_error_naming_it(params):
    with pytest.raises(ValueError, match=str(next(iter(params.values())))):
        zo.ZolikGame(params)


@pytest.mark.parametrize(("preset", "players", "deals"), [("cz", 2, 2), ("sk", 3, 2),
                                                          ("jolly", 4, 1)])
def test_ismcts_and_random_bots__play_whole_deals(preset, players, deals):
    game = load(preset, players)
    for deal in range(deals):
        rs = np.random.RandomState(deal)
        bots = [ismcts.ISMCTSBot(game, zo.HandPointsEvaluator(), 2.0, 6, random_state=rs)]
        bots += [uniform_random.UniformRandomBot(p, rs) for p in range(1, players)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance_step(state, rs)
            else:
                action = bots[state.current_player()].step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
        returns = state.returns()
        assert len(returns) == players and abs(sum(returns)) < 1e-9


def play_recorded(game, seed):
    """A random deal through the adapter: ``(deal outcomes, draw outcomes before any jolly
    reshuffle, [(action, legal actions)], returns, stopped early)``."""
    rs = np.random.RandomState(seed)
    state = game.new_initial_state()
    dealt, draws, moves = [], [], []
    while not state.is_terminal():
        if state.is_chance_node():
            before = len(state.history())
            chance_step(state, rs)
            outcome = state.history()[before]
            if state.core is None or len(dealt) < state._deal_size():
                dealt.append(outcome)
            elif state.rules.stock_rebuild == "shuffle" and int(state.core.rebuilds[0]):
                return dealt, draws, moves, None, True
            else:
                draws.append(outcome)
            continue
        if state.rules.stock_rebuild == "shuffle" and int(state.core.rebuilds[0]):
            return dealt, draws, moves, None, True
        legal = state.legal_actions()
        action = int(rs.choice(legal))
        moves.append((action, legal))
        state.apply_action(action)
    return dealt, draws, moves, state.returns(), False


def pack_of(rules, dealt, draws):
    """The shuffled pack the chance outcomes imply: cut cards at the bottom, the stock with
    the cards drawn on top in drawing order, the dealt cards on top in dealing order."""
    cut = rules.cut_cards
    left = deck_counts(rules.num_jokers).astype(np.int64)
    for kind in [*dealt, *draws]:
        left[kind] -= 1
    middle = [*cards_of(left), *draws[::-1]]
    return np.array([*dealt[:cut], *middle, *dealt[cut:][::-1]], np.int8)


@pytest.mark.parametrize(("preset", "players"), [*TABLES, ("cz", 4), ("sk", 2), ("jolly", 2)])
def test_adapter__legal_actions_and_returns_equal_the_cores(preset, players):
    game = load(preset, players)
    rules = game.rules
    states = 0
    for seed in range(3):
        dealt, draws, moves, returns, stopped = play_recorded(game, seed)
        pack = pack_of(rules, dealt, draws)
        state = deal_stock(rules, pack[None], np.zeros(1, np.uint64))
        for action, legal in moves:
            assert np.flatnonzero(core.legal_action_mask(rules, state)[0]).tolist() == legal
            state, out = core.step(rules, state, [action])
            states += 1
        if not stopped:
            assert bool(state.done[0])
            expected = shape_rewards(rules, out.rewards, state.winner.astype(np.int64), "score")
            assert np.allclose(expected[0], returns)
    assert states > 100


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_information_state_strings__equal_exactly_when_infoset_keys_are(preset, players):
    game = load(preset, players)
    rs = np.random.RandomState(1)
    seen = {}  # string -> key
    state, checked = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            chance_step(state, rs)
            continue
        for seat in range(players):
            text = state.information_state_string(seat)
            key = infoset_key(game.rules, state.core, seat)
            assert seen.setdefault(text, key) == key
        if len(state.history()) % 7 == 0:  # a world the seat to act cannot tell apart
            seat = state.current_player()
            world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0, 1))
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.legal_actions() == state.legal_actions()
            checked += 1
        state.apply_action(int(rs.choice(state.legal_actions())))
    keys = list(seen.values())
    assert len(set(keys)) == len(keys) == len(seen)  # distinct keys, distinct strings
    assert checked > 3


def test_tensors__are_the_kits_observation():
    game = load("sk", 3)
    rs = np.random.RandomState(2)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.history()) < 120:
        if state.is_chance_node():
            chance_step(state, rs)
        else:
            state.apply_action(int(rs.choice(state.legal_actions())))
    for seat in range(3):
        expected = core.observe(game.rules, state.core, seat)[0].astype(np.float32)
        assert np.array_equal(np.asarray(state.observation_tensor(seat)), expected)
        assert np.array_equal(np.asarray(state.information_state_tensor(seat)), expected)
        assert "cards" in state.observation_string(seat)
