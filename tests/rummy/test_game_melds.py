"""Melds and lay-offs in the batched core (docs/rules-spec.md §1.3-1.4, §1.6, and each
preset's jokers in §2.5, §3.4, §4.4): runs with a low or high ace, sets, joker limits per
preset, and the card that must always remain."""

import pytest

from zolik_env.rummy import actions as A
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


def opened(name, hand, melds=(), **kw):
    """Seat 0, opened, in the play phase of a melding round."""
    r = rules.preset(name)
    return r, make_state(r, [hand, OTHER], melds=melds, phase="play", opened=[True, True], **kw)


@pytest.mark.parametrize("name", rules.PRESETS)
@pytest.mark.parametrize("meld", ["AH 2H 3H", "QH KH AH", "9S 10S JS", "7S 7H 7D", "7H 7D 7C"])
def test_meld__runs_with_low_or_high_ace_and_sets(name, meld):
    r, state = opened(name, meld + " 2C")
    state = play(r, state, "meld " + meld)
    assert table_str(state) == [meld] and hand_str(state, 0) == "2C"


def test_meld__wrap_around_and_mixed_cards_have_no_action():
    for text in ("meld KH AH 2H", "meld 7S 7S 7H", "meld 7S 8H 9S", "meld 2H 3H"):
        with pytest.raises(ValueError, match="no meld action"):
            A.string_to_action(text)


@pytest.mark.parametrize("name", rules.PRESETS)
def test_meld__needs_the_cards_in_hand(name):
    r, state = opened(name, "7H 8H 2C 3C")
    assert_illegal(r, state, "meld 7H 8H 9H", "meld 7H 8H JK")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_layoff__runs_extend_at_either_end_never_round_the_king(name):
    melds = [("AH 2H 3H", 1), ("JS QS KS", 1), ("QD KD AD", 1)]
    r, state = opened(name, "4H AS AH KH 10S 2D AD 5C", melds=melds)
    assert_legal(r, state, "layoff 4H on 0", "layoff 10S on 1", "layoff AS on 1 high")
    # no wrap-around: K A 2 is not a run
    assert_illegal(r, state, "layoff KH on 0", "layoff AS on 1", "layoff 2D on 2",
                   "layoff AH on 0 high", "layoff AD on 2 high", "layoff AD on 2")
    state = play(r, state, "layoff AS on 1 high", "layoff 10S on 1")
    assert meld_str(state, 1) == "10S JS QS KS AS"


@pytest.mark.parametrize("name", rules.PRESETS)
def test_layoff__sets_take_only_missing_suits_up_to_four(name):
    r, state = opened(name, "7C 7H 8C 2C", melds=[("7S 7H 7D", 1)])
    assert_legal(r, state, "layoff 7C on 0")
    assert_illegal(r, state, "layoff 7H on 0", "layoff 8C on 0")
    state = play(r, state, "layoff 7C on 0")
    assert meld_str(state, 0) == "7S 7H 7D 7C"
    assert_illegal(r, play(r, opened(name, "JK 2C 3C", melds=[("7S 7H 7D 7C", 1)])[1]),
                   "layoff JK on 0 low")


@pytest.mark.parametrize(("name", "valid"), [("cz", False), ("sk", False), ("jolly", True)])
def test_jokers__fewer_than_naturals_in_cz_sk(name, valid):
    r, state = opened(name, "JK JK 7H 7S 2C 3C", melds=[("5H JK 7H", 1)])
    check = assert_legal if valid else assert_illegal
    check(r, state, "meld JK 7H JK", "layoff JK on 0 high", "layoff JK on 0 low")
    assert_legal(r, state, "meld 7S 7H JK" if name != "jolly" else "meld JK 7H JK")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_jokers__never_adjacent_in_a_run(name):
    r, state = opened(name, "JK JK 9H 2C 3C", melds=[("4H 5H 6H JK", 1), ("5S 6S 7S", 1)])
    assert_illegal(r, state, "layoff JK on 0 high")  # 4H 5H 6H JK JK
    assert_legal(r, state, "layoff JK on 0 low", "layoff JK on 1 high")
    state = play(r, state, "layoff JK on 1 high")
    assert_illegal(r, state, "layoff JK on 1 high")
    assert meld_str(state, 1) == "5S 6S 7S JK"


@pytest.mark.parametrize("name", rules.PRESETS)
def test_jokers__at_most_one_in_a_set(name):
    r, state = opened(name, "JK JK 2C 3C", melds=[("7S 7H JK", 1), ("8S 8H 8D", 1)])
    assert_illegal(r, state, "layoff JK on 0 low")
    assert_legal(r, state, "layoff JK on 1 low")
    assert not any(rules.check_meld(m, r).valid for m in ("7S 7H JK JK", "7S JK JK"))


@pytest.mark.parametrize("name", rules.PRESETS)
def test_jokers__alternating_run_is_one_meld_action(name):
    """``5H JK 7H JK 9H`` is valid in every preset, but in cz/sk no 3-card meld plus lay-offs
    reaches it (``5H JK 7H`` + JK has as many jokers as naturals)."""
    r, state = opened(name, "5H 7H 9H JK JK 2C")
    state = play(r, state, "meld 5H JK 7H JK 9H")
    assert meld_str(state, 0) == "5H JK 7H JK 9H" and hand_str(state, 0) == "2C"
    _, other = opened(name, "5H 7H 9H JK JK 2C")
    other = play(r, other, "meld 5H JK 7H")
    (assert_illegal if name != "jolly" else assert_legal)(r, other, "layoff JK on 0 high")
    _, short = opened(name, "5H 7H JK 2C 3C")
    assert_illegal(r, short, "meld 5H JK 7H JK 9H")


@pytest.mark.parametrize("name", rules.PRESETS)
def test_one_card_must_remain(name):
    r, state = opened(name, "7H 8H 9H", melds=[("5S 6S 7S", 1)])
    assert_illegal(r, state, "meld 7H 8H 9H")  # would empty the hand
    r, state = opened(name, "7H 8H 9H 8S")
    state = play(r, state, "meld 7H 8H 9H")
    assert hand_str(state, 0) == "8S"
    r, state = opened(name, "8S", melds=[("5S 6S 7S", 1)])
    assert_illegal(r, state, "layoff 8S on 0")
    assert_legal(r, state, "discard 8S")  # going out is the discard of the last card
    r, state = opened(name, "8S 9S", melds=[("5S 6S 7S", 1)])
    state = play(r, state, "layoff 8S on 0")
    assert_illegal(r, state, "layoff 9S on 0")
