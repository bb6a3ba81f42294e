"""Types (docs/style.md §8): ``mypy --strict`` passes on ``zolik_env/``, with the settings in
pyproject.toml's ``[tool.mypy]``.

mypy is a dev dependency (scripts/setup.sh installs it), so a missing mypy fails here
rather than skipping. The first run on a fresh checkout takes about half a minute; later
runs read the cache in ``.mypy_cache``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

BADLY_TYPED = '''
def untyped(x):
    return x


def wrong(x: int) -> str:
    return x
'''


def run_mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m mypy`` with the project's configuration and ``args``."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_mypy_config__is_strict_on_the_core_and_envs():
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert config["files"] == ["zolik_env"]
    assert config["python_version"] == "3.11"


def test_mypy__passes_on_zolik_env():
    done = run_mypy()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_mypy__reports_a_badly_typed_module(tmp_path):
    # The check must be able to fail: the same configuration rejects an unannotated
    # function and a wrong return type.
    bad = tmp_path / "bad.py"
    bad.write_text(BADLY_TYPED, encoding="utf-8")
    done = run_mypy("--cache-dir", str(tmp_path / "cache"), str(bad), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[no-untyped-def]" in done.stdout
    assert "[return-value]" in done.stdout
