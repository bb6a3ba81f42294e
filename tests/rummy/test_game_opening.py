"""Opening, lay-offs after opening and joker swaps in the batched core (docs/rules-spec.md §1.5-1.7
"Opening", "Lay-offs", "Joker swap"; §2-4 "opening")."""

import pytest

from zolik_env.rummy import rules
from zolik_env.rummy.scenario import (
    assert_illegal,
    assert_legal,
    hand_str,
    make_state,
    meld_str,
    play,
    table_str,
)

OTHER = "KD KC"
OPP = [("5D 6D 7D", 1)]


def turn(name, hand, melds=(), is_open=False, **options):
    """Seat 0 in the play phase of a melding round."""
    r = rules.preset(name, **options)
    return r, make_state(r, [hand, OTHER], melds=melds, phase="play",
                         opened=[is_open, True])


# name, melds laid (each a meld then lay-offs), opens
OPENINGS = [
    ("cz", ["JH QH KH", "3S 4S 5S"], True),  # 30 + 12 = 42
    ("cz", ["JH QH KH", "2S 3S 4S"], False),  # 39
    ("cz", ["10H JK QH", "3S 4S 5S"], True),  # the joker counts as JH
    ("cz", ["10H JK QH", "5S 5H 5D", "3C 4C 5C"], True),
    ("cz", ["AS AH AD", "KS KH KD"], False),  # 60 points but no joker-free run
    ("cz", ["10H JK QH", "KS KH KD"], False),  # the only run holds a joker
    ("cz", ["QH KH AH", "3S 4S 5S"], True),  # the high ace is 10: 30 + 12
    ("cz", ["AH 2H 3H 4H", "KS KH KD"], False),  # the low ace is 1: 10 + 30
    ("sk", ["JH QH KH", "6S 7S 8S"], True),  # 30 + 21 = 51
    ("sk", ["JH QH KH", "5S 6S 7S"], False),  # 48
    ("jolly", ["10H JH QH", "AS 2S 3S 4S"], True),  # 30 + 10 = 40, low ace 1
    ("jolly", ["10H JH QH", "AS 2S 3S"], False),  # 36
    ("jolly", ["AS AH AD"], True),  # aces in a set are 25: 75, no run needed
    ("jolly", ["10H JK QH", "5S 5H JK"], True),  # 30 + 15, jokers only
]


@pytest.mark.parametrize(("name", "melds", "opens"), OPENINGS)
def test_opening__requirement_per_preset(name, melds, opens):
    cards = " ".join(melds)
    r, state = turn(name, cards + " 9C")
    assert rules.check_opening(melds, r).valid == opens  # the readable API agrees
    for meld in melds:
        state = _lay(r, state, meld)
    assert bool(state.opened[0, 0]) == opens
    (assert_legal if opens else assert_illegal)(r, state, "discard 9C")
    if not opens:
        assert_legal(r, state, "undo")  # provisional melds go back to the hand
        state = play(r, state, "undo")
        assert hand_str(state, 0) == hand_str(turn(name, cards + " 9C")[1], 0)
        assert_legal(r, state, "discard 9C")


def _lay(r, state, meld):
    """Lay a meld as its first three cards, then lay-offs on the new slot."""
    cards = meld.split()
    slot = int(state.num_melds[0])
    state = play(r, state, "meld " + " ".join(cards[:3]))
    for card in cards[3:]:
        end = " high" if card[0] == "A" else ""
        state = play(r, state, f"layoff {card} on {slot}{end}")
    return state


def test_opening__cz_option_51_points():
    r, state = turn("cz", "JH QH KH 3S 4S 5S 9C", opening_points=51)
    state = play(r, state, "meld JH QH KH", "meld 3S 4S 5S")
    assert not state.opened[0, 0]
    assert_illegal(r, state, "discard 9C")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_layoff__only_after_opening(name):
    r, closed = turn(name, "8D 9C 2C", melds=OPP)
    assert_illegal(r, closed, "layoff 8D on 0")
    r, is_open = turn(name, "8D 9C 2C", melds=OPP, is_open=True)
    assert_legal(r, is_open, "layoff 8D on 0")
    state = play(r, is_open, "layoff 8D on 0")
    assert meld_str(state, 0) == "5D 6D 7D 8D" and state.cell_owner[0, 0, 7] == 0


@pytest.mark.parametrize("name", rules.PRESETS)
def test_layoff__own_provisional_melds_extend_before_opening(name):
    r, state = turn(name, "10H JH QH KH 8D 2C", melds=OPP)
    state = play(r, state, "meld 10H JH QH")
    assert not state.opened[0, 0]
    assert_legal(r, state, "layoff KH on 1")
    assert_illegal(r, state, "layoff 8D on 0")  # not on the opponent's meld yet


