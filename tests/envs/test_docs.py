"""``docs/envs.md``: every Python example runs as shown."""

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
