"""Golden games (docs/style.md §5): replay each variant's recorded deal and compare every step.
Regenerate with ``python -m tests.golden.regenerate`` after an intended rules change."""

import json

import pytest

from tests.golden.regenerate import VARIANTS, path_of, play_golden


@pytest.mark.parametrize(("name", "players"), VARIANTS)
def test_golden__replay_matches_line_by_line(name, players):
    path = path_of(name, players)
    assert path.exists(), f"{path.name} is missing: run python -m tests.golden.regenerate"
    recorded = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    replayed = play_golden(name, players)
    assert len(replayed) == len(recorded)
    for i, (got, want) in enumerate(zip(replayed, recorded, strict=True)):
        assert got == want, f"{path.name} line {i + 1} differs"
