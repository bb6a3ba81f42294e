"""The max_turns cut-off: every deal ends, even where deep pick-ups avoid the stock."""

from __future__ import annotations

import numpy as np
import pytest

from zolik_env.rummy import game, options
from zolik_env.rummy.scenario import expected_scores, make_state, play, step


def test_max_turns__cuts_the_deal_off_as_truncated_with_no_winner():
    r = options.preset("jolly", max_turns=12)
    state = make_state(r, ["3S 4S 9H KD", "5C 6C 8D QH"], discard="2H 7D", turn=10,
                       opened=[True, True])
    state = play(r, state, "take discard 1", "discard 3S")  # turn 10 ends, turn 11 starts
    assert not state.done[0]
    state, _, terminated, truncated = step(r, state, "draw stock")
    state, _, terminated, truncated = step(r, state, "discard 5C")  # turn 11 ends
    assert truncated and not terminated
    assert state.winner[0] == -1
    assert state.scores[0].tolist() == expected_scores(r, state)
    assert not game.legal_action_mask(r, state).any()


def test_max_turns__one_turn_earlier_the_deal_goes_on():
    r = options.preset("jolly", max_turns=13)
    state = make_state(r, ["3S 4S 9H KD", "5C 6C 8D QH"], discard="2H 7D", turn=11,
                       opened=[True, True])
    state = play(r, state, "take discard 2", "discard 3S")
    assert not state.done[0] and state.turn[0] == 12


@pytest.mark.parametrize("preset", ["cz", "jolly"])
def test_max_turns__bounds_random_deals(preset):
    r = options.preset(preset, max_turns=40)
    state = game.init(r, np.arange(16))
    rng = np.random.default_rng(3)
    for _ in range(40 * 60):
        if state.done.all():
            break
        state, *_ = game.step(r, state, game.sample_legal(game.legal_action_mask(r, state), rng))
    assert state.done.all()
    assert (state.turn <= 40).all()


def test_max_turns__rejects_out_of_range():
    with pytest.raises(ValueError, match="max_turns"):
        options.preset("cz", max_turns=-1)
