"""Observations: layout, relative seats, and no hidden information."""

from __future__ import annotations

import numpy as np
import pytest

from zolik_env.rummy import game, options
from zolik_env.rummy.cards import cards_of, counts_of
from zolik_env.rummy.observe import obs_layout, obs_size, observe


def _play(rules, seed, steps):
    state = game.init(rules, [seed])
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = game.legal_action_mask(rules, state)
        if not mask.any():
            break
        state, *_ = game.step(rules, state, game.sample_legal(mask, rng))
    return state


def _reshuffle_hidden(state, seat, rng):
    """A state that differs only in what ``seat`` cannot see: the other hands (sizes and
    publicly known taken cards kept) and the stock's content and order."""
    d = state.to_dict()
    players = d["hands"].shape[1]
    others = [p for p in range(players) if p != seat]
    known = {p: d["known_taken"][0, p].astype(np.int16) for p in others}
    pool = []
    for p in others:
        pool += cards_of(d["hands"][0, p] - known[p])
    stock_len = int(d["stock_len"][0])
    pool += [int(k) for k in d["stock"][0, :stock_len]]
    pool = list(rng.permutation(pool))
    for p in others:
        free = int(d["hands"][0, p].sum() - known[p].sum())
        d["hands"][0, p] = known[p] + counts_of(pool[:free])
        pool = pool[free:]
    d["stock"][0, :stock_len] = pool
    return state.replace(**{k: d[k] for k in ("hands", "stock")})


@pytest.mark.parametrize("preset,players", [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_observe__hidden_cards_do_not_change_the_observation(preset, players):
    rules = options.preset(preset, num_players=players)
    rng = np.random.default_rng(7)
    checked = 0
    for seed, steps in [(1, 60), (2, 150), (3, 260)]:
        state = _play(rules, seed, steps)
        for seat in range(players):
            other = _reshuffle_hidden(state, seat, rng)
            assert not np.array_equal(other.stock, state.stock) or state.stock_len[0] < 2
            np.testing.assert_array_equal(observe(rules, state, seat),
                                          observe(rules, other, seat))
            full_before = observe(rules, state, seat, privileged=True)
            full_after = observe(rules, other, seat, privileged=True)
            if not np.array_equal(other.hands, state.hands):
                assert not np.array_equal(full_before, full_after)
            checked += 1
    assert checked == 3 * players


def test_observe__own_hand_is_visible_and_changes_the_observation():
    rules = options.preset("cz")
    state = _play(rules, 5, 30)
    d = state.to_dict()
    seat = int(state.current[0])
    k = int(np.flatnonzero(d["hands"][0, seat])[0])
    j = next(j for j in range(52) if d["hands"][0, seat, j] == 0)
    d["hands"][0, seat, k] -= 1
    d["hands"][0, seat, j] += 1
    changed = state.replace(hands=d["hands"])
    assert not np.array_equal(observe(rules, state, seat), observe(rules, changed, seat))


def test_observe__layout_sizes_match_the_array():
    for preset in options.PRESETS:
        for players in (2, 3, 4):
            rules = options.preset(preset, num_players=players)
            state = game.init(rules, [0, 1])
            assert observe(rules, state, 0).shape == (2, obs_size(rules))
            assert observe(rules, state, 0, privileged=True).shape == (2, obs_size(rules, True))
            names = [name for name, _ in obs_layout(rules)]
            assert len(names) == len(set(names))
            assert "all_hands" not in names


def _slice(rules, obs, name):
    start = 0
    for n, shape in obs_layout(rules):
        size = int(np.prod(shape))
        if n == name:
            return obs[..., start : start + size].reshape(obs.shape[:-1] + shape)
        start += size
    raise KeyError(name)


def test_observe__seat_axes_start_with_the_observer():
    rules = options.preset("cz", num_players=3)
    state = game.init(rules, [4], deal_index=1)  # seat 1 starts with 15 cards
    sizes = {seat: _slice(rules, observe(rules, state, seat), "hand_sizes")[0].tolist()
             for seat in range(3)}
    assert sizes[1] == [15, 14, 14]
    assert sizes[0] == [14, 15, 14]
    assert sizes[2] == [14, 14, 15]
    to_act = _slice(rules, observe(rules, state, 0), "to_act")[0].tolist()
    assert to_act == [0, 1, 0]


def test_observe__unseen_counts_cover_other_hands_and_stock():
    rules = options.preset("sk", num_players=2)
    state = _play(rules, 11, 80)
    seat = 0
    unseen = _slice(rules, observe(rules, state, seat), "unseen")[0]
    stock = counts_of(state.stock[0, : state.stock_len[0]].tolist())
    np.testing.assert_array_equal(unseen, state.hands[0, 1] + stock)
