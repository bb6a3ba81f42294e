"""Drawing in the batched core (docs/rules-spec.md §2.3, §3.3, §4.3): cz/sk's
must-use top discard, sk's bottom card and jolly's deep pick-up."""

import pytest

from zolik_env.rummy import rules
from zolik_env.rummy.scenario import (
    assert_illegal,
    assert_legal,
    discard_str,
    hand_str,
    make_state,
    play,
    stock_str,
)

OPP_RUN = ("5D 6D 7D", 1)


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_take_discard__cz_sk_only_the_top_card(name):
    r = rules.preset(name)
    state = make_state(r, ["2C 3C 9S", "KD KH"], discard="8S 4C", stock="QS")
    assert_legal(r, state, "take discard 1")
    assert_illegal(r, state, "take discard 2")
    state = play(r, state, "take discard 1")
    assert hand_str(state, 0) == "9S 2C 3C 4C" and discard_str(state) == "8S"
    assert stock_str(state) == "QS"


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_take_discard__must_be_laid_this_turn(name):
    r = rules.preset(name)
    hand = "2C 3C 9S JH QH KH 5S 6S 7S 8S"  # 2C 3C + 4C, and an opening of 30 + 26
    state = play(r, make_state(r, [hand, "KD KH"], discard="4C", stock="QS"), "take discard 1")
    # not laid yet: no discard ends the turn, and 4C itself may never be discarded
    assert_illegal(r, state, "discard 9S", "discard 4C")
    state = play(r, state, "meld JH QH KH", "meld 5S 6S 7S", "layoff 8S on 1")
    assert_illegal(r, state, "discard 9S")
    state = play(r, state, "meld 2C 3C 4C")
    assert_legal(r, state, "discard 9S")


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_take_discard__laid_by_a_layoff_after_opening(name):
    r = rules.preset(name)
    state = make_state(r, ["9S 2H", "KD KH"], discard="8D", stock="QS", melds=[OPP_RUN],
                       opened=[True, False])
    state = play(r, state, "take discard 1")
    assert_illegal(r, state, "discard 9S", "discard 8D")
    state = play(r, state, "layoff 8D on 0")
    assert_legal(r, state, "discard 9S", "discard 2H")
    assert_illegal(r, state, "discard 8D")  # no longer held


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_take_discard__taken_card_not_discarded_even_before_opening(name):
    r = rules.preset(name)
    state = play(r, make_state(r, ["9S 2H 8D", "KD KH"], discard="8D", stock="QS"),
                 "take discard 1")
    # the held copy of 8D is no excuse: one 8D was taken and must be laid
    assert_illegal(r, state, "discard 8D", "discard 9S")
    assert_legal(r, state, "undo")


def test_bottom_card__sk_from_round_4_once_and_not_discarded_that_turn():
    r = rules.preset("sk", num_players=2)
    hands = ["2C 3C 9S", "KD 5H"]
    for turn, legal in ((2, False), (4, False), (6, True), (9, True)):
        state = make_state(r, hands, current=turn % 2, turn=turn, bottom="4C", stock="QS")
        (assert_legal if legal else assert_illegal)(r, state, "take bottom")
    state = play(r, make_state(r, hands, turn=6, bottom="4C", stock="QS"), "take bottom")
    assert hand_str(state, 0) == "9S 2C 3C 4C" and stock_str(state) == "QS"
    assert_illegal(r, state, "discard 4C")
    assert_legal(r, state, "discard 9S", "discard 2C")  # no must-use for the bottom card
    state = play(r, state, "discard 9S")
    assert_illegal(r, state, "take bottom")  # a single card, once per deal
    state = play(r, state, "draw stock", "discard KD", "draw stock")
    assert_legal(r, state, "discard 4C")  # a later turn may discard it


def test_bottom_card__never_the_closing_discard():
    r = rules.preset("sk", num_players=2)
    state = make_state(r, ["7H 8H 9H 2S", "KD 5H"], turn=6, bottom="4C", stock="QS",
                       melds=[OPP_RUN], opened=[True, False])
    state = play(r, state, "take bottom", "meld 7H 8H 9H")
    assert_illegal(r, state, "discard 4C")
    assert_legal(r, state, "discard 2S")


@pytest.mark.parametrize("name", ["cz", "jolly"])
def test_bottom_card__other_presets_have_none(name):
    r = rules.preset(name)
    assert_illegal(r, make_state(r, ["2C 3C", "KD 5H"], stock="QS"), "take bottom")


def test_deep_pickup__jolly_takes_the_card_and_every_newer_one_after_opening():
    r = rules.preset("jolly", num_players=2)
    pile = "2D 3S 4H 5C 6D"
    closed = make_state(r, ["9S 2H", "KD KH"], discard=pile, stock="QS")
    assert_illegal(r, closed, "take discard 1", "take discard 3")
    state = make_state(r, ["9S 2H", "KD KH"], discard=pile, stock="QS", opened=[True, False])
    assert_legal(r, state, "take discard 1", "take discard 5")
    assert_illegal(r, state, "take discard 6")
    state = play(r, state, "take discard 3")
    assert hand_str(state, 0) == "9S 2H 4H 6D 5C" and discard_str(state) == "2D 3S"
    # no must-use: another card ends the turn; the taken ones may not be discarded
    assert_legal(r, state, "discard 9S", "discard 2H")
    assert_illegal(r, state, "discard 4H", "discard 5C", "discard 6D")


def test_deep_pickup__never_above_20_cards():
    r = rules.preset("jolly", num_players=2)
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H"  # 17 cards
    state = make_state(r, [hand, "KD KH"], discard="2D 3D 4D 5D", stock="QD",
                       opened=[True, False])
    assert_legal(r, state, "take discard 3")
    assert_illegal(r, state, "take discard 4")
    state = play(r, state, "take discard 3")
    assert state.hands[0, 0].sum() == 20
