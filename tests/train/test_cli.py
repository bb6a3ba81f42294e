"""``zolik train``: runs from a config with overrides; a real ``kill -9`` then ``--resume``."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from cli import train as cli
from tests.train.conftest import TINY
from tests.train.test_ppo import _same_weights
from train import ppo
from train.config import load_config


def test_cli__config_with_overrides(tmp_path, capsys):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "run_root": str(tmp_path / "runs")}))
    assert cli.main(["--config", str(path), "--set", "total_steps=64", "--set", "eval_every=0",
                     "--seed", "5"]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    cfg = ppo.read_config(run_dir)
    assert cfg.total_steps == 64 and cfg.seed == 5 and run_dir.name.startswith("tiny__5__")
    assert "64 steps" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["--resume", str(run_dir), "--set", "seed=2"])


@pytest.mark.slow
def test_cli__kill_9_then_resume(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "run_root": str(tmp_path / "runs"),
                                    "total_steps": 100_000, "eval_every": 0}))
    proc = subprocess.Popen([sys.executable, "-m", "cli.train", "--config", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 90
    while not list(tmp_path.glob("runs/*/checkpoints/step_192.zip")) and time.time() < deadline:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    (run_dir,) = (tmp_path / "runs").iterdir()
    config_text = (run_dir / "config.yaml").read_text()
    last = ppo.checkpoints(run_dir / "checkpoints")[-1]
    assert ppo.step_of(last) >= 192 and not (run_dir / "final.zip").exists()
    model, _, _ = ppo.build(ppo.read_config(run_dir), run_dir)
    assert model.num_timesteps == ppo.step_of(last)
    assert cli.main(["--resume", str(run_dir), "--minutes", "0.05"]) == 0
    assert (run_dir / "config.yaml").read_text() == config_text
    assert ppo.step_of(ppo.checkpoints(run_dir / "checkpoints")[-1]) > ppo.step_of(last)
    # the logs of both sessions together hold each step once, in order
    sessions = sorted(run_dir.glob("progress*.csv"),  # progress.csv, progress.1.csv, ...
                      key=lambda log: int(log.suffixes[0][1:]) if len(log.suffixes) > 1 else 0)
    assert len(sessions) == 2
    steps = [int(row["time/total_timesteps"])
             for log in sessions for row in csv.DictReader(log.open())]
    assert steps and steps == sorted(set(steps)), steps
    # and the weights are those of a run never killed, at the resumed run's last checkpoint
    newest = ppo.checkpoints(run_dir / "checkpoints")[-1]
    whole = ppo.run(load_config(path, {"run_root": str(tmp_path / "whole"),
                                       "total_steps": ppo.step_of(newest)}))
    assert whole.steps == ppo.step_of(newest)
    assert _same_weights(newest, whole.final)


def test_main_job__trains_evaluates_and_prints_the_table(tmp_path, capsys):
    from cli import main_job

    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "run_root": str(tmp_path / "runs")}))
    assert main_job.main(["--config", str(path), "--steps", "64", "--deals", "2",
                          "--opponents", "greedy", "random", "--set", "eval_every=32"]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "random" in out and "win share" in out and "profile:" in out
    verdicts = [line for line in out.splitlines() if line.startswith("PPO (")]
    assert [v.split(")")[0] for v in verdicts if " greedy" in v] == ["PPO (sample", "PPO (argmax"]
    (run_dir,) = (tmp_path / "runs").iterdir()
    rows = list(csv.DictReader((run_dir / "final_eval.csv").open()))
    assert [(r["play"], r["opponent"]) for r in rows] == [
        ("sample", "greedy"), ("sample", "random"), ("argmax", "greedy"), ("argmax", "random")]
    assert (run_dir / "learning_curve.png").exists() and (run_dir / "final_eval.json").exists()
    assert ppo.read_config(run_dir).eval_every == 32


def test_strength__evaluates_a_run_and_reports_the_profile(tiny_run, capsys):
    from cli import strength

    _, result = tiny_run
    assert strength.main(["ppo", "--run", str(result.run_dir), "--deals", "2",
                          "--opponents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "update" in out and "learner steps/s" in out
    saved = json.loads((result.run_dir / "strength.json").read_text())
    assert [r["play"] for r in saved["rows"]] == ["sample", "argmax"]
    assert strength.main(["ppo", "--run", str(result.run_dir), "--deals", "2",
                          "--opponents", "greedy", "--play", "argmax"]) == 0
    saved = json.loads((result.run_dir / "strength.json").read_text())
    assert [r["play"] for r in saved["rows"]] == ["argmax"]


@pytest.mark.parametrize(("args", "message"), [
    (["--opponents", "greedy", "bogus"], "zolik main: --opponents: unknown agent 'bogus'"),
    (["--deals", "0"], "--deals must be positive, got 0"),
    (["--minutes", "-1"], "--minutes must be positive, got -1"),
])
def test_main_job__bad_arguments_stop_before_training(args, message, monkeypatch):
    from cli import main_job

    monkeypatch.setattr(main_job, "run", lambda cfg: pytest.fail("trained before checking"))
    with pytest.raises(SystemExit, match=message):
        main_job.main(args)


def test_verdict__says_beats_trails_or_not_separated():
    from train.evaluate import verdict

    row = {"opponent": "planner", "score_diff": -12.5, "score_diff_low": -15.0,
           "score_diff_high": -10.0}
    assert verdict(row) == ("PPO trails planner by 12.5 points per deal (-12.5 [-15.0, -10.0] "
                            "points per deal)")
    assert verdict({**row, "score_diff": 3.0, "score_diff_low": 1.0,
                    "score_diff_high": 5.0}).startswith("PPO beats planner: +3.0")
    assert "not separated" in verdict({**row, "score_diff_high": 2.0})


def test_evaluate_checkpoint__an_unknown_play_mode_is_named(tiny_run):
    from train.evaluate import evaluate_checkpoint

    cfg, result = tiny_run
    with pytest.raises(ValueError, match=r"play modes \['best'\]: choose from sample, argmax"):
        evaluate_checkpoint(result.final, cfg.rules(), ["greedy"], 1, 0, 0, 2 * 10**9,
                            modes=["best"])
