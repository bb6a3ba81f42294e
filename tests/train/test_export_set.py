"""``zolik export`` writes a bot's three files as a set and never replaces a shipped bot
unasked: a kill before the commit marker leaves the old set, one after it is completed by
the next export (``train.export.commit``, ``finish_interrupted``)."""

from __future__ import annotations

import pytest

from train import export

SUFFIXES = export.BOT_FILES


def _shipped(folder, name, text):
    for suffix in SUFFIXES:
        (folder / f"{name}{suffix}").write_text(f"{text}{suffix}")


def _staged(folder, name, text):
    stage = folder / f".{name}.export"
    stage.mkdir()
    _shipped(stage, name, text)


def _contents(folder, name):
    return [(folder / f"{name}{s}").read_text() for s in SUFFIXES]


def test_commit__moves_the_set(tmp_path):
    _shipped(tmp_path, "bot", "old")
    _staged(tmp_path, "bot", "new")
    export.commit(tmp_path, "bot")
    assert _contents(tmp_path, "bot") == [f"new{s}" for s in SUFFIXES]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"bot{s}" for s in sorted(SUFFIXES)]


def test_a_kill_after_the_marker__the_next_export_completes_the_set(tmp_path, monkeypatch):
    _shipped(tmp_path, "bot", "old")
    _staged(tmp_path, "bot", "new")
    real, moved = export.os.replace, []

    def killed(src, dst):
        if moved:
            raise KeyboardInterrupt  # the process dies after the first file
        moved.append(dst)
        real(src, dst)

    monkeypatch.setattr(export.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        export.commit(tmp_path, "bot")
    monkeypatch.undo()
    mixed = _contents(tmp_path, "bot")
    assert mixed[0] == "new.pt" and mixed[1] == "old.json"  # a mixed set on disk
    assert export.finish_interrupted(tmp_path) == ["bot"]
    assert _contents(tmp_path, "bot") == [f"new{s}" for s in SUFFIXES]
    assert not list(tmp_path.glob(".*"))


def test_a_kill_before_the_marker__the_old_set_stays(tmp_path):
    _shipped(tmp_path, "bot", "old")
    _staged(tmp_path, "bot", "half")
    (tmp_path / ".bot.export" / "bot.md").unlink()  # killed while writing
    with pytest.raises(ValueError, match="lacks"):
        export.commit(tmp_path, "bot")
    assert export.finish_interrupted(tmp_path) == []
    assert _contents(tmp_path, "bot") == [f"old{s}" for s in SUFFIXES]
    assert not list(tmp_path.glob(".*"))


def test_export__refuses_a_shipped_bot_without_force(tmp_path):
    _shipped(tmp_path, "cz_2p", "old")
    with pytest.raises(ValueError, match=r"ships already.*--force"):
        export.export(tmp_path / "no_run", "cz_2p", out_dir=tmp_path)
    assert _contents(tmp_path, "cz_2p") == [f"old{s}" for s in SUFFIXES]
    with pytest.raises((ValueError, OSError)):  # with force it goes on to read the run
        export.export(tmp_path / "no_run", "cz_2p", out_dir=tmp_path, force=True)
