"""agents.features.hand_features (compiled, batched) against its readable definition, on the
observations of random games, for every preset, both feature versions and seat counts."""

import numpy as np
import pytest

from agents import obs_view as ov
from agents.features import card_features as cf
from agents.features import hand_features as hf
from agents.features.rules_of_thumb import held_for_opening
from agents.search.hand_search import best_melds
from agents.search.meld_table import meld_table
from tests.agents.hand_features_reference import reference_hand_features
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.observe import observe


def random_game_observations(rule_set, seed, deals=16, steps=200):
    """The to-move seat's observation after every step of ``deals`` random deals (random
    legal moves), a few thousand rows of every phase."""
    state = game.init(rule_set, np.arange(seed, seed + deals) * 7919)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(steps):
        rows.append(observe(rule_set, state, state.current.astype(np.int64)))
        moves = game.sample_legal(game.legal_action_mask(rule_set, state), rng)
        state, _ = game.step(rule_set, state, moves)
    return np.concatenate(rows)


def with_meldy_hands(obs, rule_set, seed):
    """``obs`` with every other row's hand replaced by 1-3 melds of the rule set's table
    and 0-2 loose cards (a must-lay card kept in): hands that often meld completely, so
    the version 4 searches without one card are exercised, ties among them included."""
    obs = obs.copy()
    rng = np.random.default_rng(seed)
    cands = meld_table(rule_set).cands
    start, stop = next((a, b) for name, a, b, _ in ov.slices(rule_set) if name == "hand")
    must = next((a, b) for name, a, b, _ in ov.slices(rule_set) if name == "must_use")
    for row in obs[::2]:
        hand = np.zeros(NUM_KINDS, np.int16)
        for i in rng.integers(len(cands), size=int(rng.integers(1, 4))):
            for kind in cands[i].cards:
                hand[kind] = min(2, hand[kind] + 1)
        hand[rng.integers(NUM_KINDS, size=int(rng.integers(0, 3)))] += 1
        hand = np.maximum(hand, row[must[0]:must[1]] > 0)
        row[start:stop] = hand
    return obs


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
@pytest.mark.parametrize("version", [3, 4])
def test_compiled_features_equal_the_readable_definition(preset, players, version):
    rule_set = rules.preset(preset, num_players=players)
    obs = random_game_observations(rule_set, seed=len(preset) * 100 + players)
    obs = with_meldy_hands(obs, rule_set, seed=players)
    got = hf.hand_features(obs, rule_set, version)
    want = reference_hand_features(obs, rule_set, version)
    assert got.dtype == want.dtype == np.int16
    bad = np.flatnonzero((got != want).any(1))
    assert bad.size == 0, f"{bad.size} of {len(obs)} rows differ, first {bad[:5]}"
    # the rows exercised what the features tell apart
    named = dict(zip(hf.SCALARS, got[:, :len(hf.SCALARS)].T, strict=True))
    assert (named["clean_points"] > 0).any() and (named["top_gain"] > 0).any()
    assert (named["can_open"] == 0).any() and (named["can_open"] == 1).any()


@pytest.mark.parametrize("preset", ["cz", "jolly"])
def test_compiled_held_cards_equal_the_hand_search(preset):
    """The batched ``held`` feature (and ``rules_of_thumb.held_for_opening`` row by row,
    the same kernel) against ``best_melds`` with the meld points given as a Python function,
    the search's other path."""
    rule_set = rules.preset(preset)
    obs = random_game_observations(rule_set, seed=5, deals=12, steps=120)
    got = cf.card_features(obs, rule_set, held=True)[:, cf.HELD]
    cols = cf.columns(obs, rule_set)
    for b, row in enumerate(obs):
        view = ov.decode(row, rule_set)
        want = np.zeros(NUM_KINDS, np.int64)
        if ov.phase(view) != ov.PHASE_OVER and view["opened"][ov.OBSERVER] == 0:
            for cand in best_melds(cols["hand"][b], 0, rule_set, lambda c: float(c.points)).melds:
                for kind in cand.naturals:
                    want[kind] += 1
            one_row = held_for_opening(cols["hand"][b][None], np.ones(1, bool), rule_set)[0]
            assert np.array_equal(one_row, want), b
        assert np.array_equal(got[b], want), b
