"""agents.features.card_features: the planner's per-card terms, batched, from the observation."""

import numpy as np
import pytest

from agents import obs_view as ov
from agents.features import card_features as cf
from agents.features import hand_features as hf
from agents.features.rules_of_thumb import danger_weights
from agents.registry import make_agent
from tests.agents.planner_reference.table_model import decode_table, joker_fit, natural_fit
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import JOKER, NUM_NATURALS
from zolik_env.rummy.observe import observe

from .card_terms_reference import danger, keep_value


def played_positions(rule_set, deals=16, moves=240, every=8, seed=0):
    """Observations of the seat to act along greedy self-play (tables fill up)."""
    rng = np.random.default_rng(seed)
    agent = make_agent("greedy", rule_set)
    state = game.init(rule_set, np.arange(deals) + 1000 * seed)
    out = []
    for t in range(moves):
        seats = state.current.astype(np.int64)
        obs = observe(rule_set, state, seats)
        if t % every == 0:
            out.append(obs)
        mask = game.legal_action_mask(rule_set, state)
        state, _ = game.step(rule_set, state, agent.act_batch(obs, mask, rng))
    return np.concatenate(out)


def one_by_one(row, rule_set):
    """The features of one observation from the readable per-card oracle."""
    view = ov.decode(row, rule_set)
    out = np.zeros(cf.CARD_FEATURES, np.int64)
    if ov.phase(view) == ov.PHASE_OVER:
        return out
    hand, table = view["hand"].astype(np.int64), decode_table(view)
    for kind in range(NUM_NATURALS):
        out[cf.KEEP][kind] = round(cf.STORE * keep_value(kind, hand, view["unseen"]))
        out[cf.DANGER][kind] = round(cf.STORE * danger(
            kind, view["known_taken"], view["opened"], table, danger_weights(rule_set)))
        out[cf.FITS][kind] = any(natural_fit(m, kind) is not None for m in table)
    out[cf.FITS][JOKER] = any(joker_fit(m, rule_set) is not None for m in table)
    return out


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 4), ("jolly", 3)])
def test_batched_features_equal_the_planners_per_card_terms(preset, players):
    rule_set = rules.preset(preset, num_players=players)
    obs = played_positions(rule_set, seed=players)
    got = cf.card_features(obs, rule_set)
    want = np.stack([one_by_one(row, rule_set) for row in obs])
    assert got.shape == (len(obs), cf.CARD_FEATURES)
    np.testing.assert_array_equal(got, want)
    # the sample reaches the interesting cases: cards that lay off, cards that feed
    assert got[:, cf.FITS].any() and got[:, cf.DANGER].any() and got[:, cf.KEEP].any()


def test_hand_plus_cards_puts_the_card_features_before_the_hand_features():
    rule_set = rules.preset("cz")
    obs = played_positions(rule_set, deals=4, moves=40)
    both = hf.augment(obs, rule_set, "hand+cards")
    width = obs.shape[1]
    assert both.shape[1] == width + hf.feature_size("hand+cards")
    np.testing.assert_array_equal(both[:, width:width + cf.CARD_FEATURES],
                                  cf.card_features(obs, rule_set))
    # the plan prior reads the last HAND_FEATURES entries: they stay the hand features
    np.testing.assert_array_equal(both[:, -hf.HAND_FEATURES:], hf.hand_features(obs, rule_set))
    assert hf.feature_scale("hand+cards").shape == (hf.feature_size("hand+cards"),)
    assert hf.augmented_space(rule_set, "hand+cards").contains(both[0])
    assert hf.has_hand_features("hand+cards") and not hf.has_hand_features("")


def test_each_row_is_computed_on_its_own():
    """A row's features do not depend on the other rows of the batch."""
    rule_set = rules.preset("cz")
    obs = played_positions(rule_set, deals=4, moves=40)
    np.testing.assert_array_equal(cf.card_features(obs[:1], rule_set),
                                  cf.card_features(obs, rule_set)[:1])
