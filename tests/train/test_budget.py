"""Honest budgets (``train.budget``): ``--minutes`` bounds the whole session, warm start
included; the run prints its plan first; the step count of the summary is the bar's."""

import json
import re
import time
from pathlib import Path

from tests.train.conftest import run_stopped_at, tiny_config
from train import budget, ppo
from train.config import make_config
from zolik_env.config_model import read_yaml

ROOT = Path(__file__).resolve().parents[2]


def cz_2p(tmp_path, **changes):
    """The default config as ``zolik train --config cz_2p`` reads it."""
    raw = read_yaml(ROOT / "configs" / "ppo" / "cz_2p.yaml")
    return make_config({**raw, "run_root": str(tmp_path / "runs"), "progress": False,
                        **changes})


def test_plan__a_short_budget_cuts_the_warm_start_to_its_share(tmp_path):
    cfg = cz_2p(tmp_path)  # 400,000 teacher decisions, 4 epochs
    plan = budget.plan_session(cfg, 1.5, warm=True)
    assert plan.cut and plan.decisions < cfg.teacher_decisions and plan.epochs >= 1
    assert plan.teacher_s <= budget.TEACHER_SHARE * 90 + 1e-9 or plan.decisions == (
        budget.MIN_DECISIONS)
    assert plan.clone_s <= budget.CLONE_SHARE * 90 + 1e-9
    text = plan.describe(cfg)
    for words in ("budget 1.5 min", "teacher data:", "planner decisions", "cloning:",
                  "% of the budget", "PPO: the rest", "expected: about 1.5 min", "cut from"):
        assert words in text, words


def test_plan__without_a_budget_the_config_stands_and_says_how_long():
    cfg = make_config({"teacher": "planner", "teacher_decisions": 400_000,
                       "teacher_epochs": 4, "run_root": "/nonexistent"})
    plan = budget.plan_session(cfg, None, warm=True)
    assert (plan.decisions, plan.epochs, plan.cut) == (400_000, 4, False)
    text = plan.describe(cfg)
    assert "no time budget" in text and "expected: warm start about" in text
    assert budget.plan_session(cfg, 30, warm=False).describe(cfg).count("warm start: none")


def test_run__a_short_budget_with_the_warm_start_holds(tmp_path, capsys):
    minutes = 0.5
    cfg = cz_2p(tmp_path, num_envs=32, batch_size=256, eval_every=0, torch_threads=1)
    began = time.time()
    result = ppo.run(cfg, minutes=minutes)
    wall = time.time() - began
    out = capsys.readouterr().out
    assert out.startswith("plan (budget 0.5 min for the whole session):")
    warm = json.loads((result.run_dir / "warm_start.json").read_text())
    assert warm["planned"]["cut"] and warm["epochs"] == warm["planned"]["epochs"]
    assert result.steps > 0  # PPO had its share
    assert wall < 60 * minutes + 30, wall  # the budget, and the last checkpoint's save


def test_run__the_bar_and_the_summary_count_the_same_steps(tmp_path, monkeypatch, capsys):
    cfg = tiny_config(tmp_path, total_steps=256, progress=True)
    result = run_stopped_at(cfg, 72, monkeypatch)  # inside the rollout from step 64
    assert result.played == 72 and result.steps == 64
    assert (result.run_dir / "checkpoints" / "step_64.zip").exists()
    bar = capsys.readouterr().err
    assert re.findall(r"steps=(\d+)", bar)[-1] == "64"  # the bar's last word: the kept steps
    assert re.findall(r"played=(\d+)", bar)[-1] == "72"


def test_fit_clone__fewer_epochs_then_fewer_decisions():
    import numpy as np

    from train.imitation import TeacherData

    n = 10_000
    data = TeacherData(np.zeros((n, 3), np.int16), np.zeros((n, 2), np.uint8),
                       np.arange(n, dtype=np.int16), np.zeros(n, np.float32),
                       np.zeros((n, 0), np.int16))
    assert budget.fit_clone(data, 4, 1000.0, None) == (data, 4)  # no budget: as planned
    kept, epochs = budget.fit_clone(data, 4, 1000.0, 25)  # 25,000 samples: 2 epochs
    assert kept is data and epochs == 2
    kept, epochs = budget.fit_clone(data, 4, 1000.0, 5)  # half an epoch: the first rows
    assert epochs == 1 and len(kept) == 5000 and kept.action[-1] == 4999
    kept, _ = budget.fit_clone(data, 4, 1000.0, -3)  # nothing left: the smallest set
    assert len(kept) == budget.MIN_DECISIONS
