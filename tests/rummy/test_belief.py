"""zolik_env.rummy.belief.sample_worlds: deals a seat cannot tell from the real one."""

import numpy as np
import pytest

from tests.envs.test_no_peek import hidden_swap, sampled_states
from zolik_env.rummy import belief, game, options
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.observe import observe

CASES = [(preset, players) for preset in options.PRESETS for players in (2, 3, 4)]


def decision_points(rules, deals=2, every=5, seed=0):
    """(state, seat) pairs along random deals: the seat to act at any point of its turn,
    and every other seat while the seat to act has not drawn yet."""
    out = []
    for state in sampled_states(rules, deals, every, seed):
        current = int(state.current[0])
        seats = range(rules.num_players) if state.phase[0] == 0 else [current]
        out += [(state, seat) for seat in seats]
    return out


def card_totals(state):
    """int (B, K): every card of each world, wherever it lies."""
    rows = np.arange(state.batch_size)
    stock = np.zeros((state.batch_size, NUM_KINDS), np.int64)
    for b in rows:
        np.add.at(stock[b], state.stock[b, :state.stock_len[b]].astype(np.int64), 1)
    discard = np.zeros_like(stock)
    for b in rows:
        np.add.at(discard[b], state.discard[b, :state.discard_len[b]].astype(np.int64), 1)
    return state.hands.astype(np.int64).sum(1) + stock + discard + state.table_counts


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_worlds__look_the_same_to_the_seat_and_conserve_cards(preset, players):
    rules = options.preset(preset, num_players=players, max_turns=60)
    varied = 0
    for state, seat in decision_points(rules):
        worlds = belief.sample_worlds(rules, state, seat, 6, seed=seat)
        seen = observe(rules, state, np.array([seat]))[0]
        np.testing.assert_array_equal(observe(rules, worlds, np.full(6, seat)),
                                      np.broadcast_to(seen, (6, seen.size)))
        np.testing.assert_array_equal(card_totals(worlds),
                                      np.broadcast_to(card_totals(state), (6, NUM_KINDS)))
        others = [p for p in range(players) if p != seat]
        varied += len({worlds.hands[b, others].tobytes() for b in range(6)}) > 1
        # the worlds are deals the core steps like any batch; the seat to act keeps its moves
        mask = game.legal_action_mask(rules, worlds)
        if seat == state.current[0]:
            np.testing.assert_array_equal(
                mask, np.broadcast_to(game.legal_action_mask(rules, state), mask.shape))
        game.step(rules, worlds, game.sample_legal(mask, np.random.default_rng(0)))
    assert varied >= 10  # the hidden cards really move


def test_worlds__a_seed_repeats_and_hidden_cards_do_not_matter():
    rules = options.preset("jolly", num_players=3, max_turns=60)
    rng = np.random.default_rng(4)
    compared = 0
    for state, seat in decision_points(rules, every=9):
        other = hidden_swap(state, seat, rng)
        if other is None:
            continue
        a = belief.sample_worlds(rules, state, seat, 4, seed=11)
        b = belief.sample_worlds(rules, other, seat, 4, seed=11)
        for name, value in a.to_dict().items():
            np.testing.assert_array_equal(value, getattr(b, name), err_msg=name)
        compared += 1
    assert compared >= 20
    c = belief.sample_worlds(rules, state, seat, 4, seed=12)
    assert not np.array_equal(a.hands, c.hands) or not np.array_equal(a.stock, c.stock)


