"""``suits:net=SPEC,views=N`` (``agents.suit_average``): a network averaged over renamings
of the suits. Over all 24 its distribution no longer depends on the suits' names; one
view is the network itself; it sees no hidden card."""

import numpy as np
import pytest

from agents.registry import make_agent
from tests.agents.test_oracle import first_peek
from tests.agents.test_pimc import own_turn_states
from zolik_env.rummy import game, options
from zolik_env.rummy.observe import observe
from zolik_env.rummy.symmetry import (
    SUIT_PERMUTATIONS,
    action_map,
    permute_masks,
    permute_observations,
)

CZ2 = options.preset("cz", num_players=2)


def positions(rules, count=40, seed=3):
    """(obs, mask) of the seat to act along random deals."""
    rng = np.random.default_rng(seed)
    state = game.init(rules, np.arange(8) + 100)
    obs, masks = [], []
    while sum(len(o) for o in obs) < count:
        mask = game.legal_action_mask(rules, state)
        live = ~state.done
        obs.append(observe(rules, state, state.current)[live])
        masks.append(mask[live])
        moves = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        state = game.step(rules, state, moves)[0]
    return np.concatenate(obs)[:count], np.concatenate(masks)[:count]


def test_every_view__the_distribution_is_the_renamed_positions_renamed():
    agent = make_agent("suits:net=pretrained:cz_2p:argmax,views=24", CZ2)
    obs, mask = positions(CZ2)
    here = agent.probabilities(obs, mask)
    for perm in (SUIT_PERMUTATIONS[5], SUIT_PERMUTATIONS[23]):
        there = agent.probabilities(permute_observations(CZ2, obs, perm),
                                    permute_masks(mask, perm))
        np.testing.assert_allclose(there[:, action_map(perm)], here, atol=1e-9)
    net = make_agent("pretrained:cz_2p:argmax", CZ2)
    renamed = net.probabilities(permute_observations(CZ2, obs, SUIT_PERMUTATIONS[5]),
                                permute_masks(mask, SUIT_PERMUTATIONS[5]))
    assert not np.allclose(renamed[:, action_map(SUIT_PERMUTATIONS[5])],
                           net.probabilities(obs, mask), atol=1e-3)  # the network alone is not


def test_one_view__is_the_network_and_the_move_is_legal_and_its_likeliest():
    obs, mask = positions(CZ2)
    one = make_agent("suits:net=pretrained:cz_2p:argmax,views=1", CZ2)
    net = make_agent("pretrained:cz_2p:argmax", CZ2)
    np.testing.assert_allclose(one.probabilities(obs, mask), net.probabilities(obs, mask))
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(one.act_batch(obs, mask, rng), net.act_batch(obs, mask, rng))
    four = make_agent("suits:net=pretrained:cz_2p:argmax", CZ2)
    moves = four.act_batch(obs, mask, rng)
    assert mask[np.arange(len(moves)), moves].all()
    np.testing.assert_array_equal(moves, np.argmax(four.probabilities(obs, mask), 1))


def test_no_peek__hidden_cards_change_no_move():
    pairs = own_turn_states(CZ2, deals=2)[:30]  # the bot's own rules: no turn limit
    assert len(pairs) >= 20
    assert first_peek(lambda: make_agent("suits:net=pretrained:cz_2p:argmax", CZ2), CZ2,
                      pairs) is None


@pytest.mark.parametrize(("spec", "message"), [
    ("suits:views=4", "give the network"),
    ("suits:net=planner", "gives no move distribution"),
    ("suits:net=pretrained:cz_2p,views=25", "views=25 must be 1 to 24"),
    ("suits:net=pretrained:cz_2p,views=two", "views='two' is not a number"),
    ("suits:net=pretrained:cz_2p,copies=2", "is not KEY=VALUE with KEY one of net, views"),
])
def test_bad_specs__are_one_line_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, CZ2)


def test_a_bot_that_averages_already__is_averaged_from_its_network_alone():
    """``suits:net=pretrained:cz_2p,views=4`` means the same agent whether the bot plays
    its network alone or averaged (as ``pretrained:cz_2p`` does since its export with
    ``--views 4``): the network over 4 renamings, not 4 renamings of an average."""
    obs, mask = positions(CZ2)
    from_bot = make_agent("suits:net=pretrained:cz_2p:views=4,views=4", CZ2)
    from_net = make_agent("suits:net=pretrained:cz_2p:argmax,views=4", CZ2)
    assert not hasattr(from_bot.net, "renamings")  # the network, not the bot's average
    np.testing.assert_array_equal(from_bot.probabilities(obs, mask),
                                  from_net.probabilities(obs, mask))
    one = make_agent("suits:net=pretrained:cz_2p:views=4,views=1", CZ2)  # not the bot's 4
    alone = make_agent("pretrained:cz_2p:argmax", CZ2)
    np.testing.assert_array_equal(one.probabilities(obs, mask), alone.probabilities(obs, mask))


def test_stacked_views__are_the_mean_of_one_call_per_view_in_chunks_of_any_size(monkeypatch):
    """The renamed positions go through the network as one batch (``STACKED_ROWS`` rows at
    a time); the distribution is the mean of asking the network once per renaming."""
    import agents.suit_average as suit_average

    obs, mask = positions(CZ2, count=40)
    net = make_agent("pretrained:cz_2p:argmax", CZ2)
    agent = suit_average.SuitAveraged(net, CZ2, views=4)
    by_view = np.mean([net.probabilities(permute_observations(CZ2, obs, p),
                                         permute_masks(mask, p))[:, action_map(p)]
                       for p in agent.renamings], axis=0)
    np.testing.assert_allclose(agent.probabilities(obs, mask), by_view, atol=1e-6)
    monkeypatch.setattr(suit_average, "STACKED_ROWS", 7)  # 6 chunks of 6 or 7 rows
    np.testing.assert_allclose(agent.probabilities(obs, mask), by_view, atol=1e-6)
    np.testing.assert_array_equal(agent.probabilities(obs[:1], mask[:1]).shape, (1, mask.shape[1]))
