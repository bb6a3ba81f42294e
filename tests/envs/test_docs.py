"""``docs/envs.md`` and the per-env pages ``docs/env-*.md``: every Python example runs
as shown."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "envs.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_envs_doc__has_the_aec_loop_and_the_maskable_ppo_examples():
    assert len(BLOCKS) == 3
    assert "agent_iter()" in BLOCKS[0] and "MaskablePPO" in BLOCKS[1]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_envs_doc__example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the AEC example writes game.jsonl
    namespace = {}
    exec(compile(BLOCKS[index], f"envs.md block {index}", "exec"), namespace)
    if index == 0:
        assert (tmp_path / "game.jsonl").exists() and namespace["env"].unwrapped.deal_scores
    else:
        assert namespace["model"].num_timesteps >= 64


PAGES = {name: Path(__file__).resolve().parents[2] / "docs" / f"env-{name}.md"
         for name in ("zolik", "kostky")}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_env_pages__have_the_pettingzoo_sections_and_their_examples_run(name, tmp_path,
                                                                        monkeypatch):
    page = PAGES[name].read_text(encoding="utf-8")
    for fact in ("| Import |", "| Actions |", "| Parallel API |", "| Manual Control |",
                 "| Agents |", "| Action Shape |", "| Observation Shape |", "| State Shape |"):
        assert fact in page, fact
    for section in ("## Observation", "## State", "## Actions", "## Rewards",
                    "## Version history"):
        assert section in page, section
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert blocks
    monkeypatch.chdir(tmp_path)  # from outside the repository
    for index, block in enumerate(blocks):
        exec(compile(block, f"env-{name}.md block {index}", "exec"), {})
