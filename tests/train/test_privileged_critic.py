"""The privileged critic: the value network sees the critic view, the policy never does."""

import dataclasses

import numpy as np
import pytest
import torch

from agents.learned import ppo as ppo_agent
from agents.learned import pretrained
from tests.train.conftest import tiny_config
from train import imitation
from train import ppo as trainer
from train.zolik_vec import ZolikVecEnv
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import STOCK_LOOKAHEAD, critic_view, critic_view_size, observe

CZ = rules.preset("cz")


def _played(rule_set, deals=6, moves=40, seed=0):
    """States of ``deals`` deals after ``moves`` random legal moves."""
    state = game.init(rule_set, np.arange(seed, seed + deals))
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        mask = game.legal_action_mask(rule_set, state)
        pick = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        after = game.step(rule_set, state, pick)[0]
        if after.done.any():
            break
        state = after
    return state


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_critic_view__other_hands_in_turn_order_then_the_next_stock_cards(preset, players):
    rule_set = rules.preset(preset, num_players=players)
    state = _played(rule_set)
    for seat in range(players):
        view = critic_view(rule_set, state, seat)
        assert view.shape == (state.batch_size, critic_view_size(rule_set))
        for b in range(state.batch_size):
            others = [state.hands[b, (seat + i) % players] for i in range(1, players)]
            top = state.stock[b, :state.stock_len[b]][::-1][:STOCK_LOOKAHEAD]
            upcoming = np.bincount(top, minlength=53)
            assert np.array_equal(view[b], np.concatenate([*others, upcoming])), (seat, b)


def test_env__critic_view_follows_the_plain_observation_also_at_the_deal_s_end():
    plain = ZolikVecEnv(3, "cz", 2, seed=4, features="hand", rule_options={"max_turns": 30})
    full = ZolikVecEnv(3, "cz", 2, seed=4, features="hand", critic=True,
                       rule_options={"max_turns": 30})
    width = plain.observation_space.shape[0]
    assert full.observation_space.shape == (width + critic_view_size(CZ),)
    a, b = plain.reset(), full.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        assert np.array_equal(a, b[:, :width])
        assert np.array_equal(b[:, width:], critic_view(CZ, full.state, full.learner))
        mask = full.action_masks()
        move = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        a, _, _, infos_a = plain.step(move)
        b, _, done, infos_b = full.step(move)
        for i in np.flatnonzero(done):
            last = infos_b[i]["terminal_observation"]
            assert last.shape == (width + critic_view_size(CZ),)
            assert np.array_equal(infos_a[i]["terminal_observation"], last[:width])
            ended += 1
    assert ended > 0


@pytest.fixture(scope="module")
def privileged(tmp_path_factory):
    """A privileged-critic model with hand features and the plan prior, and its env."""
    cfg = tiny_config(tmp_path_factory.mktemp("priv"), privileged_critic=True,
                      obs_features="hand", plan_prior=True, net_arch=[32])
    model, env, _ = trainer.build(cfg, trainer.start_run(cfg))
    with torch.no_grad():  # a plan prior that matters, so its inputs are checked too
        model.policy.plan_prior.weight.normal_()
    return cfg, model, env


def actor_ignores_critic_view(policy, obs, width, seed=0):
    """Whether the logits of ``obs`` stay the same when its entries past ``width`` (the
    critic view) are replaced by other card counts; and whether the values move."""
    other = obs.copy()
    other[:, width:] = np.random.default_rng(seed).integers(0, 3, other[:, width:].shape)
    x, y = torch.as_tensor(obs), torch.as_tensor(other)
    with torch.no_grad():
        same = torch.equal(policy.action_logits(x), policy.action_logits(y))
        moved = not torch.equal(policy.predict_values(x), policy.predict_values(y))
    return same, moved


def test_policy__moves_do_not_depend_on_the_critic_view_but_values_do(privileged):
    _cfg, model, env = privileged
    obs = env.reset()
    width = obs.shape[1] - critic_view_size(CZ)
    same, moved = actor_ignores_critic_view(model.policy, obs, width)
    assert same and moved


def test_policy__the_counterfactual_check_catches_a_planted_leak(privileged):
    # the same check on a network whose actor also reads the critic view: it must fail
    _cfg, model, env = privileged
    obs = env.reset()
    width = obs.shape[1] - critic_view_size(CZ)
    extractor = model.policy.mlp_extractor
    leaky = torch.nn.Linear(obs.shape[1], extractor.policy_net[0].out_features)
    honest_net, honest_dim = extractor.policy_net[0], extractor.actor_dim
    try:
        extractor.policy_net[0], extractor.actor_dim = leaky, obs.shape[1]
        same, _ = actor_ignores_critic_view(model.policy, obs, width)
    finally:
        extractor.policy_net[0], extractor.actor_dim = honest_net, honest_dim
    assert not same


