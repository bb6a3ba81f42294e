"""House style that a machine can check (docs/style.md §8): ruff is clean and no module grows
past the 400-line split point."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("zolik_env", "agents", "train", "eval")
SPLIT_AT = 400


def test_ruff__finds_no_lint_errors():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    done = subprocess.run([ruff, "check", "--quiet", *PACKAGES, "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def long_modules(limit: int) -> dict[str, int]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found[str(path.relative_to(ROOT))] = lines
    return found


def test_modules__stay_under_the_split_point():
    assert long_modules(SPLIT_AT) == {}
    assert long_modules(5), "the scan must see the modules"
