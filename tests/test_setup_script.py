"""``scripts/setup.sh`` checks the Python version and the venv module first, each failure
one line that says what to install."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_in(tmp_path, python):
    """Run a copy of setup.sh in a fresh tree (no .venv) with ``PYTHON=python``."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return subprocess.run(["bash", "scripts/setup.sh"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "PYTHON": python})


def fake_python(tmp_path, body):
    path = tmp_path / "fakepython"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_setup__refuses_an_old_python_in_one_line(tmp_path):
    # the version check exits 1, `-V` prints an old version
    old = fake_python(tmp_path, 'case "$1" in -V) echo "Python 3.9.2";; *) exit 1;; esac')
    proc = setup_in(tmp_path, old)
    assert proc.returncode == 1 and not (tmp_path / ".venv").exists()
    assert proc.stderr.strip() == ("[setup] error: Python 3.9.2 is too old: install Python "
                                   ">= 3.11 (or set PYTHON=/path/to/python3.11)")


def test_setup__refuses_a_python_without_venv_in_one_line(tmp_path):
    # the version check passes, the venv import fails
    novenv = fake_python(tmp_path, 'case "$2" in *venv*) exit 1;; *) exit 0;; esac')
    proc = setup_in(tmp_path, novenv)
    assert proc.returncode == 1 and "python3-venv" in proc.stderr
    assert proc.stderr.strip().count("\n") == 0


def test_setup__names_a_missing_python(tmp_path):
    proc = setup_in(tmp_path, "no-such-python3")
    assert proc.returncode == 1 and "install Python >= 3.11" in proc.stderr
