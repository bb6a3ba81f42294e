"""Conventions of the ``zolik`` commands a new user meets in the first hour: a closed
pipe ends a command quietly, ``zolik export --list`` says how each figure was played, and
every command's ``--help`` reads as written."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

from agents.learned import pretrained
from cli import export, replay
from cli.main import SUBCOMMANDS, build_parser

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
    assert "argmax" in cz and "vs random" in cz and "points per deal (higher is better)" in cz
    for line in lines:  # each bot's best-response margin, or that it is not measured
        name = line.split()[0].partition(":")[2]
        t = pretrained.temperature(pretrained.card(name))  # the sampled rows' own
        views = pretrained.play_views(pretrained.card(name))
        label = (f"argmax averaged over {views} renamings (as it plays)" if views > 1
                 else "sample" if t == 1.0 else "argmax (as it plays)" if t == 0.0
                 else f"sample at t={t:g}")
        assert f"{label}: vs random" in line
        assert (t == 0.0) == ("sample" not in line)  # a bot at 0 has no sampled rows
        margin = pretrained.card(name)["best_response"]["margin"]
        assert ("a best response to it: not measured" in line) == (margin is None)
        if margin is not None:
            assert f"a best response to it scores {margin['difference']:+.1f}" in line


class _Built(Exception):
    """Raised in place of parsing, carrying the parser a command built."""


def _command_parser(name: str, monkeypatch) -> argparse.ArgumentParser:
    """The parser ``zolik NAME`` builds, caught as it starts to parse."""
    def catch(parser, *args, **kwargs):
        raise _Built(parser)

    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_known_args", catch)
        module = importlib.import_module(SUBCOMMANDS[name][0])
        try:
            module.main([])
        except _Built as built:
            return built.args[0]
    raise AssertionError(f"zolik {name} built no parser")


def _with_subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser below it."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += _with_subcommands(sub)
    return found


def test_help__of_every_command_shows_single_percent_signs(monkeypatch):
    # a description is printed as written, so '95%%' there reads '95%%' in --help
    parsers = [build_parser()]
    for name in SUBCOMMANDS:
        parsers += _with_subcommands(_command_parser(name, monkeypatch))
    assert {"zolik strength exploit", "zolik dice eval"} <= {p.prog for p in parsers}
    for parser in parsers:
        assert "%%" not in parser.format_help(), parser.prog
