"""``zolik exit --init config:NAME``: a recipe's training and its rounds as one command
(``train.exit_init``), and ``--labels round`` (each round learns its own labels only)."""

import json
import os
import time

import pytest
import yaml

from agents.learned.ppo import resolve_checkpoint
from cli import main as zolik
from tests.train.conftest import TINY, tiny_config
from tests.train.test_expert_iteration import plan_for
from tests.train.test_ppo import _same_weights
from train import exit_init
from train import expert_iteration as exit_


class FakeTraining:
    """Stands in for ``train.ppo.run``: records each session's budget; a session writes its
    progress log as if it had run ``ran`` minutes, and finishes (``final.zip``) or not."""

    def __init__(self, ran, finishes):
        self.ran, self.finishes, self.budgets = list(ran), list(finishes), []

    def __call__(self, cfg, run_dir, minutes):
        session = len(self.budgets)
        self.budgets.append(minutes)
        log = exit_init.progress_log(run_dir, session)
        log.write_text("step\n")
        start = json.loads((run_dir / exit_init.LEDGER).read_text())["sessions"][session]
        written = start + 60 * self.ran[session]
        os.utime(log, (written, written))
        if self.finishes[session]:
            (run_dir / "final.zip").write_text("weights")


def test_run_of_config__a_killed_training_resumes_for_the_minutes_its_budget_has_left(
        tmp_path):
    cfg, folder = tiny_config(tmp_path), tmp_path / "init"
    training = FakeTraining(ran=[25, 30], finishes=[False, True])
    with pytest.raises(RuntimeError, match="run the same command again"):
        exit_init.run_of_config(cfg, folder, 60, train=training)
    assert exit_init.run_of_config(cfg, folder, 60, train=training) == folder
    assert training.budgets[0] == 60 and training.budgets[1] == pytest.approx(35, abs=0.1)
    assert yaml.safe_load((folder / "config.yaml").read_text())["seed"] == cfg.seed
    exit_init.run_of_config(cfg, folder, 60, train=training)  # finished: kept as it is
    assert len(training.budgets) == 2


def test_run_of_config__a_session_killed_before_its_first_rollout_costs_no_budget(tmp_path):
    cfg, folder = tiny_config(tmp_path), tmp_path / "init"

    def killed_in_warm_start(cfg_, run_dir, minutes):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        exit_init.run_of_config(cfg, folder, 60, train=killed_in_warm_start)
    training = FakeTraining(ran=[10, 10], finishes=[True, True])  # no log of session 0
    exit_init.run_of_config(cfg, folder, 60, train=training)
    assert training.budgets == [pytest.approx(60)]
    starts = json.loads((folder / exit_init.LEDGER).read_text())["sessions"]
    assert len(starts) == 2 and starts[0] <= starts[1] <= time.time()


@pytest.mark.parametrize("change", [{"seed": 4}, {"minutes": 30}])
def test_run_of_config__a_folder_of_another_config_or_budget_is_refused(tmp_path, change):
    cfg, folder = tiny_config(tmp_path), tmp_path / "init"
    exit_init.run_of_config(cfg, folder, 60, train=FakeTraining([1], [True]))
    other = tiny_config(tmp_path, seed=change.get("seed", cfg.seed))
    with pytest.raises(ValueError, match="another config or budget"):
        exit_init.run_of_config(other, folder, change.get("minutes", 60),
                                train=FakeTraining([1], [True]))


def test_labels_round__each_round_learns_only_its_own_labels(tiny_run, tmp_path,
                                                             monkeypatch):
    _, result = tiny_run
    taught, real_distil = [], exit_.distil

    def counting(plan, cfg, r, labels, checkpoint, out, progress):
        taught.append((plan.labels, r, [len(x) for x in labels]))
        return real_distil(plan, cfg, r, labels, checkpoint, out, progress)

    monkeypatch.setattr(exit_, "distil", counting)
    for labels in ("all", "round"):
        exit_.run(plan_for(result.run_dir, rounds=2, labels=labels), tmp_path / labels,
                  progress=False)
    (_, _, all_1), (_, _, all_2), (_, _, own_1), (_, _, own_2) = taught
    assert all_1 == own_1 and len(all_2) == 2 and own_2 == all_2[1:]
    assert not _same_weights(tmp_path / "all" / "final.zip", tmp_path / "round" / "final.zip")


def test_cli__a_recipe_and_its_rounds_are_one_command_and_resume(tmp_path, capsys):
    recipe = tmp_path / "tiny.yaml"
    recipe.write_text(yaml.safe_dump({**TINY, "run_root": str(tmp_path / "runs")}))
    out = tmp_path / "exit"
    argv = ["exit", "--init", f"config:{recipe}", "--init-minutes", "5", "--out", str(out),
            "--labeller", "pimc:rollouts=2,candidates=2", "--labels", "round", "--rounds",
            "1", "--decisions", "24", "--epochs", "1", "--eval-deals", "2", "--seed", "7",
            "--workers", "1", "--quiet"]
    assert zolik.main(argv) == 0
    trained = yaml.safe_load((out / "init" / "config.yaml").read_text())
    assert trained["seed"] == 7 and resolve_checkpoint(out / "init").name == "final.zip"
    plan = json.loads((out / "exit.json").read_text())
    assert plan["init"] == str(out / "init") and plan["labels"] == "round"
    first = (out / "final.zip").read_bytes()
    assert zolik.main(argv) == 0  # started again: everything kept, nothing trained again
    assert (out / "final.zip").read_bytes() == first
    assert "training tiny" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--init", "config:nope"], "no ppo config 'nope'"),
    (["--init", "pretrained:cz_2p", "--init-minutes", "5"],
     "--init-minutes 5 goes with --init config:NAME"),
    (["--init", "config:cz_2p_hour", "--labeller", "planner"], "--labeller 'planner'"),
])
def test_cli__a_bad_recipe_is_one_line_before_any_work(tmp_path, capsys, argv, message):
    assert zolik.main(["exit", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_cli__labels_takes_only_its_choices(tmp_path, capsys):
    with pytest.raises(SystemExit):
        zolik.main(["exit", "--init", str(tmp_path), "--out", str(tmp_path / "o"),
                    "--labels", "some"])
    assert "invalid choice: 'some'" in capsys.readouterr().err
