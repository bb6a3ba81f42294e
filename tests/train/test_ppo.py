"""``train.ppo``: a tiny run end to end, checkpoint round trip through ``agents.learned.ppo``,
and resume after a simulated kill."""

import csv
import dataclasses
import io
import pathlib
import re
import shutil
import zipfile

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents.registry import make_agent
from tests.train.conftest import run_stopped_at, tiny_config
from train import ppo, resume_state
from zolik_env.envs.zolik_common import make_rules
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe


def test_run__tiny_run_writes_the_run_dir(tiny_run):
    cfg, result = tiny_run
    run_dir = result.run_dir
    assert result.steps == 128 and result.final == run_dir / "final.zip"
    assert run_dir.name.startswith("tiny__3__")
    assert ppo.read_config(run_dir) == cfg  # the resolved config, seed included
    assert [p.stem for p in ppo.checkpoints(run_dir / "checkpoints")] == ["step_64", "step_128"]
    assert [p.stem for p in ppo.checkpoints(run_dir / "pool")] == ["step_0", "step_64", "step_128"]
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    assert rows and "time/opponents_s" in rows[-1] and "train/approx_kl" in rows[-1]
    evals = list(csv.DictReader((run_dir / "eval.csv").open()))
    assert [(r["steps"], r["opponent"]) for r in evals] == [("128", "greedy")]
    assert 0 <= float(evals[0]["win_low"]) <= float(evals[0]["win"]) <= float(evals[0]["win_high"])
    assert (run_dir / "learning_curve.png").stat().st_size > 1000
    assert list((run_dir / "tb").iterdir())


def _deal_batch(rules, n=12):
    state = game.init(rules, np.arange(n) + 5)
    rng = np.random.default_rng(1)
    for _ in range(7):  # a few moves in: varied phases and masks
        state, *_ = game.step(rules, state, game.sample_legal(game.legal_action_mask(rules, state),
                                                              rng))
    return observe(rules, state, state.current), game.legal_action_mask(rules, state)


def test_agent__checkpoint_round_trip_acts_like_the_model(tiny_run):
    from sb3_contrib import MaskablePPO

    cfg, result = tiny_run
    rules = cfg.rules()
    obs, mask = _deal_batch(rules)
    agent = make_agent(f"ppo:{result.final}:argmax", rules)
    model = MaskablePPO.load(result.final, device="cpu")
    expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert (agent.act_batch(obs, mask, np.random.default_rng(0)) == expected).all()
    sampler = make_agent(f"ppo:{result.run_dir}", rules)  # a run dir: its final.zip
    a = sampler.act_batch(obs, mask, np.random.default_rng(9))
    b = sampler.act_batch(obs, mask, np.random.default_rng(9))
    assert (a == b).all() and mask[np.arange(len(a)), a].all()
    assert sampler.act(obs[0], mask[0], np.random.default_rng(9)) == a[0]
    probs = sampler.probabilities(obs, mask)
    assert np.allclose(probs.sum(1), 1) and not probs[~mask].any()


def test_agent__sampling_follows_the_policy_distribution(tiny_run):
    cfg, result = tiny_run
    obs, mask = _deal_batch(cfg.rules(), 1)
    agent = make_agent(f"ppo:{result.final}", cfg.rules())
    many_obs, many_mask = np.repeat(obs, 4000, 0), np.repeat(mask, 4000, 0)
    picks = agent.act_batch(many_obs, many_mask, np.random.default_rng(3))
    freq = np.bincount(picks, minlength=mask.shape[1]) / picks.size
    assert np.abs(freq - agent.probabilities(obs, mask)[0]).max() < 0.04


@pytest.mark.parametrize("preset, players", [("sk", 2), ("cz", 3)])
def test_agent__other_rules_are_a_clear_error(tiny_run, preset, players):
    _, result = tiny_run
    with pytest.raises(ValueError, match="trained for other rules"):
        make_agent(f"ppo:{result.final}", make_rules(preset, players, {"max_turns": 40}))
    with pytest.raises(ValueError, match="ppo:PATH"):
        make_agent("ppo", make_rules("cz", 2, None))


def _saved_adam(zip_path):
    with zipfile.ZipFile(zip_path) as z:
        state = torch.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=False)
    return state["state"]


