"""``LeanMaskablePolicy``'s legal-moves path (logits, priors and softmax computed only at
the legal moves) gives what the full (B, NUM_ACTIONS) table gives: log-probabilities,
entropies, gradients, samples and the opponents' probabilities."""

import numpy as np
import pytest
import torch

from agents.features.hand_features import HAND_FEATURES, PLAN_RUNS, PLAN_SETS, SCALARS, augment
from agents.learned.masked_softmax import legal_entropy, masked_log_softmax
from agents.learned.ppo import PPOPolicy
from agents.learned.ppo_net import PlanPrior
from agents.registry import make_agent
from tests.agents.networks import spec_net
from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS
from zolik_env.rummy.observe import observe

FEATURES = "hand+discard"


def planner_positions(rule_set, deals=6, moves=60, seed=0):
    """Observations, masks and the planner's moves along planner self-play."""
    rng = np.random.default_rng(seed)
    planner = make_agent("planner", rule_set)
    state = game.init(rule_set, np.arange(deals) + 9100 + 100 * seed)
    obs_out, mask_out, act_out = [], [], []
    for _ in range(moves):
        live = ~state.done
        obs = observe(rule_set, state, state.current.astype(np.int64))
        mask = game.legal_action_mask(rule_set, state)
        action = np.asarray(planner.act_batch(obs, mask, rng), np.int64)
        obs_out.append(obs[live])
        mask_out.append(mask[live])
        act_out.append(action[live])
        state, _ = game.step(rule_set, state, action)
    return (np.concatenate(obs_out), np.concatenate(mask_out).astype(bool),
            np.concatenate(act_out))


@pytest.fixture(scope="module")
def setup():
    rule_set = rules.preset("cz")
    obs, masks, acts = planner_positions(rule_set)
    torch.manual_seed(3)
    net = spec_net([32], rule_set, FEATURES, plan_prior=True, discard_prior=True)
    with torch.no_grad():  # priors away from their start, so that every term counts
        net.plan_prior.weight.normal_()
        net.discard_prior.weight.mul_(1.3).add_(0.2)
    x = torch.as_tensor(augment(obs, rule_set, FEATURES)).float()
    return rule_set, net, x, masks, torch.as_tensor(acts)


def full_path(net, x, masks):
    logits = net.action_logits(x)
    legal = torch.as_tensor(masks)
    log_probs = masked_log_softmax(logits, legal)
    return log_probs, legal_entropy(log_probs, legal)


