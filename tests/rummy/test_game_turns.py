"""UNDO, the end of a turn, going out and deal scores in the batched core (docs/rules-spec.md
§1.4, §1.8-1.9, §1.12-1.13, §2.7, §3.5, §4.8)."""

import numpy as np
import pytest

from zolik_env.rummy import game, rules
from zolik_env.rummy.scenario import (
    assert_illegal,
    assert_legal,
    discard_str,
    expected_scores,
    hand_str,
    legal_moves,
    make_state,
    play,
    step,
    stock_str,
    table_str,
)

OPP = [("5D 6D 7D", 1)]


@pytest.mark.parametrize("name", rules.PRESETS)
def test_discard__ends_the_turn_and_passes_to_the_next_seat(name):
    r = rules.preset(name, num_players=3)
    state = make_state(r, ["2C 3C", "4C 5C", "6C 7C"], current=2, stock="9H 8H")
    assert legal_moves(r, state)[0] == "draw stock"
    assert_illegal(r, state, "discard 6C")  # draw first
    state = play(r, state, "draw stock")
    assert_illegal(r, state, "draw stock")
    turn = int(state.turn[0])
    state = play(r, state, "discard 8H")
    assert (state.current[0], state.turn[0], discard_str(state)) == (0, turn + 1, "8H")
    assert_legal(r, state, "draw stock")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_undo__only_after_laying_or_taking(name):
    r = rules.preset(name)
    state = play(r, make_state(r, ["7H 8H 9H 2C 3C", "KD KC"], stock="QS"), "draw stock")
    assert_illegal(r, state, "undo")
    state = play(r, state, "meld 7H 8H 9H")
    assert_legal(r, state, "undo")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_undo__restores_hand_and_table_then_only_a_discard(name):
    r = rules.preset(name)
    melds = [("5H JK 7H", 1), ("9S 10S JS", 1)]
    start = make_state(r, ["6H 7S 8S 9S 2C", "KD KC"], stock="QS", melds=melds,
                       opened=[True, True])
    state = play(r, start, "draw stock", "swap 6H in 0", "meld 7S 8S 9S",
                 "layoff JK on 1 high")
    assert table_str(state) == ["5H 6H 7H", "9S 10S JS JK", "7S 8S 9S"]
    state = play(r, state, "undo")
    assert table_str(state) == ["5H JK 7H", "9S 10S JS"]
    for field in ("cells", "cell_owner", "meld_kind", "meld_key", "num_melds", "opened"):
        assert (getattr(state, field) == getattr(start, field)).all(), field
    assert hand_str(state, 0) == "7S 8S 9S QS 6H 2C"
    assert set(legal_moves(r, state)) == {
        "discard " + c for c in hand_str(state, 0).split()}


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_undo__taken_discard_goes_back_and_a_stock_card_is_drawn(name):
    r = rules.preset(name)
    start = make_state(r, ["2C 3C 9S", "KD KC"], discard="8S 4C", stock="AD QS")
    state = play(r, start, "take discard 1")
    assert_illegal(r, state, "discard 9S")
    state = play(r, state, "undo")
    assert discard_str(state) == "8S 4C" and stock_str(state) == "AD"
    assert hand_str(state, 0) == "9S QS 2C 3C"
    assert_legal(r, state, "discard QS", "discard 9S")  # the stock card is free to discard
    assert_illegal(r, state, "undo", "meld 2C 3C 4C")


def test_undo__sk_bottom_card_goes_back():
    r = rules.preset("sk")
    state = play(r, make_state(r, ["2C 3C 9S", "KD KC"], bottom="4C", stock="QS"),
                 "take bottom", "undo")
    assert state.bottom[0] == rules.parse_card("4C") and stock_str(state) == ""
    assert hand_str(state, 0) == "9S QS 2C 3C"


