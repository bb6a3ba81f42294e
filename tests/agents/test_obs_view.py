"""The observation decoder names the core's slices correctly."""

import numpy as np

from agents import obs_view as ov
from zolik_env.rummy import rules
from zolik_env.rummy.cards import parse_card
from zolik_env.rummy.observe import TURN_FLAGS, obs_size, observe
from zolik_env.rummy.scenario import make_state, play


def test_decode__views_match_the_scripted_position():
    r = rules.preset("sk", num_players=3)
    state = make_state(r, ["7H 8H JK", "2S 3S", "KD"], discard="4C 9D", bottom="QS",
                       opened=[False, True, False], phase="play", current=1)
    view = ov.decode(observe(r, state, 1)[0], r)
    assert view["hand"].sum() == 2 and view["hand"][parse_card("3S")] == 1
    assert list(view["hand_sizes"]) == [2, 1, 3]  # observer first, then the next seats
    assert list(view["opened"]) == [1, 0, 0]
    assert list(view["discard_newest"][:3]) == [parse_card("9D"), parse_card("4C"), -1]
    assert np.argmax(view["bottom_card"]) == parse_card("QS")
    assert ov.phase(view) == ov.PHASE_PLAY and view["known_taken"].shape == (3, 53)
    assert ov.slices(r)[-1][2] == obs_size(r)


def test_turn_key__changes_with_the_hand_only_within_a_turn():
    r = rules.preset("cz")
    state = make_state(r, ["7H 8H 9H 2C", "2S 3S"], phase="play")
    view = ov.decode(observe(r, state, 0)[0], r)
    other = ov.decode(observe(r, make_state(r, ["7H 8H 2C", "2S 3S"], phase="play"), 0)[0], r)
    assert ov.turn_key(view) != ov.turn_key(other)
    assert ov.turn_key(view) == ov.turn_key(ov.decode(observe(r, state, 0)[0], r))


def test_named_columns__turn_flags_and_phase_follow_the_moves():
    r = rules.preset("cz")
    state = make_state(r, ["7H 8H 9H 2C 5D", "2S 3S"], discard="4C 10H")
    view = ov.decode(observe(r, state, 0)[0], r)
    assert ov.phase(view) == ov.PHASE_DRAW and view["turn_flags"].shape == (len(TURN_FLAGS),)
    assert not view["turn_flags"].any()
    state = play(r, state, "take discard 1")
    view = ov.decode(observe(r, state, 0)[0], r)
    assert ov.phase(view) == ov.PHASE_PLAY
    assert ov.flag(view, ov.FLAG_TOOK_PILE) and not ov.flag(view, ov.FLAG_LAID)
    state = play(r, state, "meld 7H 8H 9H")
    view = ov.decode(observe(r, state, 0)[0], r)
    assert ov.flag(view, ov.FLAG_LAID) and not ov.flag(view, ov.FLAG_UNDONE)
    state = play(r, state, "undo")
    view = ov.decode(observe(r, state, 0)[0], r)
    assert ov.flag(view, ov.FLAG_UNDONE) and not ov.flag(view, ov.FLAG_OPENED_BEFORE)
    assert view["opened"][ov.OBSERVER] == 0 and view["hand_sizes"][ov.OBSERVER] == 6
