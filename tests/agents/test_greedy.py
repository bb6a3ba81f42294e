"""greedy on scripted positions (cz, seat 0 has drawn and may meld: round 4)."""

from agents.planner.greedy import GreedyPolicy
from tests.agents.play import play_turn
from zolik_env.rummy import rules
from zolik_env.rummy.scenario import make_state, table_str

CZ = rules.preset("cz")
OPP = "2S 3S 5S 9S JD QD KD 4C 6C 8C 10C QC KC"


def test_greedy__opens_when_it_can_and_discards_its_highest_loose_card():
    # 7H 8H 9H (24) + KS KH KD (30) = 54 >= 42 with a clean run; loose: 2C 5D; JS 10S pair
    state = make_state(CZ, ["7H 8H 9H KS KH KD 2C 5D JS 10S", OPP], phase="play")
    state, moves = play_turn(GreedyPolicy(CZ), CZ, state)
    assert sorted(table_str(state)) == ["7H 8H 9H", "KS KH KD"]
    assert bool(state.opened[0, 0])
    assert moves[-1] == "discard 5D"
    assert "undo" not in moves


def test_greedy__lays_nothing_it_cannot_complete_into_an_opening():
    # 7H 8H 9H (24) + 2S 2H 2D (6) = 30 < 42: no provisional melds, no UNDO
    state = make_state(CZ, ["7H 8H 9H 2S 2H 2D 5C JC", OPP], phase="play")
    state, moves = play_turn(GreedyPolicy(CZ), CZ, state)
    assert moves == ["discard JC"]
    assert table_str(state) == [] and not bool(state.opened[0, 0])


def test_greedy__lays_off_after_opening_and_keeps_a_card():
    state = make_state(CZ, ["10H JH 4C", OPP], melds=[("7H 8H 9H", 1)], opened=[True, True],
                       phase="play")
    state, moves = play_turn(GreedyPolicy(CZ), CZ, state)
    assert moves == ["layoff 10H on 0", "layoff JH on 0", "discard 4C"]
    assert bool(state.done[0]) and int(state.winner[0]) == 0


def test_greedy__never_discards_a_joker_when_another_card_may_go():
    state = make_state(CZ, ["JK 2C", OPP], opened=[True, True], phase="play")
    assert play_turn(GreedyPolicy(CZ), CZ, state)[1] == ["discard 2C"]


def test_greedy__draws_from_the_stock_even_when_the_discard_would_open():
    state = make_state(CZ, ["7H 8H KS KH KD 2C 5D", OPP], discard="9H")
    state, moves = play_turn(GreedyPolicy(CZ), CZ, state)
    assert moves[0] == "draw stock"