def test_checkpoint__plays_from_the_plain_observation(privileged, tmp_path):
    cfg, model, env = privileged
    path = trainer.save_checkpoint(model, cfg, tmp_path / "step_0.zip")
    player = ppo_agent.load(path, cfg.rules())
    full = env.reset()
    width = full.shape[1] - critic_view_size(CZ)
    obs = observe(cfg.rules(), env.state, env.learner)  # what a player is given: no features
    probs = player.probabilities(obs, env.action_masks())
    with torch.no_grad():
        logits = model.policy.action_logits(torch.as_tensor(full))
    logits = logits.masked_fill(~torch.as_tensor(env.action_masks()), -torch.inf)
    assert np.allclose(probs, torch.softmax(logits, 1).double().numpy(), atol=1e-6)
    assert np.array_equal(full[:, :width][:, :obs.shape[1]], obs)


def test_pretrained__a_privileged_network_packs_and_unpacks(privileged):
    cfg, model, env = privileged
    saved = pretrained.pack(model.policy, cfg.rules())
    assert saved["net_spec"]["critic_extra"] == critic_view_size(CZ)
    net = pretrained.unpack(saved, cfg.rules(), "test")
    obs = torch.as_tensor(env.reset())
    with torch.no_grad():
        assert torch.allclose(net.action_logits(obs), model.policy.action_logits(obs),
                              atol=1e-2)
        assert net.predict_values(obs).shape == (obs.shape[0], 1)


def test_teacher_data__records_critic_views_and_clones_a_privileged_critic(privileged,
                                                                           tmp_path):
    _cfg, model, _env = privileged
    one = imitation.collect(CZ, "greedy", decisions=1, seed=1, num_deals=1)
    # the deal's first decision: its starter's view of the deal's first state
    first = game.init(CZ, np.array([imitation._SEED_STRIDE]), np.arange(1))
    assert np.array_equal(one.critic[0], critic_view(CZ, first, first.current)[0])
    data = imitation.load_or_collect(tmp_path, CZ, "greedy", 300, 1, 0.99, "score",
                                     features="hand", critic=True)
    assert data.critic.shape == (len(data), critic_view_size(CZ))
    report = imitation.clone(model.policy, data, epochs=1, batch_size=64)
    assert np.isfinite(report.value_mse) and 0 <= report.accuracy <= 1


def test_teacher_cache__from_before_critic_views_is_collected_again(tmp_path):
    data = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score")
    path = next(tmp_path.glob("teacher_*.npz"))
    np.savez_compressed(path, obs=data.obs, mask=data.mask, action=data.action, ret=data.ret)
    old = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score")
    assert old.critic.shape == (len(old), 0) and np.array_equal(old.obs, data.obs)
    with pytest.raises(ValueError, match="no critic view"):
        old.inputs(np.arange(2), critic=True)
    again = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score",
                                      critic=True)
    assert np.array_equal(again.critic, data.critic) and np.array_equal(again.obs, data.obs)


def test_config__privileged_critic_is_a_flag_and_old_run_dirs_have_none(tmp_path):
    with pytest.raises(ValueError, match="privileged_critic"):
        tiny_config(tmp_path, privileged_critic="yes")
    cfg = tiny_config(tmp_path)
    run_dir = trainer.start_run(cfg)
    text = (run_dir / "config.yaml").read_text()
    (run_dir / "config.yaml").write_text(
        "\n".join(line for line in text.splitlines() if "privileged_critic" not in line))
    assert trainer.read_config(run_dir).privileged_critic is False


def test_training__a_privileged_run_with_a_duplicate_reference_trains_and_resumes(tmp_path):
    cfg = tiny_config(tmp_path, privileged_critic=True, duplicate_reference="greedy",
                      total_steps=64)
    first = trainer.run(cfg)
    longer = cfg.model_copy(update={"total_steps": 128})
    again = trainer.run(longer, first.run_dir)
    assert again.steps == 128
    player = ppo_agent.load(again.final, cfg.rules())
    assert player.policy.critic_extra == critic_view_size(cfg.rules())



def test_teacher_data__joins_an_old_cache_with_new_samples_without_critic_views(tmp_path):
    new = imitation.collect(CZ, "greedy", decisions=50, seed=2, num_deals=2)
    old = dataclasses.replace(new, critic=new.critic[:, :0])
    both = imitation.concat(old, new)
    assert len(both) == 2 * len(new) and both.critic.shape == (len(both), 0)
    assert imitation.concat(new, new).critic.shape == (2 * len(new), critic_view_size(CZ))


def test_checkpoint__gives_no_values_from_a_players_observation(privileged, tmp_path):
    # its value head also reads hidden cards: a search that truncates rollouts with it
    # (pimc horizon=N) is refused in one line rather than fed observations without them
    cfg, model, env = privileged
    path = trainer.save_checkpoint(model, cfg, tmp_path / "step_0.zip")
    player = ppo_agent.load(path, cfg.rules())
    obs = observe(cfg.rules(), env.state, env.learner)
    with pytest.raises(ValueError, match="privileged_critic") as error:
        player.values(obs)
    assert "\n" not in str(error.value)