def test_run__resume_after_a_kill_restores_steps_optimizer_and_config(tmp_path):
    cfg = tiny_config(tmp_path, total_steps=256, eval_every=0)
    run_dir = ppo.start_run(cfg)
    config_text = (run_dir / "config.yaml").read_text()
    first = ppo.run(tiny_config(tmp_path, total_steps=128, eval_every=0), run_dir)
    assert first.steps == 128
    # a kill -9 after the step-128 checkpoint: no final.zip, nothing saved at exit
    (run_dir / "final.zip").unlink()
    (run_dir / "final.json").unlink()
    model, _, pool = ppo.build(ppo.read_config(run_dir), run_dir)
    assert model.num_timesteps == 128
    saved = _saved_adam(run_dir / "checkpoints" / "step_128.zip")
    restored = model.policy.optimizer.state_dict()["state"]
    assert saved and saved.keys() == restored.keys()
    for k in saved:
        assert int(restored[k]["step"]) == int(saved[k]["step"]) > 0
        assert torch.equal(restored[k]["exp_avg_sq"], saved[k]["exp_avg_sq"])
    assert len(pool.snapshots) == 3  # steps 0, 64, 128 back in the pool
    second = ppo.run(ppo.read_config(run_dir), run_dir)
    assert second.steps == 256 and (run_dir / "final.zip").exists()
    assert (run_dir / "config.yaml").read_text() == config_text
    assert (run_dir / "progress.1.csv").exists()  # the first session's log is kept
    assert "step_256" in [p.stem for p in ppo.checkpoints(run_dir / "checkpoints")]


def test_run__ctrl_c_saves_a_checkpoint_and_no_final(tmp_path, monkeypatch):
    from train.callbacks import TrainCallback

    on_step = TrainCallback._on_step

    def interrupted(self):
        if self.num_timesteps >= 80:
            raise KeyboardInterrupt
        return on_step(self)

    monkeypatch.setattr(TrainCallback, "_on_step", interrupted)
    result = ppo.run(tiny_config(tmp_path, eval_every=0))
    # stopped inside the rollout that began at step 64: its start is saved, with its state
    assert result.steps == 64 and result.final.name == "step_64.zip" and result.final.exists()
    assert resume_state.state_path(result.final).exists()
    assert not (result.run_dir / "final.zip").exists()


def _weights(checkpoint):
    model = MaskablePPO.load(checkpoint, device="cpu")
    return model.policy.state_dict(), model.policy.optimizer.state_dict()["state"]


def _same_weights(a, b):
    (net_a, adam_a), (net_b, adam_b) = _weights(a), _weights(b)
    return net_a.keys() == net_b.keys() and all(torch.equal(net_a[k], net_b[k]) for k in net_a) \
        and all(torch.equal(adam_a[k]["exp_avg"], adam_b[k]["exp_avg"]) for k in adam_a)


def test_resume__a_stopped_and_resumed_run_equals_an_uninterrupted_one(tmp_path, monkeypatch,
                                                                        capsys):
    changes = {"total_steps": 320, "eval_every": 64, "pool_focus": 1.0}
    whole = ppo.run(tiny_config(tmp_path / "whole", **changes))
    # stopped inside the third rollout (128..192), after the eval at 128
    first = run_stopped_at(tiny_config(tmp_path / "parts", **changes), 150, monkeypatch)
    assert first.steps == 128
    spare = tmp_path / "no_state"  # the same stopped run, its resume state lost
    shutil.copytree(first.run_dir, spare)
    resume_state.state_path(spare / "checkpoints" / "step_128.zip").unlink()
    resumed = ppo.run(ppo.read_config(first.run_dir), first.run_dir)
    assert resumed.steps == whole.steps == 320
    assert _same_weights(resumed.final, whole.final)
    for step in (192, 256):  # and every checkpoint on the way
        name = f"checkpoints/step_{step}.zip"
        assert _same_weights(first.run_dir / name, whole.run_dir / name)
    # the test can fail: without the state the run goes on with other deals
    other = ppo.run(ppo.read_config(spare), spare)
    assert "has no resume state" in capsys.readouterr().err
    assert not _same_weights(other.final, whole.final)


