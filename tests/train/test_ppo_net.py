"""``agents.learned.ppo_net.LeanMaskablePolicy`` computes what sb3-contrib's masked policy does."""

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.learned.ppo_net import LeanMaskablePolicy


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


def _plan_obs(hand, runs, sets, can_open=0, base=60, need_points=0.0):
    """A (1, base + HAND_FEATURES) scaled observation: hand counts first, features last."""
    from agents.features import hand_features as hf
    from zolik_env.rummy.cards import parse_cards

    obs = torch.zeros(1, base + hf.HAND_FEATURES)
    features = obs[0, base:]
    for card in parse_cards(hand):
        obs[0, card] += 1
    for card in parse_cards(runs):
        features[hf.PLAN_RUNS.start + card] += 1
    for card in parse_cards(sets):
        features[hf.PLAN_SETS.start + card] += 1
    features[hf.SCALARS.index("can_open")] = can_open
    features[hf.SCALARS.index("need_points")] = need_points
    return obs


def test_plan_prior__rewards_exactly_the_moves_that_follow_the_plan():
    from agents.learned.ppo_net import PlanPrior
    from zolik_env.rummy.actions import string_to_action as move

    prior = PlanPrior()
    with torch.no_grad():
        prior.weight[0] = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])  # meld .. discard
        prior.weight[1] = torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0])  # + when can_open
    hand = "4C 5C 6C 4H 4D KS KH KD 9S 9S AH JK"
    obs = _plan_obs(hand, runs="4C 5C 6C", sets="KS KH KD")
    bonus = prior(obs)[0]
    assert bonus[move("meld 4C 5C 6C")] == 1 and bonus[move("meld KS KH KD")] == 1
    assert bonus[move("meld 4H 4D 4C")] == 0  # 4C belongs to the plan's run, not a set
    assert bonus[move("meld 5C 6C 7C")] == 0 and bonus[move("meld KS KH JK")] == 0
    assert bonus[move("layoff 6C on 3")] == 2 and bonus[move("layoff 9S on 3")] == 0
    assert bonus[move("discard 9S")] == 5 and bonus[move("discard 4C")] == 0
    assert bonus[move("layoff JK on 2 high")] == 0 and bonus[move("layoff AH on 1 high")] == 0
    for free in ("undo", "draw stock", "take discard 1"):
        assert bonus[move(free)] == 0
    # 2 melds, 6 planned cards x 36 slots, the 5 kinds held beyond the plan: 4H 4D 9S AH JK
    assert int((bonus != 0).sum()) == 2 + 6 * 36 + 5
    swapped = prior(_plan_obs(hand, runs="KS KH KD", sets="4C 5C 6C"))[0]
    assert swapped[move("meld 4C 5C 6C")] == 0 and swapped[move("meld KS KH KD")] == 0
    with_jokers = prior(_plan_obs(hand, runs="AH 2H JK", sets="", can_open=1))[0]
    assert with_jokers[move("layoff JK on 2 high")] == 4 + 40
    assert with_jokers[move("layoff AH on 1 high")] == 3 + 30


@pytest.mark.parametrize(("can_open", "need_points", "pending"),
                         [(1, 0.27, True), (1, 0.0, False), (0, 0.27, False), (0, 0.0, False)])
def test_plan_prior__the_third_row_counts_only_while_an_opening_is_under_way(can_open,
                                                                            need_points,
                                                                            pending):
    """An opening under way: the hand can open and still needs points. The third row adds
    to the first two there and nowhere else, in the full table and at chosen moves."""
    from agents.learned.ppo_net import PlanPrior
    from zolik_env.rummy.actions import string_to_action as move

    two, three = PlanPrior(), PlanPrior(pending_start=0.0)
    with torch.no_grad():
        for prior in (two, three):
            prior.weight[0] = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
            prior.weight[1] = torch.tensor([10.0, 20.0, 30.0, 40.0, 50.0])
        three.weight[2] = torch.tensor([100.0, -200.0, -300.0, -400.0, -500.0])
    obs = _plan_obs("4C 5C 6C 9S JK", runs="4C 5C 6C JK", sets="", can_open=can_open,
                    need_points=need_points)
    moves = [move(m) for m in ("meld 4C 5C 6C", "layoff 6C on 3", "discard 9S",
                               "layoff JK on 2 high", "discard 4C", "draw stock")]
    third = torch.tensor([100.0, -200.0, -500.0, -400.0, 0.0, 0.0]) * pending
    torch.testing.assert_close(three(obs)[0, moves], two(obs)[0, moves] + third)
    rows = torch.zeros(len(moves), dtype=torch.long)
    torch.testing.assert_close(three.at(obs, rows, torch.tensor(moves)), three(obs)[0, moves])


def test_plan_prior__every_path_gives_the_same_distribution():
    from agents.features.hand_features import HAND_FEATURES
    from agents.learned.ppo import PPOPolicy
    from zolik_env.rummy.actions import NUM_ACTIONS

    size = 60 + HAND_FEATURES
    space = spaces.Box(-5, 5, (size,), np.float32)
    torch.manual_seed(0)
    policy = LeanMaskablePolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3,
                                net_arch=[16], plan_prior=True)
    assert any(p is policy.plan_prior.weight for p in policy.optimizer.param_groups[0]["params"])
    with torch.no_grad():
        policy.plan_prior.weight.fill_(3.0)
    obs = torch.cat([_plan_obs("4C 5C 6C 9S", "4C 5C 6C", "", 1)] * 2)
    masks = np.zeros((2, NUM_ACTIONS), bool)
    masks[:, 26:700] = True
    acts = torch.tensor([30, 40])
    _, log_prob, _ = policy.evaluate_actions(obs, acts, action_masks=masks)
    dist = policy.get_distribution(obs, action_masks=masks)
    assert torch.allclose(log_prob, dist.log_prob(acts), atol=1e-5)
    probs = PPOPolicy(policy, "p").probabilities(obs.numpy(), masks)
    assert np.allclose(np.log(probs[[0, 1], [30, 40]]), log_prob.detach().numpy(), atol=1e-5)
    plain = LeanMaskablePolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3, net_arch=[16])
    plain.load_state_dict({k: v for k, v in policy.state_dict().items()
                           if not k.startswith("plan_prior")})
    _, plain_log_prob, _ = plain.evaluate_actions(obs, acts, action_masks=masks)
    assert not torch.allclose(log_prob, plain_log_prob)  # the prior changes the move odds
