"""``zolik strength distil`` (``train.distil_folds``): a round's labels distilled again on
held-out folds; fold 0 with the round's own settings is the round itself."""

import json

import numpy as np
import pytest

from cli import main as zolik
from tests.train.test_expert_iteration import plan_for
from train import distil_folds
from train import expert_iteration as exit_

LABELLER = "pimc:rollouts=4,z=0"  # overrules often, so a tiny round has corrections


@pytest.fixture(scope="module")
def tiny_round(tiny_run, tmp_path_factory):
    _, result = tiny_run
    out = tmp_path_factory.mktemp("distil") / "exit"
    exit_.run(plan_for(result.run_dir, labeller=LABELLER, deviation_weight=3, decisions=60),
              out, progress=False)
    return out


def test_fold_zero_with_the_rounds_settings__plays_as_the_rounds_own_network(tiny_round):
    raw = exit_.raw_labels(tiny_round, 1)
    row = distil_folds.fold_row(tiny_round, 1, raw, 0, 3, 3, "plain", epochs=1)
    learned = json.loads((exit_.round_dir(tiny_round, 1) / "learned.json").read_text())
    held = int(len(raw) * (1 - exit_.HOLDOUT))
    assert row.corrections + row.kept == len(raw) - held
    assert row.corrections == round(learned["overruled"] * (len(raw) - held))
    assert row.corrections > 0
    assert row.corrected == pytest.approx(learned["corrected"])
    assert row.still_kept == pytest.approx(learned["kept"])


def test_rotated__fold_k_ends_with_its_block_and_fold_zero_is_the_labels(tiny_round):
    raw = exit_.raw_labels(tiny_round, 1)
    assert distil_folds.rotated(raw, 0, 4).obs.tobytes() == raw.obs.tobytes()
    turned = distil_folds.rotated(raw, 1, 4)
    shift = len(raw) // 4
    np.testing.assert_array_equal(turned.action[-shift:], raw.action[:shift])
    np.testing.assert_array_equal(np.sort(turned.action), np.sort(raw.action))


def test_compare__every_setting_on_every_fold_and_a_table(tiny_round, capsys):
    assert zolik.main(["strength", "distil", "--run", str(tiny_round), "--weights", "1,2",
                       "--repeats", "plain,renamed", "--folds", "2"]) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert [line.split(" | ")[:2] for line in table[1:]] == [
        ["| 1", "plain"], ["| 2", "plain"], ["| 2", "renamed"]]
    assert all(" | 2 | " in line for line in table[1:])  # two folds each


@pytest.mark.parametrize(("argv", "message"), [
    (["--weights", "four"], "--weights 'four': give whole numbers"),
    (["--weights", "0,4"], "0 is below 1"),
    (["--repeats", "shuffled"], "--repeats 'shuffled': choose from plain, renamed"),
    (["--folds", "0"], "--folds 0: want 1 or more"),
    (["--round", "2"], "no round 2"),
])
def test_cli__bad_values_are_one_line_errors(tiny_round, capsys, argv, message):
    assert zolik.main(["strength", "distil", "--run", str(tiny_round), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_cli__a_folder_that_is_no_exit_run_is_named(tmp_path, capsys):
    assert zolik.main(["strength", "distil", "--run", str(tmp_path)]) == 2
    assert "not an expert-iteration run" in capsys.readouterr().err
