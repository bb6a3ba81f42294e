"""The README's Python examples run as written, and its first two commands are the ones
that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_python_blocks__finds_the_examples():
    assert len(python_blocks(README.read_text(encoding="utf-8"))) >= 3
    assert python_blocks("```python\nx = 1\n```\n```bash\nls\n```") == ["x = 1\n"]


@pytest.mark.parametrize("index", range(len(python_blocks(README.read_text(encoding="utf-8")))))
def test_readme__python_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = python_blocks(README.read_text(encoding="utf-8"))[index]
    exec(compile(code, f"README.md python block {index}", "exec"), {})


def test_readme__opens_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["bash scripts/main.sh", "bash scripts/test.sh"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci
