"""agents.learned.discard_prior: the learned discard score starts as the planner's own."""

import numpy as np
import pytest
import torch

from agents import obs_view as ov
from agents.features import card_features as cf
from agents.features.hand_features import augment
from agents.learned.discard_prior import TEMPERATURE, TERMS, DiscardPrior, discard_prior_spec
from agents.learned.ppo import obs_scale
from agents.planner.planner_weights import parse_weights
from agents.registry import make_agent
from tests.agents.networks import spec_net
from tests.agents.planner_reference.discard_choice import discard_scores
from tests.agents.planner_reference.planner import PlannerPolicy as ReadablePlanner
from tests.agents.planner_reference.turn_plan import turn_input
from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import JOKER, NUM_NATURALS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.observe import observe

FEATURES = "hand+discard"


def planner_positions(rule_set, deals=12, moves=320, seed=0):
    """Observations and masks of the seat to act along planner self-play, at the moves
    where the planner discards."""
    rng = np.random.default_rng(seed)
    planner = make_agent("planner", rule_set)
    state = game.init(rule_set, np.arange(deals) + 7000 + 100 * seed)
    obs_out, mask_out = [], []
    for _ in range(moves):
        obs = observe(rule_set, state, state.current.astype(np.int64))
        mask = game.legal_action_mask(rule_set, state)
        action = np.asarray(planner.act_batch(obs, mask, rng), np.int64)
        discards = action >= A.DISCARD_BASE
        obs_out.append(obs[discards])
        mask_out.append(mask[discards])
        state, _ = game.step(rule_set, state, action)
    return np.concatenate(obs_out), np.concatenate(mask_out).astype(bool)


def scaled(obs, rule_set):
    raw = augment(obs, rule_set, FEATURES)
    return torch.clamp(torch.as_tensor(raw).float()
                       * torch.as_tensor(obs_scale(rule_set, FEATURES)), -5, 5)


REWEIGHTED = ("keep=0.6,held=30,danger=3,penalty=0.2,penalty_opened=0.9,penalty_danger=1.5,"
              "near_out=6")


@pytest.mark.parametrize(("preset", "players", "weights"),
                         [("cz", 2, ""), ("cz", 4, ""), ("sk", 2, ""), ("jolly", 2, ""),
                          ("cz", 2, REWEIGHTED), ("jolly", 2, REWEIGHTED)])
def test_the_untrained_prior_scores_every_discard_as_the_planner_does(preset, players, weights):
    """-TEMPERATURE x bonus is the planner's ``discard_scores`` for every discardable
    natural, so the prior's best discard is the planner's; a prior made for a re-weighted
    planner (a warm start's teacher) scores as that planner does."""
    rule_set = rules.preset(preset, num_players=players)
    obs, masks = planner_positions(rule_set, seed=players)
    planner = ReadablePlanner(rule_set, parse_weights(weights))
    prior = DiscardPrior(discard_prior_spec(rule_set, parse_weights(weights)))
    with torch.no_grad():
        bonus = prior(scaled(obs, rule_set)).numpy()
    compared = agreed = 0
    for row, mask, row_bonus in zip(obs, masks, bonus, strict=True):
        view = ov.decode(row, rule_set)
        plan = planner.search.best_turn(turn_input(view, rule_set), planner.in_danger(view))
        if (plan.hand != view["hand"]).any():
            continue  # the planner would still lay before this discard: other scores
        free = mask[A.DISCARD_BASE:].astype(np.int64)
        want = discard_scores(plan.hand, free, planner.held_melds(plan), planner.context(view))
        got = {k: -TEMPERATURE * row_bonus[A.DISCARD_BASE + k] for k in want}
        np.testing.assert_allclose(list(got.values()), list(want.values()), atol=1e-3)
        compared += 1
        discards = np.where(mask[A.DISCARD_BASE:], row_bonus[A.DISCARD_BASE:], -np.inf)
        agreed += int(np.argmax(discards)) == min(want, key=lambda k: (want[k], k))
    assert compared >= 100
    assert agreed >= 0.97 * compared  # ties aside, the prior's choice is the planner's


def test_held_is_what_the_planner_holds_for_its_opening_and_zero_once_opened():
    rule_set = rules.preset("cz")
    obs, _ = planner_positions(rule_set, deals=8, moves=200, seed=3)
    held = cf.card_features(obs, rule_set, held=True)[:, cf.HELD]
    planner = ReadablePlanner(rule_set)
    unopened = 0
    for row, row_held in zip(obs, held, strict=True):
        view = ov.decode(row, rule_set)
        if view["opened"][ov.OBSERVER]:
            assert not row_held.any()
            continue
        unopened += 1
        plan = planner.search.best_turn(turn_input(view, rule_set))
        if (plan.hand == view["hand"]).all():
            np.testing.assert_array_equal(row_held, planner.held_melds(plan))
    assert unopened >= 20 and held.any()


