"""agents.learned.ppo_joint: a pool's snapshots computed in one pass give each snapshot's own
move distributions, and only networks of one shape and prior set share a pass."""

import numpy as np
import pytest
import torch

from agents.features.hand_features import augment
from agents.learned.ppo import PPOPolicy
from agents.learned.ppo_joint import joint_key, joint_probabilities
from tests.agents.networks import spec_net
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import observe

FEATURES = "hand+discard"


@pytest.fixture(scope="module")
def positions():
    rule_set = rules.preset("cz")
    state = game.init(rule_set, np.arange(30) + 500)
    rng = np.random.default_rng(0)
    obs, masks = [], []
    for _ in range(40):
        mask = game.legal_action_mask(rule_set, state)
        obs.append(observe(rule_set, state, state.current.astype(np.int64))[~state.done])
        masks.append(mask[~state.done])
        state, _ = game.step(rule_set, state, game.sample_legal(mask, rng))
    return rule_set, augment(np.concatenate(obs), rule_set, FEATURES), np.concatenate(masks)


def snapshots(rule_set, n, **kwargs):
    nets = []
    for seed in range(n):
        torch.manual_seed(seed)
        net = spec_net([24], rule_set, FEATURES, plan_prior=True, discard_prior=True, **kwargs)
        with torch.no_grad():
            net.plan_prior.weight.normal_()
            net.discard_prior.weight.mul_(1 + 0.2 * seed)
        nets.append(net)
    return nets


def assert_each_networks_own(got, nets, obs, owner, masks):
    """Row ``i`` of ``got`` is ``nets[owner[i]]``'s own move distribution."""
    for k, net in enumerate(nets):
        mine = owner == k
        with torch.no_grad():
            want = net.legal_probabilities(torch.as_tensor(obs[mine]).float(), masks[mine])
        np.testing.assert_allclose(got[mine], want.numpy(), rtol=1e-5, atol=1e-7)


def test_joint_pass_equals_each_networks_own(positions):
    rule_set, obs, masks = positions
    nets = snapshots(rule_set, 3)
    owner = np.random.default_rng(1).integers(0, 3, len(obs))
    got = joint_probabilities(nets, obs, owner, masks)
    assert_each_networks_own(got, nets, obs, owner, masks)
    assert (got[~masks] == 0).all()
    # the snapshots really differ, so a mixed-up owner would be caught
    with torch.no_grad():
        other = nets[1].legal_probabilities(torch.as_tensor(obs[owner == 0]).float(),
                                            masks[owner == 0])
    assert not np.allclose(got[owner == 0], other.numpy(), atol=1e-3)


def test_networks_with_and_without_the_plan_prior_s_third_row_share_a_pass(positions):
    """The third row (``plan_pending_start``) is read as zeros for a network without it,
    so such networks may share a key and a pass and each keep their own moves."""
    rule_set, obs, masks = positions
    nets = snapshots(rule_set, 2) + snapshots(rule_set, 1, plan_pending=True)
    assert [tuple(n.plan_prior.weight.shape) for n in nets] == [(2, 5), (2, 5), (3, 5)]
    assert joint_key(nets[0]) == joint_key(nets[2])
    owner = np.arange(len(obs)) % 3
    got = joint_probabilities(nets, obs, owner, masks)
    assert_each_networks_own(got, nets, obs, owner, masks)


def test_only_networks_of_one_shape_and_prior_set_share_a_key(positions):
    rule_set = positions[0]
    a, b = snapshots(rule_set, 2)
    assert joint_key(a) == joint_key(b) is not None
    torch.manual_seed(0)
    assert joint_key(spec_net([32], rule_set, FEATURES, plan_prior=True,
                             discard_prior=True)) != joint_key(a)
    assert joint_key(spec_net([24], rule_set, FEATURES, plan_prior=True)) != joint_key(a)
    assert joint_key(spec_net([24], rules.preset("sk"), FEATURES, plan_prior=True,
                             discard_prior=True)) != joint_key(a)
    policies = [PPOPolicy(net, f"s{k}", rules=rule_set) for k, net in enumerate((a, b))]
    assert policies[0].joint_key == policies[1].joint_key is not None
