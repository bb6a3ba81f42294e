"""The annealed step size and entropy weight (``train.schedule``)."""

import csv

import pytest
import torch
from sb3_contrib import MaskablePPO

from tests.train.conftest import run_stopped_at, tiny_config
from train import ppo, schedule
from train.config import PPOConfig


def test_budget_share__the_larger_of_steps_and_minutes():
    assert schedule.budget_share(50, 0, 200, elapsed_s=0.0, budget_s=None) == 0.25
    assert schedule.budget_share(50, 0, 200, elapsed_s=30.0, budget_s=60.0) == 0.5
    assert schedule.budget_share(150, 0, 200, elapsed_s=30.0, budget_s=60.0) == 0.75
    # zolik main --steps 8192 --minutes 9: the steps stop it long before the minutes
    assert schedule.budget_share(4096, 0, 8192, elapsed_s=60, budget_s=540) == 0.5
    # the usual case: minutes run out long before total_steps
    assert schedule.budget_share(100_000, 0, 5_000_000, elapsed_s=270, budget_s=540) == 0.5


def test_budget_share__counts_from_the_first_step_and_never_past_1():
    # the progress bar of a resumed session counts from that session's first step
    assert schedule.budget_share(3_000, 2_000, 4_000, elapsed_s=0, budget_s=60) == 0.5
    assert schedule.budget_share(9_000, 0, 8_192, elapsed_s=10, budget_s=60) == 1.0
    assert schedule.budget_share(10, 10, 10, elapsed_s=0, budget_s=60) == 1.0
    assert schedule.budget_share(400, 0, 200, elapsed_s=0.0, budget_s=None) == 1.0
    # a warm start that spent the whole budget leaves the final values
    assert schedule.budget_share(0, 0, 200, elapsed_s=0.0, budget_s=-5.0) == 1.0


def test_settings__linear_from_start_to_final_and_constant_without_final():
    cfg = PPOConfig(learning_rate=1e-4, learning_rate_final=2e-5, ent_coef=0.01,
                    ent_coef_final=0.0)
    assert schedule.settings(cfg, 0.0) == schedule.Settings(1e-4, 0.01)
    assert schedule.settings(cfg, 1.0) == schedule.Settings(2e-5, 0.0)
    half = schedule.settings(cfg, 0.5)
    assert half.learning_rate == pytest.approx(6e-5) and half.ent_coef == pytest.approx(0.005)
    plain = PPOConfig(learning_rate=1e-4, ent_coef=0.01)
    assert not schedule.is_scheduled(plain)
    assert schedule.settings(plain, 0.7) == schedule.Settings(1e-4, 0.01)


ANNEALED = {"total_steps": 256, "eval_every": 0, "learning_rate": 1e-3,
            "learning_rate_final": 1e-4, "ent_coef": 0.02, "ent_coef_final": 0.0}


def _logged(run_dir):
    with open(run_dir / "progress.csv") as f:
        return [row for row in csv.DictReader(f) if row.get("train/learning_rate")]


def _policy(checkpoint):
    return MaskablePPO.load(checkpoint, device="cpu").policy


def _same_weights(a, b):
    net_a, net_b = _policy(a).state_dict(), _policy(b).state_dict()
    return all(torch.equal(net_a[k], net_b[k]) for k in net_a)


def test_run__each_update_uses_the_values_of_the_share_done(tmp_path):
    cfg = tiny_config(tmp_path, **ANNEALED)
    result = ppo.run(cfg)
    rows = _logged(result.run_dir)
    # the update after each rollout of 64 decisions, logged with the next rollout
    assert [int(row["time/total_timesteps"]) for row in rows] == [128, 192, 256]
    for row in rows:
        share = (int(row["time/total_timesteps"]) - 64) / cfg.total_steps
        assert float(row["train/schedule_share"]) == pytest.approx(share)
        assert float(row["train/learning_rate"]) == pytest.approx(1e-3 - 9e-4 * share)
        assert float(row["train/ent_coef"]) == pytest.approx(0.02 * (1 - share))
    # the optimizer took its last step at the final value
    assert _policy(result.final).optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)


def test_resume__an_annealed_run_stopped_and_resumed_equals_an_uninterrupted_one(
        tmp_path, monkeypatch):
    whole = ppo.run(tiny_config(tmp_path / "whole", **ANNEALED))
    # stopped inside the third rollout, after two annealed updates
    first = run_stopped_at(tiny_config(tmp_path / "parts", **ANNEALED), 150, monkeypatch)
    resumed = ppo.run(ppo.read_config(first.run_dir), first.run_dir)
    assert resumed.steps == whole.steps == 256
    assert _same_weights(resumed.final, whole.final)
    # the test can fail: the same run at a constant step size ends elsewhere
    constant = ppo.run(tiny_config(tmp_path / "constant", **{
        **ANNEALED, "learning_rate_final": None, "ent_coef_final": None}))
    assert not _same_weights(constant.final, whole.final)
