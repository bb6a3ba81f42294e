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


def test_solver__reports_progress_up_to_every_state_and_caches_once(tmp_path, monkeypatch):
    from zolik_env.dice import solver

    monkeypatch.setenv("ZOLIK_CACHE_DIR", str(tmp_path))
    calls = []
    path = solver.ensure_table("none", True, True, progress=lambda d, t: calls.append((d, t)))
    assert path.exists() and path.parent == tmp_path and len(calls) > 1
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == calls[-1][1]  # climbs to the total
    again = []
    solver.ensure_table("none", True, True, progress=lambda d, t: again.append(d))
    assert again == []  # cached: nothing to solve


def test_cli__solve_shows_a_bar_while_it_solves(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ZOLIK_CACHE_DIR", str(tmp_path))
    assert cli.main(["solve", "--fixed-order"]) == 0
    captured = capsys.readouterr()
    assert "solving joker=none" in captured.err and "state" in captured.err
    assert "expected" in captured.out


def test_cli__resume_of_a_dice_run_without_checkpoints_is_refused(tmp_path, capsys):
    from cli import main as zolik

    (tmp_path / "config.yaml").write_text("joker: forced\n")
    assert zolik.main(["dice", "train", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no checkpoint to resume from; --restart" in err and len(err.splitlines()) == 1
