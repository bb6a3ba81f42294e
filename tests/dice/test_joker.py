"""Joker rules (docs/rules-spec.md §5.4) on scripted classic and triple scorecards."""

import pytest

from tests.dice.conftest import legal_boxes, make_state, score
from zolik_env.dice import DiceRules
from zolik_env.dice import rules as R

FIVE_THREES = "3 3 3 3 3"


def card(**filled):
    """Filled classic boxes by name, e.g. ``card(yahtzee=50, threes=9)``."""
    return {R.BOX_NAMES.index(name): value for name, value in filled.items()}


@pytest.mark.parametrize("joker", ["none", "forced", "free"])
def test_joker__not_active_while_yahtzee_box_open(joker):
    rules = DiceRules(joker=joker)
    state = make_state(rules, FIVE_THREES)
    assert legal_boxes(rules, state) == list(range(13))
    assert score(rules, state, R.FULL_HOUSE)[1] == 0
    assert score(rules, state, R.YAHTZEE)[1] == 50


def test_joker_none__any_open_box_scores_what_dice_make_plus_bonus():
    rules = DiceRules(joker="none")
    state = make_state(rules, FIVE_THREES, card(yahtzee=50, threes=9))
    assert legal_boxes(rules, state) == [b for b in range(13) if b not in (2, 11)]
    assert score(rules, state, R.FULL_HOUSE)[1] == 0 + 100
    assert score(rules, state, R.LARGE_STRAIGHT)[1] == 100
    assert score(rules, state, R.CHANCE)[1] == 15 + 100


def test_joker_none__zero_in_yahtzee_box_means_no_bonus():
    rules = DiceRules(joker="none")
    state = make_state(rules, FIVE_THREES, card(yahtzee=0))
    assert score(rules, state, R.THREES)[1] == 15


def test_joker_forced__must_take_matching_upper_box_if_open():
    rules = DiceRules(joker="forced")
    state = make_state(rules, FIVE_THREES, card(yahtzee=50))
    assert legal_boxes(rules, state) == [R.THREES]
    assert score(rules, state, R.THREES)[1] == 15 + 100


def test_joker_forced__then_any_open_lower_box_with_full_values():
    rules = DiceRules(joker="forced")
    state = make_state(rules, FIVE_THREES, card(yahtzee=0, threes=6, ones=2, chance=20))
    assert legal_boxes(rules, state) == [6, 7, 8, 9, 10]
    assert score(rules, state, R.FULL_HOUSE)[1] == 25
    assert score(rules, state, R.SMALL_STRAIGHT)[1] == 30
    assert score(rules, state, R.LARGE_STRAIGHT)[1] == 40
    assert score(rules, state, R.FOUR_KIND)[1] == 15


def test_joker_forced__lower_full_means_zero_in_an_open_upper_box():
    rules = DiceRules(joker="forced")
    lower = dict.fromkeys(range(6, 13), 10) | {R.YAHTZEE: 50, R.THREES: 12}
    state = make_state(rules, FIVE_THREES, lower)
    assert legal_boxes(rules, state) == [0, 1, 3, 4, 5]
    assert score(rules, state, R.SIXES)[1] == 0 + 100


def test_joker_free__any_box_but_values_only_with_matching_upper_filled():
    rules = DiceRules(joker="free")
    state = make_state(rules, FIVE_THREES, card(yahtzee=50))
    assert legal_boxes(rules, state) == [b for b in range(13) if b != R.YAHTZEE]
    assert score(rules, state, R.FULL_HOUSE)[1] == 0 + 100
    filled = make_state(rules, FIVE_THREES, card(yahtzee=50, threes=15))
    assert legal_boxes(rules, filled) == [b for b in range(13) if b not in (2, 11)]
    assert score(rules, filled, R.FULL_HOUSE)[1] == 25 + 100
    assert score(rules, filled, R.SMALL_STRAIGHT)[1] == 30 + 100
    assert score(rules, filled, R.LARGE_STRAIGHT)[1] == 40 + 100
    assert score(rules, filled, R.ONES)[1] == 0 + 100


