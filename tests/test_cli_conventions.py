"""Conventions of the ``zolik`` commands a new user meets in the first hour: a closed
pipe ends a command quietly, and ``zolik export --list`` says how each figure was played."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agents.learned import pretrained
from cli import export, replay

ROOT = Path(__file__).resolve().parents[1]


def test_replay_into_a_closed_pipe__ends_quietly(tmp_path, capsys):
    game = tmp_path / "game.jsonl"
    assert replay.main([str(game), "--record"]) == 0  # a random cz game
    capsys.readouterr()
    # `zolik replay game.jsonl --table | head -1`: the reader goes after one line
    reader = subprocess.Popen(
        [sys.executable, "-c", "from cli.main import main; import sys; sys.exit(main())",
         "replay", str(game), "--table"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout.readline()
    reader.stdout.close()
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 141
    assert err == ""  # no usage text, no "Broken pipe", no traceback


def test_export_list__labels_sample_and_argmax(capsys):
    assert export.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("pretrained:") for line in lines)
    cz = next(line for line in lines if line.startswith("pretrained:cz_2p"))
    assert "sample: vs random" in cz and "argmax: vs random" in cz
    assert "points per deal (higher is better)" in cz
    for line in lines:  # each bot's best-response margin, or that it is not measured
        name = line.split()[0].partition(":")[2]
        margin = pretrained.card(name)["best_response"]["margin"]
        assert ("a best response to it: not measured" in line) == (margin is None)
        if margin is not None:
            assert f"a best response to it scores {margin['difference']:+.1f}" in line