def test_the_bonus_touches_only_discards_and_follows_its_weights():
    rule_set = rules.preset("cz")
    obs, _ = planner_positions(rule_set, deals=4, moves=80)
    features = scaled(obs, rule_set)
    prior = DiscardPrior(discard_prior_spec(rule_set))
    assert prior.weight.shape == (len(TERMS),)
    with torch.no_grad():
        bonus = prior(features)
        assert not bonus[:, :A.DISCARD_BASE].any()
        assert (bonus[:, A.DISCARD_BASE + JOKER] == prior.weight[-1]).all()
        prior.weight.zero_()
        prior.weight[TERMS.index("penalty")] = 1.0  # the bonus is then the hand penalty / 10
        penalty = prior(features)[0, A.DISCARD_BASE:A.DISCARD_BASE + NUM_NATURALS]
    want = [hand_card_value(k, rule_set) / 10 for k in range(NUM_NATURALS)]
    np.testing.assert_allclose(penalty.numpy(), want, rtol=1e-6)
    assert want[1] == 0.2 and want[12] == 1.0  # a two and a king


@pytest.mark.parametrize("plan_pending", [False, True])
def test_a_network_with_the_prior_trains_it_and_ships_it(plan_pending):
    """Shipped as a bot (float16), a network keeps its logits: with the discard prior and
    with or without the plan prior's third row."""
    from agents.learned.pretrained import pack, unpack

    rule_set = rules.preset("cz")
    obs, masks = planner_positions(rule_set, deals=4, moves=80)
    net = spec_net([16], rule_set, FEATURES, plan_prior=True, discard_prior=True,
                  plan_pending=plan_pending)
    assert any(p is net.discard_prior.weight for p in net.optimizer.param_groups[0]["params"])
    with torch.no_grad():
        net.discard_prior.weight.add_(0.5)
        net.plan_prior.weight.add_(0.25)
        logits = net.action_logits(torch.as_tensor(augment(obs, rule_set, FEATURES)))
    shipped = unpack(pack(net, rule_set), rule_set, "test")
    with torch.no_grad():
        again = shipped.action_logits(torch.as_tensor(augment(obs, rule_set, FEATURES)))
    torch.testing.assert_close(again, logits, atol=0.05, rtol=0.01)  # float16 weights
    assert shipped.discard_prior.near_out == 4
    assert shipped.plan_prior.weight.shape == net.plan_prior.weight.shape
    plain = spec_net([16], rule_set, FEATURES, plan_prior=True, plan_pending=plan_pending)
    plain.load_state_dict({k: v for k, v in net.state_dict().items()
                           if not k.startswith("discard_prior")})
    with torch.no_grad():
        without = plain.action_logits(torch.as_tensor(augment(obs, rule_set, FEATURES)))
    legal = torch.as_tensor(masks)
    assert not torch.equal(without[legal], logits[legal])  # the prior moves the discards
    assert torch.equal(without[:, :A.DISCARD_BASE], logits[:, :A.DISCARD_BASE])


def test_prior_scale_moves_the_coefficients_that_many_times_faster_under_adam():
    """The same logits at the start; after one Adam step on the same loss the
    coefficients have moved ``prior_scale`` times as far (Adam's step ignores the size of
    the gradient, so this is the only way to give the priors a larger step)."""
    rule_set = rules.preset("cz")
    obs, masks = planner_positions(rule_set, deals=4, moves=80)
    x = torch.as_tensor(augment(obs, rule_set, FEATURES))
    moved, logits = [], []
    for scale in (1.0, 30.0):
        torch.manual_seed(0)
        net = spec_net([16], rule_set, FEATURES, plan_prior=True, discard_prior=True,
                      prior_scale=scale)
        before = net.discard_prior.coefficients.detach().clone()
        with torch.no_grad():
            logits.append(net.action_logits(x))
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        _, log_prob, _ = net.evaluate_actions(x, torch.as_tensor(masks.argmax(1)),
                                              action_masks=torch.as_tensor(masks))
        (-log_prob.mean()).backward()
        optimizer.step()
        moved.append((net.discard_prior.coefficients.detach() - before).abs())
    torch.testing.assert_close(logits[0], logits[1])
    changed = moved[0] > 0.5e-3  # a full first Adam step (lr 1e-3), not one the epsilon damps
    assert changed.sum() >= 4
    torch.testing.assert_close(moved[1][changed] / moved[0][changed],
                               torch.full((int(changed.sum()),), 30.0), rtol=0.02, atol=0)


def test_a_shipped_network_keeps_its_teachers_danger_threshold():
    """A prior made for ``planner:near_out=6`` reads an opponent with 6 cards as near
    out, and so does the bot packed from it."""
    from agents.learned.pretrained import pack, unpack

    rule_set = rules.preset("cz")
    spec = discard_prior_spec(rule_set, parse_weights("near_out=6,danger=3"))
    net = spec_net([16], rule_set, FEATURES, discard_prior=spec)
    shipped = unpack(pack(net, rule_set), rule_set, "test")
    assert net.discard_prior.near_out == shipped.discard_prior.near_out == 6
    assert shipped.discard_prior_spec == spec
