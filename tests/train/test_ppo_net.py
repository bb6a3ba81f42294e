"""``agents.ppo_net.LeanMaskablePolicy`` computes what sb3-contrib's masked policy does."""

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.ppo_net import LeanMaskablePolicy


def _pair(obs_size=12, num_actions=40, seed=0):
    """The lean policy and sb3-contrib's, with the same weights."""
    space = spaces.Box(-5, 5, (obs_size,), np.float32)
    kwargs = {"net_arch": [16, 16]}
    torch.manual_seed(seed)
    lean = LeanMaskablePolicy(space, spaces.Discrete(num_actions), lambda _: 1e-3, **kwargs)
    reference = MaskableActorCriticPolicy(space, spaces.Discrete(num_actions), lambda _: 1e-3,
                                          **kwargs)
    reference.load_state_dict(lean.state_dict())
    return lean, reference


def _batch(rows=64, obs_size=12, num_actions=40, seed=1):
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(rng.normal(size=(rows, obs_size)), dtype=torch.float32)
    masks = rng.random((rows, num_actions)) < 0.2
    masks[np.arange(rows), rng.integers(0, num_actions, rows)] = True  # every row has a move
    legal_one = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    return obs, masks, torch.as_tensor(legal_one)


def test_lean__log_prob_entropy_and_value_equal_sb3_contribs():
    lean, reference = _pair()
    obs, masks, acts = _batch()
    got = lean.evaluate_actions(obs, acts, action_masks=torch.as_tensor(masks, dtype=torch.float32))
    want = reference.evaluate_actions(obs, acts, action_masks=masks)
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_lean__gradients_are_finite_and_equal_sb3_contribs():
    lean, reference = _pair()
    obs, masks, acts = _batch()
    for policy in (lean, reference):
        values, log_prob, entropy = policy.evaluate_actions(obs, acts, action_masks=masks)
        (-log_prob.mean() - 0.01 * entropy.mean() + values.pow(2).mean()).backward()
    for (name, a), b in zip(lean.named_parameters(), reference.parameters(), strict=True):
        assert torch.isfinite(a.grad).all(), name
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-6)


def test_lean__rollout_samples_legal_moves_and_argmax_is_sb3_contribs():
    lean, reference = _pair()
    obs, masks, _ = _batch(rows=256)
    torch.manual_seed(5)
    with torch.no_grad():
        actions, values, log_prob = lean(obs, action_masks=masks)
        assert masks[np.arange(256), actions.numpy()].all()
        want_values, want_log_prob, _ = reference.evaluate_actions(obs, actions,
                                                                   action_masks=masks)
        torch.testing.assert_close(log_prob, want_log_prob, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(values, want_values)
        best, _, _ = lean(obs, deterministic=True, action_masks=masks)
        want_best, _, _ = reference(obs, deterministic=True, action_masks=masks)
    assert torch.equal(best, want_best)


def test_lean__a_seeded_rollout_repeats():
    lean, _ = _pair()
    obs, masks, _ = _batch(rows=128)
    runs = []
    for _ in range(2):
        torch.manual_seed(11)
        with torch.no_grad():
            runs.append(lean(obs, action_masks=masks)[0])
    assert torch.equal(*runs)


def test_lean__without_masks_every_move_counts():
    lean, reference = _pair()
    obs, _, acts = _batch()
    got = lean.evaluate_actions(obs, acts, action_masks=None)
    want = reference.evaluate_actions(obs, acts, action_masks=None)
    torch.testing.assert_close(got[1], want[1], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[2], want[2], rtol=1e-5, atol=1e-5)
