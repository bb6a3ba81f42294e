"""The readable rules API refuses impossible input with a message naming it."""

import numpy as np
import pytest

from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import parse_cards
from zolik_env.rummy.melds import check_meld
from zolik_env.rummy.scoring import score_deal

CZ = rules.preset("cz")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hands": ["JK JK JK JK JK", "JK JK JK JK"], "opened": [True, True], "winner": None},
     "9 x JK in the hands and melds: the pack of cz holds 4"),
    ({"hands": ["", "5H"], "opened": ["no", "no"], "winner": 0},
     "opened flags must be True or False, got 'no'"),
])
def test_score_deal__impossible_deals_are_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        score_deal(CZ, **kwargs)


def test_score_deal__negative_laid_points_are_an_error():
    jolly = rules.preset("jolly")
    with pytest.raises(ValueError, match="laid meld values must be >= 0, got -5"):
        score_deal(jolly, hands=["", "5H"], opened=[True, True], winner=0, laid=[-5, 0])


def test_score_deal__valid_deals_still_score():
    assert score_deal(CZ, hands=["", "5H 5D"], opened=[True, True], winner=0) == [0, 10]
    assert score_deal(CZ, hands=["", "5H"], opened=[np.bool_(True), False], winner=0) == [0, 100]


def test_preset__numpy_integers_are_integers():
    r = rules.preset("cz", num_players=np.int64(3))
    assert r.num_players == 3 and type(r.num_players) is int


def test_preset__max_hand_cards_must_leave_room_to_draw():
    with pytest.raises(ValueError, match="max_hand_cards=3 leaves no room to draw"):
        rules.preset("cz", max_hand_cards=3)
    assert rules.preset("cz", max_hand_cards=15).max_hand_cards == 15


def test_check_meld__a_preset_name_instead_of_rules_is_a_clear_error():
    with pytest.raises(ValueError, match=r"rules must be a RuleSet, got 'cz': pass preset\('cz'\)"):
        check_meld("AS 2S 3S", "cz")


@pytest.mark.parametrize("bad", [[None], [1.5], [["AS"]]])
def test_parse_cards__tokens_that_are_not_cards_are_errors(bad):
    with pytest.raises(ValueError, match="bad card"):
        parse_cards(bad)


def test_step_without_validation__an_action_outside_the_table_still_raises():
    cz = rules.preset("cz")
    state = game.init(cz, [0, 1])
    with pytest.raises(ValueError, match="outside the action table"):
        game.step(cz, state, [2610, 99_999], validate=False)
    with pytest.raises(ValueError, match="one action per deal"):
        game.step(cz, state, [2610], validate=False)
    before = state.fields()
    snapshot = [field.copy() for field in before]
    with pytest.raises(ValueError):
        game.step(cz, state, [-1, 2610], validate=False)  # -1: not an action of a live deal
    assert all(np.array_equal(a, b) for a, b in zip(state.fields(), snapshot, strict=True))
