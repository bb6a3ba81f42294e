"""Full disks and locations that cannot be written: one line naming the path, exit 2, and
no temporary file left behind (``/dev/full`` is a file, so nothing can be created below it;
a full disk is simulated where a save is already under way)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from cli import main as cli

TINY_DICE = {"num_envs": 16, "n_steps": 16, "batch_size": 64, "n_epochs": 1, "net_arch": [16],
             "total_timesteps": 512}


def _one_line(capsys: Any) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_dice_save__a_full_disk_leaves_no_temporary_file(tmp_path):
    from train.dice.ppo import _save

    class FullDisk:
        def save(self, path: Path) -> None:
            Path(path).write_bytes(b"partial")
            raise OSError(28, "No space left on device")

    target = tmp_path / "checkpoints" / "step_512.zip"
    target.parent.mkdir()
    with pytest.raises(OSError, match=r"cannot save checkpoint .*No space left on device"):
        _save(FullDisk(), target)
    assert list(target.parent.iterdir()) == []


def test_dice_train__a_run_root_that_cannot_be_made_is_one_line(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY_DICE, "run_root": "/dev/full/runs"}))
    assert cli.main(["dice", "train", "--config", str(config)]) == 2
    err = _one_line(capsys)
    assert err.startswith("zolik dice: ") and "/dev/full/runs" in err


def test_train__a_run_root_that_cannot_be_made_is_one_line(tmp_path, capsys):
    from tests.train.conftest import TINY

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "run_root": "/dev/full/runs"}))
    assert cli.main(["train", "--config", str(config)]) == 2
    err = _one_line(capsys)
    assert err.startswith("zolik train: ") and "/dev/full/runs" in err


def test_eval__an_output_folder_that_cannot_be_made_is_one_line(capsys):
    assert cli.main(["eval", "--agents", "random", "greedy", "--deals", "2", "--out",
                     "/dev/full/ev", "--no-progress"]) == 2
    err = _one_line(capsys)
    assert err.startswith("zolik eval: ") and "/dev/full/ev" in err