@pytest.mark.parametrize("joker", ["none", "forced", "free"])
def test_yahtzee_bonus__off_by_option(joker):
    rules = DiceRules(joker=joker, yahtzee_bonus=False)
    state = make_state(rules, FIVE_THREES, card(yahtzee=50, threes=9))
    assert score(rules, state, R.CHANCE)[1] == 15


def test_yahtzee_bonus__counted_in_totals():
    from zolik_env.dice import totals

    rules = DiceRules(joker="forced")
    state = make_state(rules, FIVE_THREES, card(yahtzee=50))
    new, reward = score(rules, state, R.THREES)
    assert int(new.yahtzee_bonuses[0, 0]) == 1
    assert int(totals(rules, new)[0, 0]) == 50 + 15 + 100 == 50 + reward


def triple_card(**filled):
    """Triple boxes ``name_c=value`` with column ``c`` in 0..2, e.g. ``yahtzee_1=50``."""
    out = {}
    for key, value in filled.items():
        name, column = key.rsplit("_", 1)
        out[int(column) * 13 + R.BOX_NAMES.index(name)] = value
    return out


FOURS = "4 4 4 4 4"


def test_triple_joker__only_after_all_three_yahtzee_boxes():
    rules = DiceRules(table="triple", joker="forced")
    state = make_state(rules, FOURS, triple_card(yahtzee_0=50, yahtzee_1=50))
    assert legal_boxes(rules, state) == [b for b in range(39) if b not in (11, 24)]
    assert score(rules, state, 13 + R.FULL_HOUSE)[1] == 0  # no joker, no bonus yet


def test_triple_joker_forced__matching_upper_box_in_any_column():
    rules = DiceRules(table="triple", joker="forced")
    filled = triple_card(yahtzee_0=50, yahtzee_1=0, yahtzee_2=0, fours_1=12)
    state = make_state(rules, FOURS, filled)
    assert legal_boxes(rules, state) == [R.FOURS, 26 + R.FOURS]
    assert score(rules, state, 26 + R.FOURS)[1] == 3 * 20 + 100


def test_triple_joker_forced__lower_boxes_once_fours_filled_everywhere():
    rules = DiceRules(table="triple", joker="forced")
    filled = triple_card(yahtzee_0=50, yahtzee_1=0, yahtzee_2=0, fours_0=8, fours_1=12,
                         fours_2=16)  # fmt: skip
    state = make_state(rules, FOURS, filled)
    lower = [c * 13 + b for c in range(3) for b in range(6, 13) if b != R.YAHTZEE]
    assert legal_boxes(rules, state) == lower
    assert score(rules, state, 13 + R.LARGE_STRAIGHT)[1] == 2 * 40 + 100


def test_triple_joker_free__values_need_matching_upper_in_all_columns():
    rules = DiceRules(table="triple", joker="free")
    partly = triple_card(yahtzee_0=0, yahtzee_1=0, yahtzee_2=0, fours_0=8, fours_1=12)
    state = make_state(rules, FOURS, partly)
    assert score(rules, state, R.FULL_HOUSE)[1] == 0  # and no bonus: no Yahtzee box holds 50
    everywhere = partly | triple_card(fours_2=4)
    state = make_state(rules, FOURS, everywhere)
    assert score(rules, state, 26 + R.FULL_HOUSE)[1] == 3 * 25


def test_triple_yahtzee_bonus__decision_all_three_filled_one_with_50():
    needs_all = DiceRules(table="triple")
    one = triple_card(yahtzee_2=50)
    assert score(needs_all, make_state(needs_all, FOURS, one), R.CHANCE)[1] == 20
    three = triple_card(yahtzee_0=0, yahtzee_1=0, yahtzee_2=50)
    assert score(needs_all, make_state(needs_all, FOURS, three), R.CHANCE)[1] == 20 + 100
    any_one = DiceRules(table="triple", triple_bonus_needs_all_yahtzee=False)
    assert score(any_one, make_state(any_one, FOURS, one), R.CHANCE)[1] == 20 + 100
