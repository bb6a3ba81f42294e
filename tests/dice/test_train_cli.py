"""PPO recipe config and smoke run, the ``zolik dice`` CLI, and the core's import layering."""

import csv
import subprocess
import sys

import pytest
import yaml

from cli import dice as cli
from train.dice import ppo as dice_ppo
from train.runlog import checkpoints, step_of


def test_load_config__repo_config_is_valid():
    cfg = dice_ppo.load_config("configs/dice/ppo_forced.yaml")
    assert cfg.joker == "forced" and cfg.table == "classic" and cfg.policy == "turn"


def test_load_config__unknown_key_raises(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("joker: forced\nlearning_rat: 0.1\n")
    with pytest.raises(ValueError, match="learning_rat"):
        dice_ppo.load_config(path)


def test_load_config__bad_rules_option_raises(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("joker: wild\n")
    with pytest.raises(ValueError, match="joker"):
        dice_ppo.load_config(path)


def test_run__smoke_then_resume(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "total_timesteps": 512, "num_envs": 16, "n_steps": 16, "batch_size": 64, "n_epochs": 1,
        "checkpoint_every": 256, "net_arch": [16], "run_root": str(tmp_path / "runs"),
    }))  # fmt: skip
    run_dir = dice_ppo.run(dice_ppo.load_config(path))
    assert (run_dir / "final.zip").exists() and (run_dir / "config.yaml").exists()
    assert len((run_dir / "progress.csv").read_text().splitlines()) >= 2
    assert list((run_dir / "checkpoints").glob("step_*.zip"))
    # as after a kill -9 past the last checkpoint: the log holds steps it does not
    for stale in (run_dir / "checkpoints").glob("step_*.zip"):
        if step_of(stale) > 256:
            stale.unlink()
    (run_dir / "checkpoints" / "step_999999.zip").write_bytes(b"damaged")
    cfg = dice_ppo.load_config(run_dir / "config.yaml", total_timesteps=1024)
    dice_ppo.run(cfg, run_dir)
    assert any(step_of(p) >= 768 for p in checkpoints(run_dir / "checkpoints"))
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    steps = [int(r["steps"]) for r in rows]
    assert steps == sorted(set(steps)) and steps[-1] >= 1024  # each step once, in order
    for column in ("seconds", "games"):
        values = [float(r[column]) for r in rows]
        assert values == sorted(values), column  # continues, never restarts


def test_cli__solve_fixed_order(capsys):
    assert cli.main(["solve", "--fixed-order", "--joker", "forced"]) == 0
    out = capsys.readouterr().out
    assert "forced" in out and "expected" in out


def test_cli__eval_random_with_json(tmp_path, capsys):
    out_file = tmp_path / "eval.json"
    argv = ["eval", "--agent", "random", "--games", "50", "--fixed-order", "--json", str(out_file)]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "mean" in text and "upper_bonus_rate" in text and out_file.exists()


def test_cli__help_lists_subcommands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for name in ("solve", "eval", "bench", "train"):
        assert name in out


def test_cli__bench_prints_a_table(capsys):
    assert cli.main(["bench", "--batch", "1", "64", "--seconds", "0.05"]) == 0
    assert "| batch 1 | batch 64 |" in capsys.readouterr().out.replace("| rules ", "")


def test_layering__core_imports_no_env_or_training_libraries():
    code = (
        "import sys, zolik_env.dice, zolik_env.dice.solver, zolik_env.dice.evaluate, "
        "zolik_env.dice.bench, cli.dice, zolik_env\n"
        "bad = {'gymnasium', 'pettingzoo', 'torch', 'stable_baselines3'} & set(sys.modules)\n"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(("line", "message"), [
    ("net_arch: [0]", r"net_arch=\[0\]: hidden layers must be one or more positive widths"),
    ("net_arch: []", r"net_arch=\[\]: hidden layers must be one or more positive widths"),
    ("ent_coef: -3", "ent_coef=-3 must be >= 0"),
    ("vf_coef: -1", "vf_coef=-1 must be >= 0"),
    ("gamma: 5", "gamma=5 must be <= 1"),
    ("gae_lambda: 0", "gae_lambda=0 must be > 0"),
    ("time_budget_minutes: -1", "time_budget_minutes=-1 must be >= 0"),
    ("run_root: ''", "run_root='': must name a folder"),
])
def test_load_config__values_out_of_range_name_the_file_and_the_value(tmp_path, line, message):
    path = tmp_path / "bad.yaml"
    path.write_text(f"joker: forced\n{line}\n")
    with pytest.raises(ValueError, match=f"^{message} \\(in {path}\\)$"):
        dice_ppo.load_config(path)
