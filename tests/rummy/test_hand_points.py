"""``game.hand_points``: the batched penalty of each seat's hand equals the readable API's."""

import numpy as np
import pytest

from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import cards_of
from zolik_env.rummy.scoring import hand_penalty


@pytest.mark.parametrize("name", rules.PRESETS)
def test_hand_points__equal_the_rules_api_on_random_play(name):
    r = rules.preset(name, num_players=3)
    state = game.init(r, np.arange(16))
    rng = np.random.default_rng(0)
    for _ in range(60):
        points = game.hand_points(r, state)
        for b in range(0, 16, 5):
            for seat in range(3):
                hand = cards_of(state.hands[b, seat])
                assert points[b, seat] == hand_penalty(hand, r), (b, seat)
        state = game.step(r, state, game.sample_legal(game.legal_action_mask(r, state), rng))[0]
    assert points.max() > 0
