"""Dependency direction (STYLE.md §2): the rules cores import no pettingzoo, gymnasium or
torch; ``zolik_env`` imports none of ``agents``, ``train``, ``eval``; ``agents`` imports
neither ``train`` nor ``eval``."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pettingzoo", "gymnasium", "torch")

PROBE = """
import json, sys
import {module}
print(json.dumps(sorted(m.split(".")[0] for m in sys.modules)))
"""


def loaded_top_modules(module):
    """Top-level package names in ``sys.modules`` after importing ``module`` in a fresh
    interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(json.loads(done.stdout))


@pytest.mark.parametrize(
    "module", ["zolik_env.rummy", "zolik_env.rummy.rules", "zolik_env.rummy.rules_cli"]
)
def test_rummy_rules__import_no_env_or_training_libraries(module):
    loaded = loaded_top_modules(module)
    assert "zolik_env" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_loaded_top_modules__sees_what_an_import_pulls_in():
    # The probe must be able to fail: it sees numpy arrive with the card module only.
    assert "numpy" in loaded_top_modules("zolik_env.rummy.cards")
    assert "numpy" not in loaded_top_modules("json")


def imported_packages(path):
    """Top-level names of the absolute imports in one Python file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def is_command_module(path):
    """Subcommands of ``zolik`` (``cli.py``, ``*_cli.py``) are entry points that the
    command imports lazily by name; nothing imports them, so they may reach up the
    layers (a dice subcommand runs training)."""
    return path.name == "cli.py" or path.name.endswith("_cli.py")


def forbidden_imports(package, forbidden):
    """``{file: forbidden names it imports}`` over every library module under ``package``."""
    files = sorted(p for p in (ROOT / package).rglob("*.py") if not is_command_module(p))
    assert files, f"no modules under {package}/"
    found = {}
    for path in files:
        bad = imported_packages(path) & set(forbidden)
        if bad:
            found[str(path.relative_to(ROOT))] = sorted(bad)
    return found


def test_zolik_env__imports_no_agents_train_or_eval():
    assert forbidden_imports("zolik_env", ("agents", "train", "eval")) == {}


def test_command_modules__are_imported_by_no_library_module():
    commands = {".".join(p.relative_to(ROOT).with_suffix("").parts)
                for p in ROOT.rglob("*.py") if is_command_module(p) and ".venv" not in p.parts}
    assert "zolik_env.rummy.rules_cli" in commands
    for package in ("zolik_env", "agents", "train", "eval"):
        for path in (ROOT / package).rglob("*.py"):
            if is_command_module(path):
                continue
            text = path.read_text(encoding="utf-8")
            assert not any(f"import {c}" in text or f"from {c} " in text for c in commands), path


def test_agents__import_no_train_or_eval():
    assert forbidden_imports("agents", ("train", "eval")) == {}


def test_imported_packages__finds_every_import_form(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "import os, agents.base\nfrom eval.harness import play_match\n"
        "from train import ppo\nfrom . import sibling\n"
        "def f():\n    import torch\n",
        encoding="utf-8",
    )
    assert imported_packages(source) == {"os", "agents", "eval", "train", "torch"}
    assert "numpy" in imported_packages(ROOT / "zolik_env" / "rummy" / "cards.py")
