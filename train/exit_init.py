"""The training that starts an expert-iteration run from nothing (``zolik exit --init
config:NAME``), so that a recipe and its rounds are one command.

``run_of_config`` trains a packaged PPO config for a wall-clock budget into a fixed run
dir (``OUT/init``), then the rounds start from its ``final.zip``. A killed pipeline,
started again, finds the run dir: a finished training is kept as it is; an unfinished one
resumes from its newest checkpoint for the minutes its budget has left. Each training
session's start is kept in ``init.json`` beside the run's logs, and a session's spent time
is read back as the last write of its own progress log (SB3 writes it every rollout), so
a kill costs at most the rollout in progress, and the warm start of a session killed
before its first rollout is played again.
"""

from __future__ import annotations

import json
import pathlib
import time
from typing import Any

from train.config import to_dict
from train.ppo import progress_log, write_config

LEDGER = "init.json"


def spent_minutes(run_dir: pathlib.Path, starts: list[float]) -> float:
    """Minutes the training sessions that began at ``starts`` spent, each up to its progress
    log's last write (0 for a session that wrote none)."""
    spent = 0.0
    for session, start in enumerate(starts):
        log = progress_log(run_dir, session)
        if log.exists():
            spent += max(0.0, log.stat().st_mtime - start)
    return spent / 60


def run_of_config(cfg: Any, run_dir: pathlib.Path, minutes: float,
                  train: Any = None) -> pathlib.Path:
    """``run_dir`` holding ``cfg`` trained for ``minutes`` of wall clock (resumed, or kept
    when finished; see the module docstring). ``ValueError`` when ``run_dir`` holds a run
    of another config or budget. ``train`` stands in for ``train.ppo.run`` (tests)."""
    if train is None:
        from train.ppo import run as train
    run_dir = pathlib.Path(run_dir)
    ledger_path = run_dir / LEDGER
    mine = {"config": to_dict(cfg), "minutes": float(minutes)}
    if ledger_path.exists():
        ledger = json.loads(ledger_path.read_text())
        if {k: ledger.get(k) for k in mine} != mine:
            raise ValueError(f"{run_dir} holds a training of another config or budget "
                             f"({ledger.get('config', {}).get('exp_name')}, "
                             f"{ledger.get('minutes')} minutes); give another --out")
    else:
        ledger = {**mine, "sessions": []}
    if (run_dir / "final.zip").exists():
        return run_dir
    left = minutes - spent_minutes(run_dir, ledger["sessions"])
    run_dir.mkdir(parents=True, exist_ok=True)
    if not (run_dir / "config.yaml").exists():
        write_config(cfg, run_dir)
    ledger["sessions"].append(time.time())
    ledger_path.write_text(json.dumps(ledger, indent=1))
    print(f"training {cfg.exp_name} (seed {cfg.seed}) into {run_dir}: {max(left, 0):.1f} of "
          f"{minutes:g} minutes left", flush=True)
    train(cfg, run_dir, minutes=max(left, 0.05))  # a spent budget still saves final.zip
    if not (run_dir / "final.zip").exists():
        raise RuntimeError(f"{run_dir}: the training stopped before its budget; "
                           f"run the same command again to resume it")
    return run_dir


__all__ = ["run_of_config", "spent_minutes"]
