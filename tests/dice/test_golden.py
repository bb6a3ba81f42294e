import json

import pytest

from tests.dice.golden import GOLDEN_DIR, VARIANTS, play


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_golden__replay_matches_record_line_by_line(name):
    path = GOLDEN_DIR / f"{name}.jsonl"
    assert path.exists(), f"no golden game for {name}: run python -m tests.dice.golden"
    expected = [json.loads(line) for line in path.read_text().splitlines()]
    got = play(*VARIANTS[name])
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g == e, f"{name}: first difference at record {i}"
