"""Every script in ``examples/`` runs: a short version of each, in process."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples__each_has_a_test_here():
    tested = {"ismcts_vs_planner.py", "ppo_plain_torch.py"}
    assert {p.name for p in (ROOT / "examples").glob("*.py")} == tested


def test_ismcts_vs_planner__plays_deals_and_prints_the_mean(capsys):
    pytest.importorskip("pyspiel")
    load_example("ismcts_vs_planner.py").main(["--deals", "1", "--simulations", "4",
                                               "--preset", "sk"])
    out = capsys.readouterr().out
    assert "deal 0: returns" in out and "over 1 deals" in out


def test_ppo_plain_torch__trains_and_measures_against_random(capsys):
    load_example("ppo_plain_torch.py").main(["--minutes", "0.02", "--num-envs", "8",
                                             "--steps", "8", "--eval-deals", "2"])
    out = capsys.readouterr().out
    assert "learner steps in" in out
    assert "plain_ppo - random on 2 held-out duplicate deals: points per deal" in out
