"""agents.learned.discard_head: one small network shared by the card kinds that scores each
discard; a new head changes no move, it reads each card's own situation, and it saves."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from agents import obs_view as ov
from agents.features.hand_features import augment
from agents.learned.build import add_discard_head, network, with_discard_head
from agents.learned.discard_head import CARD_INPUTS, NEIGHBOURS, head_spec
from agents.learned.ppo_joint import joint_key
from tests.agents.networks import spec_net
from tests.agents.test_discard_prior import FEATURES, planner_positions
from zolik_env.rummy import actions as A
from zolik_env.rummy import rules
from zolik_env.rummy.cards import NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.observe import obs_size


def head_net(rule_set, width=8, seed=0):
    """An untrained network with the discard prior and a discard head."""
    torch.manual_seed(seed)
    net = spec_net([32], rule_set, FEATURES, discard_prior=True)
    add_discard_head(net, head_spec(rule_set, width))
    return net


@pytest.fixture(scope="module", params=[("cz", 2), ("cz", 4), ("sk", 2)])
def positions(request):
    preset, players = request.param
    rule_set = rules.preset(preset, num_players=players)
    obs, masks = planner_positions(rule_set, deals=6, moves=200, seed=players)
    return rule_set, augment(obs, rule_set, FEATURES), masks


def logits(net, obs, masks):
    with torch.no_grad():
        return net.legal_probabilities(torch.as_tensor(obs), masks)


def test_a_new_head_changes_no_move_until_it_is_trained(positions):
    rule_set, obs, masks = positions
    torch.manual_seed(1)
    net = spec_net([32], rule_set, FEATURES, discard_prior=True)
    before = logits(net, obs, masks)
    add_discard_head(net, head_spec(rule_set, 8))
    np.testing.assert_array_equal(logits(net, obs, masks), before)
    torch.nn.init.normal_(net.discard_prior.head.mlp[-1].weight, std=1.0)
    after = logits(net, obs, masks)
    assert not np.allclose(after, before)  # a trained head moves the discards' odds


def test_the_head_scores_the_naturals_discards_and_nothing_else(positions):
    rule_set, obs, _ = positions
    net = head_net(rule_set)
    torch.nn.init.normal_(net.discard_prior.head.mlp[-1].weight, std=1.0)
    features = net.extract_features(torch.as_tensor(obs), net.pi_features_extractor)
    with torch.no_grad():
        bonus = net.discard_prior(features).numpy()
        net.discard_prior.head = None
        plain = net.discard_prior(features).numpy()
    changed = np.flatnonzero((bonus != plain).any(0))
    naturals = A.DISCARD_BASE + np.arange(NUM_NATURALS)
    assert set(changed) <= set(naturals) and len(changed) > NUM_NATURALS // 2


def _expected_inputs(view, kind, players):
    """The head's per-card counts of ``kind`` from the readable view (without the prior's
    terms, the plan and the row's shared facts)."""
    suit, rank = divmod(kind, NUM_RANKS)
    near = [suit * NUM_RANKS + (rank + d) % NUM_RANKS for d in NEIGHBOURS]
    others = [s * NUM_RANKS + rank for s in range(NUM_SUITS) if s != suit]
    hand, unseen = view["hand"], view["unseen"]
    taken = view["known_taken"][1:players].sum(0)
    return ([hand[kind], unseen[kind], taken[kind], view["table_counts"][kind],
             view["discard_counts"][kind]] + [hand[k] for k in near] + [unseen[k] for k in near]
            + [taken[near[1]] + taken[near[2]]] + [sum(x[k] for k in others)
                                                   for x in (hand, unseen, taken)])


def test_each_cards_input_is_that_cards_own_situation(positions):
    """The counts the head reads for kind k are k's, its suit's neighbours' (the ace next to
    the two and the king) and its rank's other suits', as the readable view gives them."""
    rule_set, obs, _ = positions
    net = head_net(rule_set)
    features = net.extract_features(torch.as_tensor(obs), net.pi_features_extractor)
    prior = net.discard_prior
    near = prior.near(features)
    inputs = prior.head.card_inputs(features, prior.terms(features, near), near).numpy()
    assert inputs.shape == (len(obs), NUM_NATURALS, CARD_INPUTS)
    counts = slice(7, 7 + 5 + 2 * len(NEIGHBOURS) + 1 + 3)
    for row in range(0, len(obs), 7):
        view = ov.decode(obs[row, :obs_size(rule_set)], rule_set)
        for kind in range(NUM_NATURALS):
            np.testing.assert_allclose(inputs[row, kind, counts],
                                       _expected_inputs(view, kind, rule_set.num_players))


def test_a_network_with_a_head_saves_and_loads_with_it(positions, tmp_path):
    rule_set, obs, masks = positions
    net = head_net(rule_set)
    torch.nn.init.normal_(net.discard_prior.head.mlp[-1].weight, std=1.0)
    rebuilt = network(net.net_spec, rule_set)  # as a shipped bot is rebuilt from its spec
    assert rebuilt.discard_prior.head is not None
    rebuilt.load_state_dict(net.state_dict())
    np.testing.assert_array_equal(logits(rebuilt, obs, masks), logits(net, obs, masks))


def test_networks_with_a_head_never_share_a_joint_pass():
    rule_set = rules.preset("cz", num_players=2)
    plain = [spec_net([32], rule_set, FEATURES, discard_prior=True) for _ in range(2)]
    headed = [head_net(rule_set, seed=s) for s in range(2)]
    assert joint_key(plain[0]) == joint_key(plain[1])
    assert joint_key(headed[0]) != joint_key(headed[1])
    assert joint_key(headed[0]) != joint_key(plain[0])


def test_bad_heads_are_refused_in_one_line():
    rule_set = rules.preset("cz", num_players=2)
    with pytest.raises(ValueError, match="discard head width 0"):
        head_spec(rule_set, 0)
    with pytest.raises(ValueError, match="needs a network with the discard prior"):
        add_discard_head(spec_net([32], rule_set, FEATURES), head_spec(rule_set, 8))
    with pytest.raises(ValueError, match="already has a discard head"):
        add_discard_head(head_net(rule_set), head_spec(rule_set, 8))


def test_with_discard_head__its_seed_alone_sets_the_new_head_s_weights():
    """A round's new head starts the same whatever the process drew before (a resumed
    run draws differently), and the caller's generator goes on as if nothing was drawn."""
    rule_set = rules.preset("cz", num_players=2)

    def headed(seed, drawn_before):
        model = SimpleNamespace(policy=spec_net([32], rule_set, FEATURES, discard_prior=True),
                                policy_kwargs={})
        torch.manual_seed(7)
        torch.rand(drawn_before)
        state = torch.random.get_rng_state()
        with_discard_head(model, 8, rule_set, seed=seed)
        assert torch.equal(torch.random.get_rng_state(), state), "the caller's draws moved"
        return [p.detach().clone() for p in model.policy.discard_prior.head.parameters()]

    first, after_other_draws, other_seed = headed(3, 0), headed(3, 5), headed(4, 0)
    for a, b in zip(first, after_other_draws, strict=True):
        assert torch.equal(a, b)
    assert not torch.equal(first[0], other_seed[0])
