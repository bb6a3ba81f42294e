"""A real ``kill -9`` in the middle of an evaluation and of a dice training run, then a
resume: the evaluation's results equal those of an uninterrupted run; the dice training
run's weights and log equal those of an uninterrupted run, each step logged once (the
Žolík training run's kill test is in ``tests/train/test_cli.py``)."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

ZOLIK = str(Path(sys.executable).parent / "zolik")


def _kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool],
               seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while not ready() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
def test_eval__killed_then_resumed_gives_the_uninterrupted_results(tmp_path):
    args = ["eval", "--agents", "planner", "greedy", "--deals", "40", "--chunk-deals", "4",
            "--workers", "1", "--no-plots", "--no-progress"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    subprocess.run([ZOLIK, *args, "--out", str(whole)], check=True, capture_output=True)
    proc = subprocess.Popen([ZOLIK, *args, "--out", str(cut)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _kill_when(proc, lambda: len(list(cut.glob("chunks/*.npz"))) >= 2)
    assert proc.returncode == -signal.SIGKILL  # stopped midway, before the report
    saved = len(list(cut.glob("chunks/*.npz")))
    assert 2 <= saved < 10 and not (cut / "results.json").exists()
    subprocess.run([ZOLIK, *args, "--out", str(cut), "--resume"], check=True,
                   capture_output=True)
    assert (cut / "games.csv").read_text() == (whole / "games.csv").read_text()
    assert (cut / "pairs.csv").read_text() == (whole / "pairs.csv").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("policy", [{"policy": "mlp", "net_arch": [16]},
                                    {"policy": "turn", "turn_hidden": [8]}], ids=["mlp", "turn"])
def test_dice_train__killed_then_resumed_equals_an_uninterrupted_run(tmp_path, policy):
    from tests.train.test_ppo import _same_weights
    from train.dice import ppo as dice_ppo
    from train.runlog import checkpoints, step_of

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "num_envs": 16, "n_steps": 16, "batch_size": 64, "n_epochs": 1, **policy,
        "checkpoint_every": 512, "total_timesteps": 1_000_000, "time_budget_minutes": 5,
        "lr_schedule": "constant", "run_root": str(tmp_path / "runs")}))
    proc = subprocess.Popen([ZOLIK, "dice", "train", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_when(proc, lambda: len(list(tmp_path.glob("runs/*/checkpoints/step_*.zip"))) >= 2)
    assert proc.returncode == -signal.SIGKILL
    (run_dir,) = (tmp_path / "runs").iterdir()
    killed_at = step_of(checkpoints(run_dir / "checkpoints")[-1])
    # long enough for a checkpoint past the kill on a loaded machine (the start counts)
    done = subprocess.run([ZOLIK, "dice", "train", "--resume", str(run_dir), "--minutes",
                           "0.25"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-1000:]
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    steps = [int(row["steps"]) for row in rows]
    assert len(steps) > 2 and steps == sorted(set(steps)), steps
    games = [int(row["games"]) for row in rows]
    assert games == sorted(games)  # counted on across the kill, not restarted
    # a run never killed, stopped at the resumed run's newest checkpoint: the same weights
    # and the same log (steps, games, mean score)
    newest = checkpoints(run_dir / "checkpoints")[-1]
    assert step_of(newest) > killed_at
    whole = dice_ppo.run(dice_ppo.load_config(config, total_timesteps=step_of(newest),
                                              run_root=str(tmp_path / "whole")))
    assert _same_weights(newest, whole / "final.zip")
    logged = [r for r in rows if int(r["steps"]) <= step_of(newest)]
    uninterrupted = list(csv.DictReader((whole / "progress.csv").open()))
    columns = ("steps", "games", "mean_score_last_1000")
    assert [[r[c] for c in columns] for r in logged] == [
        [r[c] for c in columns] for r in uninterrupted]