@pytest.mark.parametrize("name", ["cz_4p", "sk_2p", "jolly_2p"])
def test_run__repo_configs_train_a_few_steps(tmp_path, name):
    from train.config import load_config, parse_overrides

    small = parse_overrides(["total_steps=64", "num_envs=4", "n_steps=16", "batch_size=32",
                             "n_epochs=1", "net_arch=[16]", "eval_every=64", "eval_deals=1",
                             "eval_opponents=[greedy]", "progress=false",
                             "rule_options={max_turns: 60}", f"run_root={tmp_path}",
                             "teacher_decisions=300", "teacher_epochs=1"])
    result = ppo.run(load_config(f"configs/ppo/{name}.yaml", small))
    assert result.steps == 64 and (result.run_dir / "eval.csv").exists()


def test_resume__skips_a_damaged_newest_checkpoint_and_stray_files(tmp_path, capsys):
    cfg = tiny_config(tmp_path, total_steps=128, eval_every=0)
    first = ppo.run(cfg)
    run_dir = first.run_dir
    (run_dir / "checkpoints" / "step_999.zip").write_bytes(b"cut short")  # a damaged newest
    (run_dir / "checkpoints" / "step_abc.zip").write_bytes(b"stray")
    assert [p.name for p in ppo.checkpoints(run_dir / "checkpoints")][-1] == "step_999.zip"
    model, _, _ = ppo.build(ppo.read_config(run_dir), run_dir)
    assert model.num_timesteps == 128
    assert "skipping damaged checkpoint" in capsys.readouterr().err


def test_resume__logs_hold_each_step_once(tmp_path):
    cfg = tiny_config(tmp_path, total_steps=192, eval_every=64, checkpoint_every=64)
    first = ppo.run(tiny_config(tmp_path, total_steps=192, eval_every=64,
                                checkpoint_every=64))
    run_dir = first.run_dir
    # as after a kill -9 at step 192 whose last checkpoint was step 128
    for name in ("final.zip", "final.json", "checkpoints/step_192.zip",
                 "checkpoints/step_192.json"):
        (run_dir / name).unlink()
    ppo.run(ppo.read_config(run_dir), run_dir)
    steps = []
    for log in sorted(run_dir.glob("progress*.csv")):
        steps += [int(r["time/total_timesteps"]) for r in csv.DictReader(log.open())]
    assert len(steps) == len(set(steps)) and max(steps) == 192 == cfg.total_steps
    evals = [(r["steps"], r["opponent"]) for r in csv.DictReader((run_dir / "eval.csv").open())]
    assert len(evals) == len(set(evals))


def test_save_checkpoint__a_failed_save_leaves_no_temporary_file(tmp_path, tiny_run):
    cfg, result = tiny_run
    model = MaskablePPO.load(result.final, device="cpu")
    target = tmp_path / "ckpt" / "step_1.zip"

    def full_disk(path, *args, **kwargs):
        pathlib.Path(path).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    model.save = full_disk
    with pytest.raises(OSError, match=r"cannot save checkpoint .*No space left on device"):
        ppo.save_checkpoint(model, cfg, target)
    assert list(target.parent.iterdir()) == []


def test_cli_resume__refuses_a_dir_without_checkpoints_unless_restarted(tmp_path):
    from cli import train as train_cli

    run_dir = ppo.start_run(tiny_config(tmp_path))
    with pytest.raises(SystemExit, match="has no checkpoint to resume from; --restart"):
        train_cli.main(["--resume", str(run_dir)])
    with pytest.raises(SystemExit, match="is not a run dir"):
        train_cli.main(["--resume", str(tmp_path)])
    with pytest.raises(SystemExit, match="--minutes must be positive, got -1"):
        train_cli.main(["--minutes", "-1"])


@pytest.fixture(scope="module", params=["hand", "hand+cards", "hand+discard"])
def features_run(request, tmp_path_factory):
    cfg = tiny_config(tmp_path_factory.mktemp("feat"), obs_features=request.param,
                      plan_prior=True, discard_prior=request.param == "hand+discard",
                      eval_every=0)
    return cfg, ppo.run(cfg)