def test_worlds__a_planted_leak_is_caught():
    """A sampler that copies the true hands would pass the observation check but not the
    counterfactual one: the comparison above can fail."""
    rules = options.preset("cz", num_players=2, max_turns=60)
    rng = np.random.default_rng(4)

    def leaky(rules, state, seat, n, seed):
        worlds = belief.sample_worlds(rules, state, seat, n, seed)
        return worlds.replace(hands=np.broadcast_to(state.hands, worlds.hands.shape).copy())

    caught = False
    for state, seat in decision_points(rules, every=9):
        other = hidden_swap(state, seat, rng)
        if other is not None:
            caught |= not np.array_equal(leaky(rules, state, seat, 2, 0).hands,
                                         leaky(rules, other, seat, 2, 0).hands)
    assert caught


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 0}, "n=0"), ({"n": 2.5}, "n=2.5"), ({"seat": 2}, "seat=2"), ({"seat": -1}, "seat=-1"),
])
def test_worlds__bad_arguments_name_the_value(kwargs, message):
    rules = options.preset("cz")
    state = game.init(rules, [1])
    args = {"seat": 0, "n": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        belief.sample_worlds(rules, state, args["seat"], args["n"], seed=0)


def test_worlds__refuse_a_batch_a_finished_deal_and_another_seats_turn():
    rules = options.preset("cz", max_turns=60)
    with pytest.raises(ValueError, match="batch of one deal, got 2"):
        belief.sample_worlds(rules, game.init(rules, [1, 2]), 0, 2, seed=0)
    state = game.init(rules, [1])
    rng = np.random.default_rng(0)
    mid_turn = None
    while not state.done[0]:
        if state.phase[0] != 0 and mid_turn is None:
            mid_turn = state
        state = game.step(rules, state, game.sample_legal(
            game.legal_action_mask(rules, state), rng))[0]
    with pytest.raises(ValueError, match="the deal is over"):
        belief.sample_worlds(rules, state, 0, 2, seed=0)
    other = 1 - int(mid_turn.current[0])
    with pytest.raises(ValueError, match=f"seat={other} is not to act"):
        belief.sample_worlds(rules, mid_turn, other, 2, seed=0)


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_infoset_key__same_for_what_the_seat_cannot_tell_apart(preset, players):
    rules = options.preset(preset, num_players=players, max_turns=80)
    rng = np.random.default_rng(3)
    keys = {}
    for state, seat in decision_points(rules, every=3):
        key = belief.infoset_key(rules, state, seat)
        worlds = belief.sample_worlds(rules, state, seat, 3, seed=5)
        assert {belief.infoset_key(rules, worlds.take([b]), seat) for b in range(3)} == {key}
        other = hidden_swap(state, seat, rng)
        if other is not None:
            assert belief.infoset_key(rules, other, seat) == key
        # and the other direction: one key, one view
        view = observe(rules, state, np.array([seat]))[0].tobytes()
        assert keys.setdefault(key, view) == view
    assert len(keys) > 50


def test_infoset_key__tells_apart_what_the_seat_saw_differ():
    rules = options.preset("cz", max_turns=60)
    state = game.init(rules, [3])
    seen = set()
    rng = np.random.default_rng(0)
    while not state.done[0]:  # every move, UNDO included, changes what both seats saw
        key = belief.infoset_key(rules, state, 0)
        assert key not in seen
        seen.add(key)
        state = game.step(rules, state, game.sample_legal(
            game.legal_action_mask(rules, state), rng))[0]
    other_seat = belief.infoset_key(rules, game.init(rules, [3]), 1)
    assert other_seat != belief.infoset_key(rules, game.init(rules, [3]), 0)


def test_infoset_key__changes_with_the_seats_own_cards():
    """Trading one of the seat's own cards for a stock card changes its view: the key."""
    rules = options.preset("sk", num_players=3)
    state = game.init(rules, [9])
    d = state.to_dict()
    own = int(np.flatnonzero(d["hands"][0, 0])[0])
    pos = int(np.flatnonzero(d["stock"][0, :d["stock_len"][0]] != own)[0])
    other = int(d["stock"][0, pos])
    d["hands"][0, 0, own] -= 1
    d["hands"][0, 0, other] += 1
    d["stock"][0, pos] = own
    if int(d["current"][0]) == 0:
        d["snap_hand"][0] = d["hands"][0, 0]
    changed = type(state)(**d)
    assert belief.infoset_key(rules, changed, 0) != belief.infoset_key(rules, state, 0)
    assert belief.infoset_key(rules, changed, 1) == belief.infoset_key(rules, state, 1)


def test_infoset_key_and_worlds__after_stock_rebuilds():
    """Big hands empty the stock fast, so random deals reach rebuilds (jolly: reshuffled
    by the hidden key): keys and worlds still hold there."""
    rules = options.preset("jolly", num_players=4, hand_size=20, max_hand_cards=25,
                           max_turns=200)
    rng = np.random.default_rng(6)
    rebuilt = 0
    for state, seat in decision_points(rules, deals=3, every=2):
        if state.rebuilds[0] == 0:
            continue
        rebuilt += 1
        key = belief.infoset_key(rules, state, seat)
        worlds = belief.sample_worlds(rules, state, seat, 3, seed=rebuilt)
        assert {belief.infoset_key(rules, worlds.take([b]), seat) for b in range(3)} == {key}
        seen = observe(rules, state, np.array([seat]))[0]
        np.testing.assert_array_equal(observe(rules, worlds, np.full(3, seat)),
                                      np.broadcast_to(seen, (3, seen.size)))
        other = hidden_swap(state, seat, rng)
        if other is not None:
            assert belief.infoset_key(rules, other, seat) == key
    assert rebuilt >= 10


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_info_state__offers_exactly_the_seats_view(preset, players):
    rules = options.preset(preset, num_players=players, max_turns=60)
    for state, seat in decision_points(rules, deals=1, every=9):
        info = belief.InfoState(rules, state, seat)
        np.testing.assert_array_equal(info.observation(), observe(rules, state, seat)[0])
        mask = info.legal_mask()
        if seat == int(state.current[0]):
            np.testing.assert_array_equal(mask, game.legal_action_mask(rules, state)[0])
        else:
            assert mask.shape == (game.legal_action_mask(rules, state).shape[1],)
            assert not mask.any()  # not its turn: no moves
        assert info.key() == belief.infoset_key(rules, state, seat)
        a, b = info.worlds(3, seed=4), belief.sample_worlds(rules, state, seat, 3, seed=4)
        np.testing.assert_array_equal(a.hands, b.hands)
        np.testing.assert_array_equal(a.stock, b.stock)


def test_info_state__names_a_bad_seat_or_batch():
    rules = options.preset("cz", num_players=2)
    state = game.init(rules, [0, 1])
    with pytest.raises(ValueError, match="seat=2"):
        belief.InfoState(rules, state.take(np.array([0])), 2)
    with pytest.raises(ValueError, match="InfoState takes a batch of one deal, got 2"):
        belief.InfoState(rules, state, 0)
