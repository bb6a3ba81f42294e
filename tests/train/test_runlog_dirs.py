"""``runlog.new_run_dir``: runs started in the same second get their own dirs."""

import time

from train import runlog


def test_new_run_dir__same_second_same_prefix_gets_a_suffix(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "strftime", lambda _format: "20260101-120000")
    made = [runlog.new_run_dir(tmp_path / "runs", "dice__1") for _ in range(3)]
    assert [p.name for p in made] == ["dice__1__20260101-120000", "dice__1__20260101-120000-2",
                                      "dice__1__20260101-120000-3"]
    assert all(p.is_dir() for p in made)
    assert runlog.new_run_dir(tmp_path / "runs", "dice__2").name == "dice__2__20260101-120000"