def test_layoff__opened_mid_turn_then_on_others_melds():
    r, state = turn("cz", "10H JH QH KH 5S 5C 5H 8D 2C", melds=OPP)
    state = play(r, state, "meld 10H JH QH", "layoff KH on 1")  # 40 < 42
    assert_illegal(r, state, "layoff 8D on 0")
    state = play(r, state, "meld 5S 5H 5C")  # 55
    assert state.opened[0, 0]
    state = play(r, state, "layoff 8D on 0")
    assert hand_str(state, 0) == "2C"
    assert_legal(r, state, "discard 2C")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_joker_swap__run_joker_to_hand_must_be_laid_again(name):
    melds = [("5H JK 7H", 1), ("9S 10S JS", 1)]
    r, closed = turn(name, "6H 2C 3C", melds=melds)
    assert_illegal(r, closed, "swap 6H in 0")
    r, state = turn(name, "6H 2C 3C", melds=melds, is_open=True)
    assert_illegal(r, state, "swap 2C in 0")
    state = play(r, state, "swap 6H in 0")
    assert meld_str(state, 0) == "5H 6H 7H" and hand_str(state, 0) == "2C 3C JK"
    assert_illegal(r, state, "discard 2C", "discard JK")
    assert_legal(r, state, "undo")
    state = play(r, state, "layoff JK on 1 high")
    assert meld_str(state, 1) == "9S 10S JS JK"
    assert_legal(r, state, "discard 2C", "discard 3C")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_joker_swap__from_a_set_only_when_completed(name):
    # 3 naturals + joker + the last suit: the joker comes back to the hand
    r, state = turn(name, "7C 2C 3C", melds=[("7S 7H 7D JK", 1), ("9S 10S JS", 1)],
                    is_open=True)
    state = play(r, state, "layoff 7C on 0")
    assert meld_str(state, 0) == "7S 7H 7D 7C" and hand_str(state, 0) == "2C 3C JK"
    assert_illegal(r, state, "discard 2C")
    state = play(r, state, "layoff JK on 1 low")
    assert_legal(r, state, "discard 2C")
    # 2 naturals + joker + one suit: the set grows, the joker stays
    r, state = turn(name, "7D 2C 3C", melds=[("7S 7H JK", 1)], is_open=True)
    state = play(r, state, "layoff 7D on 0")
    assert meld_str(state, 0) == "7S 7H 7D JK" and hand_str(state, 0) == "2C 3C"
    assert_legal(r, state, "discard 2C")


# --- the opening is judged on the table the player leaves, whatever the order of moves

EXAMPLE_HAND = "8H 9H 10H KS KD KC 2C 3D JK"
JOKER_ON_RUN = ["8H 9H 10H JK", "KS KD KC"]


@pytest.mark.parametrize("order", [
    ["meld 8H 9H 10H", "layoff JK on 0 high", "meld KS KD KC"],
    ["meld KS KD KC", "meld 8H 9H 10H", "layoff JK on 1 high"],
    ["meld 8H 9H 10H", "meld KS KD KC", "layoff JK on 0 high"],
])
def test_opening__a_joker_on_the_only_clean_run_spoils_it_in_any_order(order):
    r, state = turn("cz", EXAMPLE_HAND)
    assert not rules.check_opening(JOKER_ON_RUN, r).valid  # "needs a run without a joker"
    state = play(r, state, *order)
    assert sorted(table_str(state)) == sorted(JOKER_ON_RUN)
    assert not state.opened[0, 0]
    assert_illegal(r, state, "discard 2C", "discard 3D")
    assert_legal(r, state, "undo")


def test_opening__met_then_spoiled_then_met_again():
    r, state = turn("cz", EXAMPLE_HAND + " 4D 5D")
    state = play(r, state, "meld KS KD KC", "meld 8H 9H 10H")
    assert state.opened[0, 0]
    state = play(r, state, "layoff JK on 1 high")
    assert not state.opened[0, 0]
    state = play(r, state, "meld 3D 4D 5D")  # a new clean run: 30 + 37 + 12
    assert state.opened[0, 0]
    assert rules.check_opening(["KS KD KC", "8H 9H 10H JK", "3D 4D 5D"], r).valid
    assert_legal(r, state, "discard 2C")


def test_opening__without_the_joker_both_orders_open():
    for order in (["meld 8H 9H 10H", "meld KS KD KC"], ["meld KS KD KC", "meld 8H 9H 10H"]):
        r, state = turn("cz", EXAMPLE_HAND)
        state = play(r, state, *order)
        assert rules.check_opening(["8H 9H 10H", "KS KD KC"], r).valid
        assert state.opened[0, 0]
        assert_legal(r, state, "discard 2C")


def test_opening__lay_offs_on_others_only_while_the_requirement_holds():
    r, state = turn("cz", "JH QH KH 5S 5C 5H 8D 2C JK", melds=OPP)
    state = play(r, state, "meld JH QH KH", "meld 5S 5H 5C")  # 30 + 15
    assert state.opened[0, 0]
    assert_legal(r, state, "layoff 8D on 0")
    state = play(r, state, "layoff JK on 1 low")  # the only clean run takes a joker
    assert not state.opened[0, 0]
    assert_illegal(r, state, "layoff 8D on 0", "discard 2C")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_opening__no_joker_swap_out_of_own_provisional_meld_before_it_is_met(name):
    # 27 points: short of every preset's opening; swapping 9H in would make the run clean
    r, state = turn(name, "8H JK 10H 9H 2C 3C")
    state = play(r, state, "meld 8H JK 10H")
    assert not state.opened[0, 0]
    assert_illegal(r, state, "swap 9H in 0")
    # once other melds meet the requirement, the swap is allowed
    r, state = turn(name, "8H JK 10H 3S 4S 5S 6S KS KD KC 9H 2C")
    state = play(r, state, "meld 8H JK 10H", "meld KS KD KC", "meld 3S 4S 5S",
                 "layoff 6S on 2")  # 27 + 30 + 18
    assert state.opened[0, 0]
    assert_legal(r, state, "swap 9H in 0")
@pytest.mark.parametrize("name", rules.PRESETS)
def test_opening__no_joker_freed_from_own_provisional_set_before_it_is_met(name):
    r, state = turn(name, "7S 7H JK 7D 7C 2C 3C")
    state = play(r, state, "meld 7S 7H JK", "layoff 7D on 0")
    assert meld_str(state, 0) == "7S 7H 7D JK" and not state.opened[0, 0]
    assert_illegal(r, state, "layoff 7C on 0")  # it would free the set's joker
