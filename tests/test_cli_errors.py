"""Errors at the command line: one line naming the problem, never a traceback."""

import sys
import types

import pytest

from cli import main as cli


def _fake_command(monkeypatch, error):
    module = types.ModuleType("fake_command")

    def main(argv):
        raise error

    module.main = main
    monkeypatch.setitem(sys.modules, "fake_command", module)
    monkeypatch.setitem(cli.SUBCOMMANDS, "fake", ("fake_command", "a test command"))


@pytest.mark.parametrize("error", [ValueError("games must be positive, got 0"),
                                   OSError(28, "No space left on device")])
def test_zolik__an_escaping_error_is_one_line_and_exit_2(monkeypatch, capsys, error):
    _fake_command(monkeypatch, error)
    assert cli.main(["fake"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zolik fake: ") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(("raised", "shown"), [
    ("zolik fake: --deals must be positive, got 0", "zolik fake: --deals must be positive"),
    ("--resume keeps the run's config", "zolik fake: --resume keeps the run's config"),
])
def test_zolik__a_refused_argument_is_one_line_and_exit_2(monkeypatch, capsys, raised, shown):
    _fake_command(monkeypatch, SystemExit(raised))
    assert cli.main(["fake"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(shown) and len(err.strip().splitlines()) == 1


def test_zolik__an_exit_status_passes_through(monkeypatch):
    _fake_command(monkeypatch, SystemExit(3))
    with pytest.raises(SystemExit) as stop:
        cli.main(["fake"])
    assert stop.value.code == 3


@pytest.mark.parametrize(("argv", "message"), [
    (["strength", "pairs", "--deals", "0"], "--deals must be positive, got 0"),
    (["strength", "pairs", "--players", "two"], "--players takes comma-separated player "
                                                "counts, got 'two'"),
    (["strength", "pairs", "--presets", "xx"], "'xx'"),
    (["strength", "pairs", "--pair", "greedy", "nosuchagent"], "nosuchagent"),
    (["strength", "pairs", "--pairs", "ppo:x.zip:greedy"], "use --pair A B"),
    (["strength", "ppo", "--deals", "-4", "--run", "."], "--deals must be positive, got -4"),
    (["strength", "kinds", "--agent", "planner", "--deals", "0"], "--deals must be positive"),
    (["strength", "kinds", "--agent", "nosuchagent"], "nosuchagent"),
    (["strength", "kinds", "--agent", "pimc:rollouts=2", "--deals", "1"],
     "agent 'pimc:rollouts=2' does not act on an observation alone"),
    (["strength", "ppo", "--train-minutes", "-1"], "--train-minutes must be positive"),
    (["strength", "ppo", "--train-minutes", "1", "--opponents", "nosuchagent"],
     "nosuchagent"),
    (["strength", "ppo", "--run", "."], "is not a run dir"),
    (["strength", "ppo", "--run", ".", "--seed", "2"], "--seed and --set go with --train-minutes"),
    (["strength", "ppo", "--train-minutes", "1", "--config", "nope"], "no ppo config 'nope'"),
    (["strength", "ppo", "--train-minutes", "1", "--set", "seed"], "'seed' is not key=value"),
    (["strength", "ppo", "--train-minutes", "1", "--set", "no_such_key=1"], "no_such_key"),
    (["strength", "ppo", "--train-minutes", "1", "--set", "ent_coef=-1"], "ent_coef"),
])
def test_strength__bad_arguments_fail_before_any_deal(capsys, argv, message):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("zolik strength") and message in err
    assert len(err.strip().splitlines()) == 1


def test_strength__seed_and_overrides_reach_the_training_run(monkeypatch, tmp_path):
    import train.strength

    trained = []
    monkeypatch.setattr(train.strength, "train_run",
                        lambda cfg, minutes: trained.append((cfg, minutes)) or tmp_path)
    monkeypatch.setattr(train.strength, "benchmark", lambda *args: None)
    assert cli.main(["strength", "ppo", "--config", "cz_2p_hour", "--train-minutes", "2",
                     "--seed", "7", "--set", "num_envs=64"]) == 0
    ((cfg, minutes),) = trained
    assert (cfg.seed, cfg.num_envs, cfg.exp_name, minutes) == (7, 64, "ppo_cz2p_hour", 2)


def test_zolik__debug_shows_the_traceback(monkeypatch):
    _fake_command(monkeypatch, ValueError("boom"))
    monkeypatch.setenv("ZOLIK_DEBUG", "1")
    with pytest.raises(ValueError, match="boom"):
        cli.main(["fake"])


@pytest.mark.parametrize("spec", ["ppo:some/model.zip:bogusmode", "pretrained:cz_2p:fast"])
def test_agent_modes__an_unknown_mode_is_an_error(spec):
    from agents.registry import make_agent
    from zolik_env.rummy.rules import preset

    with pytest.raises(ValueError, match="unknown mode"):
        make_agent(spec, preset("cz"))


def test_ppo_sidecar__broken_json_names_the_file(tmp_path):
    from agents.learned.ppo import check_meta
    from zolik_env.rummy.rules import preset

    model = tmp_path / "model.zip"
    (tmp_path / "model.json").write_text('{"rules": "c\x01z"}')
    with pytest.raises(ValueError, match=r"the sidecar .*model.json of PPO checkpoint"):
        check_meta(model, preset("cz"))


@pytest.mark.parametrize("argv", [
    ["dice", "eval", "--games", "0"],
    ["dice", "bench", "--batch", "0"],
    ["bench-env", "--seconds", "-1"],
    ["bench", "--batches", "1.5"],
])
def test_numbers_that_must_be_positive_are_refused_at_parse_time(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and ("must be positive" in err or "whole number" in err)


def test_dice_eval__a_bad_agent_fails_before_the_solver(monkeypatch, capsys):
    from zolik_env.dice import solver

    monkeypatch.setattr(solver, "expected_score", lambda *a: pytest.fail("solved first"))
    assert cli.main(["dice", "eval", "--agent", "bogus"]) == 2
    assert "unknown agent 'bogus'" in capsys.readouterr().err


def test_dice_config__a_zero_checkpoint_interval_is_an_error(tmp_path):
    from train.dice.ppo import load_config

    path = tmp_path / "dice.yaml"
    path.write_text("checkpoint_every: 0\n")
    with pytest.raises(ValueError, match="checkpoint_every=0 must be > 0"):
        load_config(path)
