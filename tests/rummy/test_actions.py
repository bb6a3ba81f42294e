"""The action table: pinned layout, card-notation round trip, parse errors."""

from __future__ import annotations

import pytest

from zolik_env.rummy import actions as A
from zolik_env.rummy import options, rules
from zolik_env.rummy.observe import obs_size


def test_actions__layout_is_pinned():
    assert (A.DRAW_STOCK, A.TAKE_DISCARD_BASE, A.TAKE_BOTTOM, A.MELD_BASE) == (0, 1, 25, 26)
    assert (A.LAYOFF_BASE, A.ACE_HIGH_BASE, A.JOKER_BASE) == (516, 2388, 2532)
    assert (A.UNDO, A.DISCARD_BASE, A.NUM_ACTIONS) == (2604, 2605, 2658)
    assert A.NUM_MELD_PATTERNS == 490


def test_observe__size_is_pinned():
    assert obs_size(options.preset("cz", num_players=2)) == 1135
    assert obs_size(options.preset("cz", num_players=4)) == 1135 + 2 * 57


def test_action_to_string__round_trips_every_action():
    seen = set()
    for action in range(A.NUM_ACTIONS):
        text = A.action_to_string(action)
        assert A.string_to_action(text) == action, text
        seen.add(text)
    assert len(seen) == A.NUM_ACTIONS


@pytest.mark.parametrize("text,expected", [
    ("draw stock", "draw stock"), ("take discard 3", "take discard 3"),
    ("meld 5h jk 7h", "meld 5H JK 7H"), ("swap 6H in 4", "layoff 6H on 4"),
    ("layoff 8H on 2 high", "layoff 8H on 2"), ("place T♠ on 0", "layoff 10S on 0"),
    ("layoff AH on 3 high", "layoff AH on 3 high"), ("discard ks", "discard KS"),
])
def test_string_to_action__accepts_synonyms(text, expected):
    assert A.action_to_string(A.string_to_action(text)) == expected


@pytest.mark.parametrize("text", ["fly away", "take discard 0", "take discard 25",
                                  "meld 5H 6H", "layoff 8H on 36", "discard ZZ"])
def test_string_to_action__rejects_bad_text(text):
    with pytest.raises(ValueError):
        A.string_to_action(text)


def test_action_to_string__rejects_out_of_range():
    with pytest.raises(ValueError, match="2658"):
        A.action_to_string(A.NUM_ACTIONS)


@pytest.mark.parametrize("preset", options.PRESETS)
def test_meld_patterns__valid_exactly_when_the_rules_api_says_so(preset):
    ruleset = options.preset(preset)
    valid = A.meld_pattern_valid(ruleset)
    for i, cards in enumerate(A.MELD_PATTERN_CARDS):
        assert valid[i] == rules.check_meld(list(cards), ruleset).valid
    jnj = [i for i, c in enumerate(A.MELD_PATTERN_CARDS) if len(c) == 3 and c[0] == c[2] == 52]
    assert len(jnj) == 48
    assert valid[jnj].all() == (preset == "jolly")