def test_hand_features__the_checkpoint_adds_them_to_plain_observations(features_run):
    from agents.features import hand_features
    from agents.learned import pretrained
    from agents.learned.legacy import spec_of
    from agents.learned.ppo import PPOPolicy

    cfg, result = features_run
    rules = cfg.rules()
    obs, mask = _deal_batch(rules)
    name = cfg.obs_features
    model = MaskablePPO.load(result.final, device="cpu")
    assert spec_of(model.policy).obs_features == name and model.policy.use_plan_prior
    # the prior's weights are trained and saved (PPO moved them from zero)
    assert model.policy.plan_prior.weight.abs().sum() > 0
    assert model.observation_space.shape == (obs.shape[1] + hand_features.feature_size(name),)
    expected, _ = model.predict(hand_features.augment(obs, rules, name), action_masks=mask,
                                deterministic=True)
    agent = make_agent(f"ppo:{result.final}:argmax", rules)  # given plain observations
    assert (agent.act_batch(obs, mask, np.random.default_rng(0)) == expected).all()
    with pytest.raises(ValueError, match=re.escape(f"takes '{name}' features: pass its rules")):
        PPOPolicy(model.policy, "no rules")
    bot = pretrained.unpack(pretrained.pack(model.policy, rules), rules, "tiny")
    assert spec_of(bot).obs_features == name and bot.use_plan_prior
    with_prior = cfg.discard_prior
    assert (model.policy.discard_prior_spec is not None) == with_prior
    assert (bot.discard_prior_spec is not None) == with_prior
    assert np.allclose(PPOPolicy(bot, "bot", rules=rules).probabilities(obs, mask),
                       agent.probabilities(obs, mask), atol=1e-2)


def test_hand_features__the_vec_env_appends_them_to_the_learners_view():
    from agents.features.hand_features import HAND_FEATURES, augment
    from train.zolik_vec import ZolikVecEnv

    env = ZolikVecEnv(3, "cz", 2, seed=4, features="hand")
    plain = ZolikVecEnv(3, "cz", 2, seed=4)
    obs, base = env.reset(), plain.reset()
    assert obs.shape == (3, base.shape[1] + HAND_FEATURES)
    assert np.array_equal(obs, augment(base, env.rules, "hand"))
    with pytest.raises(ValueError, match="obs_features='bad' unknown"):
        tiny_config(pathlib.Path("/tmp"), obs_features="bad")


def test_hand_features__a_network_of_another_feature_version_is_refused(features_run):
    from agents.learned.ppo import PPOPolicy

    cfg, result = features_run
    model = MaskablePPO.load(result.final, device="cpu")
    assert model.policy_kwargs["features_extractor_kwargs"]["feature_version"] == (
        model.policy.pi_features_extractor.feature_version)  # saved in the zip
    assert PPOPolicy(model.policy, "now", rules=cfg.rules()).feature_version == 4
    assert model.policy.net_spec.feature_version == 4  # the spec records it too
    spec = model.policy.net_spec
    model.policy.net_spec = dataclasses.replace(spec, feature_version=3)  # still computed
    assert PPOPolicy(model.policy, "v3", rules=cfg.rules()).feature_version == 3
    model.policy.net_spec = dataclasses.replace(spec, feature_version=2)
    with pytest.raises(ValueError, match="old was trained on hand features version 2"):
        PPOPolicy(model.policy, "old", rules=cfg.rules())


def test_bool_masks__train_exactly_as_sb3_contribs_float_masks(tmp_path, monkeypatch):
    from train import mask_buffer

    changes = {"total_steps": 192, "eval_every": 0}
    bool_run = ppo.run(tiny_config(tmp_path / "bool", **changes))
    with monkeypatch.context() as patch:
        patch.setattr(ppo, "use_bool_masks", lambda model: None)  # float32 masks
        float_run = ppo.run(tiny_config(tmp_path / "float", **changes))
    assert _same_weights(bool_run.final, float_run.final)
    # the test can fail: masks that gain an illegal move train otherwise
    add = mask_buffer.BoolMaskRolloutBuffer.add

    def widened(self, *args, action_masks=None, **kwargs):
        masks = np.array(action_masks, bool).reshape(self.n_envs, -1)
        masks[np.arange(self.n_envs), np.argmin(masks, 1)] = True
        add(self, *args, action_masks=masks, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(mask_buffer.BoolMaskRolloutBuffer, "add", widened)
        widened_run = ppo.run(tiny_config(tmp_path / "widened", **changes))
    assert not _same_weights(widened_run.final, float_run.final)