def test_undo__jolly_deep_pickup_goes_back_and_opening_is_taken_back():
    r = rules.preset("jolly")
    state = make_state(r, ["2C 3C 4C 9S", "KD KC"], discard="2D 3S 4H", stock="QS",
                       opened=[True, False])
    state = play(r, state, "take discard 2", "meld 2C 3C 4C", "undo")
    assert discard_str(state) == "2D 3S 4H" and hand_str(state, 0) == "9S QS 2C 3C 4C"
    assert state.num_melds[0] == 0
    fresh = make_state(r, ["JH QH KH 3S 4S 5S 9C", "KD KC"], phase="play")
    fresh = play(r, fresh, "meld JH QH KH", "meld 3S 4S 5S")
    assert fresh.opened[0, 0]
    assert not play(r, fresh, "undo").opened[0, 0]


def final(r, hands, moves, melds=(), opened=None, current=0):
    """Play ``moves`` from the play phase of ``current``; returns (state, rewards, term)."""
    state = make_state(r, hands, melds=melds, phase="play", current=current,
                       opened=opened or [False] * len(hands))
    state = play(r, state, *moves[:-1])
    state, rewards, terminated, truncated = step(r, state, moves[-1])
    assert terminated and not truncated and state.winner[0] == current
    assert not game.legal_action_mask(r, state).any()
    assert list(state.scores[0]) == expected_scores(r, state)
    sign = -1 if r.lower_is_better else 1
    assert np.array_equal(rewards, sign * state.scores[0])
    return state


# seat 0 goes out after melding before; seat 1 holds KD 5C JK (65) and laid 5S 6S 7S (18)
GOING_OUT = {"cz": [0, 65], "sk": [10, -65], "jolly": [9 + 30, 18 - 65]}
NEVER_OPENED = {"cz": [0, 100], "sk": [10, -100], "jolly": [9 + 30, 18 - 65]}


@pytest.mark.parametrize("name", rules.PRESETS)
@pytest.mark.parametrize("seat1_opened", [True, False])
def test_going_out__discarding_the_last_card_wins(name, seat1_opened):
    r = rules.preset(name)
    state = final(r, ["2H 3H 4H 9C", "KD 5C JK"], ["meld 2H 3H 4H", "discard 9C"],
                  melds=[("5S 6S 7S", 1)], opened=[True, seat1_opened])
    assert not state.closed_from_hand[0]
    table = GOING_OUT if seat1_opened else NEVER_OPENED
    assert list(state.scores[0]) == table[name]


# seat 0 closes from hand, laying 30 + 21; seat 1 as above, its penalties doubled
CLOSED = {"cz": [0, 130], "sk": [20, -130], "jolly": [(51 + 30) * 2, 9 - 130]}


@pytest.mark.parametrize("name", rules.PRESETS)
def test_going_out__closing_from_hand_doubles(name):
    r = rules.preset(name)
    state = final(r, ["JH QH KH 6S 7S 8S 9C", "KD 5C JK"],
                  ["meld JH QH KH", "meld 6S 7S 8S", "discard 9C"],
                  melds=[("2S 3S 4S", 1)], opened=[False, True])
    assert state.closed_from_hand[0]
    assert list(state.scores[0]) == CLOSED[name]


def test_scores__jolly_worked_examples_of_rules_md():
    r = rules.preset("jolly", num_players=3)
    melds = [("8D 9D 10D", 0), ("JH QH KH", 0), ("AD AH AS", 1), ("2C 3C 4C", 2)]
    hands = ["3S 4S 5S 6S QS KS", "JK 5S 5H 7S 8S 10S JS JH QS", "5C 9H"]
    state = final(r, hands, ["layoff 5C on 3", "discard 9H"], melds=melds,
                  opened=[True, True, True], current=2)
    assert list(state.scores[0]) == [19, -40, 9 + 5 + 30]


def test_scores__jolly_swapped_joker_scores_for_whoever_lays_it_again():
    r = rules.preset("jolly")
    melds = [("5H JK 7H", 1), ("9S 10S JS", 1)]
    state = final(r, ["6H 2C", "KD KC"], ["swap 6H in 0", "layoff JK on 1 high", "discard 2C"],
                  melds=melds, opened=[True, True])
    # seat 0: 6H + the joker as QS + 30 for going out; seat 1: 5H 7H 9S 10S JS - KD KC
    assert list(state.scores[0]) == [6 + 10 + 30, 5 + 7 + 9 + 10 + 10 - 20]
