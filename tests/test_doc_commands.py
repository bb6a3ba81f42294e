"""Every ``zolik`` command shown in the README, ``docs/`` and ``docs/results/`` parses with
today's options, and every Python example of ``docs/core.md``, ``docs/dice.md`` and
``docs/imperfect-information.md`` runs as written (the
other pages' examples run in ``tests/test_readme.py`` and ``tests/envs/test_docs.py``).

Every command is parsed: ``ArgumentParser.parse_args`` is stopped right after it accepts
the arguments, so a renamed flag, a removed subcommand or a bad choice in the docs fails
here. The commands that take seconds are also run for real from an empty directory
outside the repository (``test_doc_command__runs_outside_the_repo``): as written, or with
fewer deals or games where the docs ask for hundreds. Commands that train for minutes,
and templates that name a run dir of the reader's own (``<time>``), are only parsed.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "docs" / "results").glob("*.md"))]


def doc_commands() -> list[tuple[str, str]]:
    """``(page, command line)`` of every ``zolik ...`` line in a bash block."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                command = line.split(" #")[0].strip()
                if command.startswith("zolik "):
                    found.append((page.name, command))
    return found


class Parsed(Exception):
    """Raised in place of running a command whose arguments parsed."""


@pytest.fixture
def parse_only(monkeypatch):
    original = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        original(self, args, namespace)
        raise Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)


def test_doc_commands__are_found():
    commands = [c for _, c in doc_commands()]
    assert len(commands) >= 20
    assert any(c.startswith("zolik train") for c in commands)
    assert any(c.startswith("zolik dice") for c in commands)


@pytest.mark.parametrize(("page", "command"), doc_commands())
def test_doc_command__parses(page, command, parse_only, capsys):
    argv = shlex.split(command)[1:]
    with pytest.raises(Parsed):
        cli.main(argv)


def test_parse_only__catches_a_bad_flag(parse_only):
    with pytest.raises(SystemExit):
        cli.main(["train", "--confg", "cz_2p"])


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("page", ["core.md", "dice.md", "imperfect-information.md"])
def test_doc_python__runs_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(ROOT / "docs" / page)
    assert blocks
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/{page} python block {i}", "exec"), {})


# what is cut where a command would play for minutes: the flag and the value it runs with
SHORTER = {"--deals": "4", "--games": "200"}
# trains for minutes, or serves until stopped (the web table runs in tests/play/test_web_table.py)
SLOW = ("zolik train", "zolik main", "zolik strength", "zolik exit", "zolik dice train",
        "zolik dice solve --all", "zolik play")

# write the package's bot files: tests/train/test_export.py runs them on copies
WRITES_BOTS = ("zolik export runs", "zolik export --best-response")


def runnable(command: str) -> list[str] | None:
    """The argv to run ``command`` with (long counts shortened), or None for a command
    that trains for minutes, serves until stopped, or is a template."""
    if "<" in command or command.startswith(SLOW) or command.startswith(WRITES_BOTS):
        return None
    if "my_eval:" in command:  # needs the page's script beside it: tests/eval/test_user_agents
        return None
    if "--address" in command:  # needs a Ray cluster (tests/eval/test_ray_backend.py)
        return None
    argv = shlex.split(command)
    for i, word in enumerate(argv[:-1]):
        if word in SHORTER:
            argv[i + 1] = SHORTER[word]
    return argv


RUNNABLE = [(page, command) for page, command in doc_commands() if runnable(command)]


def test_doc_commands__some_run_for_real():
    names = {shlex.split(c)[1] for _, c in RUNNABLE}
    assert {"eval", "export", "dice"} <= names


@pytest.mark.parametrize(("page", "command"), RUNNABLE)
def test_doc_command__runs_outside_the_repo(page, command, tmp_path):
    argv = runnable(command)
    assert argv is not None
    zolik = Path(sys.executable).parent / "zolik"
    if argv[1] == "eval":
        argv.append("--no-progress")
    env = {**os.environ, "ZOLIK_CACHE_DIR": str(tmp_path / "cache")}  # not the user's cache
    proc = subprocess.run([str(zolik), *argv[1:]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, (command, proc.stderr[-2000:])
    assert proc.stdout.strip() and "Traceback" not in proc.stderr
