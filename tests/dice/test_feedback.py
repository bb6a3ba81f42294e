"""``zolik dice``: eval says what it does before the solve; a timed training run's bar
counts seconds of the budget, not the configured steps."""

import yaml

from cli import dice as cli


def test_cli__eval_shows_progress_before_the_solve(capsys):
    assert cli.main(["eval", "--agent", "random", "--games", "20", "--fixed-order"]) == 0
    err = capsys.readouterr().err
    assert err.index("solving the optimal tables") < err.index("playing 20 games")


def test_train__a_timed_run_counts_seconds(tmp_path, capsys):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "total_timesteps": 50_000_000, "num_envs": 16, "n_steps": 16, "batch_size": 64,
        "n_epochs": 1, "net_arch": [16], "run_root": str(tmp_path / "runs"),
    }))  # fmt: skip
    assert cli.main(["train", "--config", str(path), "--minutes", "0.02"]) == 0
    err = capsys.readouterr().err
    assert "/1 [" in err and "50000000" not in err, err[-500:]