def test_log_probs_entropy_and_gradients_equal_the_full_tables(setup):
    _, net, x, masks, acts = setup
    assert len(x) > 250 and masks.sum(1).max() > 10
    values, log_prob, entropy = net.evaluate_actions(x, acts, action_masks=masks)
    (-log_prob.mean() - 0.1 * entropy.mean()).backward()
    legal_grads = {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}
    net.zero_grad()
    log_probs, want_entropy = full_path(net, x, masks)
    want = log_probs.gather(1, acts[:, None])[:, 0]
    (-want.mean() - 0.1 * want_entropy.mean()).backward()
    torch.testing.assert_close(log_prob, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(entropy, want_entropy, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(values, net.predict_values(x))
    full_grads = {n: p.grad for n, p in net.named_parameters() if p.grad is not None}
    assert set(legal_grads) == set(full_grads)
    assert {"plan_prior.weight", "discard_prior.weight", "action_net.weight"} <= set(full_grads)
    for name, grad in full_grads.items():
        torch.testing.assert_close(legal_grads[name], grad, rtol=1e-4, atol=1e-6, msg=name)
    net.zero_grad()


def test_an_illegal_move_has_log_probability_minus_infinity(setup):
    _, net, x, masks, _ = setup
    illegal = torch.as_tensor(np.argmin(masks, 1))  # the first illegal move of each row
    with torch.no_grad():
        _, log_prob, _ = net.evaluate_actions(x[:20], illegal[:20], action_masks=masks[:20])
    assert torch.isneginf(log_prob).all()


def test_rollout_samples_follow_the_full_distribution(setup):
    _, net, x, masks, _ = setup
    with torch.no_grad():
        log_probs, _ = full_path(net, x, masks)
        torch.manual_seed(7)
        actions, _, log_prob = net(x, action_masks=masks)
        best, _, _ = net(x, deterministic=True, action_masks=masks)
    assert masks[np.arange(len(x)), actions.numpy()].all()
    torch.testing.assert_close(log_prob, log_probs.gather(1, actions[:, None])[:, 0],
                               rtol=1e-5, atol=1e-5)
    assert torch.equal(best, log_probs.argmax(1))
    # one row repeated: the draws' frequencies are its probabilities
    row = int(np.argmax(masks.sum(1)))
    many = x[row:row + 1].expand(20_000, -1)
    with torch.no_grad():
        draws, _, _ = net(many, action_masks=np.repeat(masks[row:row + 1], 20_000, 0))
    counts = np.bincount(draws.numpy(), minlength=A.NUM_ACTIONS)[masks[row]]
    expected = 20_000 * log_probs[row].exp().numpy()[masks[row]]
    big = expected > 20
    chi2 = ((counts - expected) ** 2 / expected)[big].sum()
    assert big.sum() >= 2 and chi2 < 3 * big.sum() + 20


def test_opponent_probabilities_equal_the_full_softmax(setup):
    rule_set, net, x, masks, _ = setup
    policy = PPOPolicy(net, "p", rules=rule_set)
    probs = policy.transformed_probabilities(x.numpy(), masks)
    with torch.no_grad():
        want = full_path(net, x, masks)[0].exp().double().numpy()
    np.testing.assert_allclose(probs, want, rtol=1e-5, atol=1e-7)
    assert (probs[~masks] == 0).all()


def reference_plan_bonus(prior, obs):
    """The plan prior's bonus table written out group by group (its former ``forward``)."""
    rows = obs.shape[0]
    features = obs[:, -HAND_FEATURES:]
    hand = obs[:, :NUM_KINDS]
    runs, sets = features[:, PLAN_RUNS], features[:, PLAN_SETS]
    plan = runs + sets
    can_open = features[:, SCALARS.index("can_open")]
    follows = {
        "meld": torch.where(prior.is_run, prior._within(runs), prior._within(sets)),
        "layoff": (plan[:, :NUM_NATURALS] >= 1).float().repeat(1, A.MAX_MELDS),
        "ace_high": (plan[:, 0:NUM_NATURALS:NUM_RANKS] >= 1).float().repeat(1, A.MAX_MELDS),
        "joker": (plan[:, JOKER:JOKER + 1] >= 1).float().expand(rows, 2 * A.MAX_MELDS),
        "discard": (hand > plan).float(),
    }
    weight = prior.weight[0] + prior.weight[1] * can_open[:, None]
    parts = [obs.new_zeros(rows, A.MELD_BASE)]
    for g, name in enumerate(("meld", "layoff", "ace_high", "joker", "discard")):
        if name == "discard":
            parts.append(obs.new_zeros(rows, A.DISCARD_BASE - A.UNDO))
        parts.append(follows[name] * weight[:, g:g + 1])
    return torch.cat(parts, 1)


def test_the_plan_priors_table_is_the_group_by_group_bonus(setup):
    _, net, x, _, _ = setup
    prior = net.plan_prior
    actor = net.extract_features(x, net.pi_features_extractor)
    with torch.no_grad():
        table = prior(actor)
        assert torch.equal(table, reference_plan_bonus(prior, actor))
    assert (table != 0).any(1).all() and isinstance(prior, PlanPrior)
    assert "group" not in prior.state_dict() and "source" not in prior.state_dict()


def test_each_prior_at_the_legal_moves_is_its_table_there(setup):
    _, net, x, masks, _ = setup
    legal = torch.as_tensor(masks)
    rows, moves = legal.nonzero(as_tuple=True)
    actor = net.extract_features(x, net.pi_features_extractor)
    with torch.no_grad():
        for prior in (net.plan_prior, net.discard_prior):
            assert torch.equal(prior.at(actor, rows, moves), prior(actor)[rows, moves])
        melds = (moves >= A.MELD_BASE) & (moves < A.LAYOFF_BASE)
        assert (net.plan_prior.at(actor, rows, moves)[melds] != 0).sum() > 5
