"""The compiled core plays exactly as the numpy core it replaced: digests of every State
field, mask, observation, critic view and reward over scripted play, for every preset,
2-4 players and batches of 1, 7 and 64 (``tests/golden/core_digests.py``), equal the
digests the numpy core wrote before it was removed."""

import json
from pathlib import Path

import numpy as np
import pytest

from tests.golden import core_digests
from zolik_env.rummy import game

DIGESTS = json.loads((Path(__file__).parents[1] / "golden" / "core_digests.json").read_text())
SHORT = 20_000 // 27  # decisions per configuration of the digests checked here


@pytest.mark.parametrize(("preset", "players", "batch"), list(core_digests.configurations()))
def test_core_digest__equals_the_numpy_core(preset, players, batch):
    key = core_digests.key(preset, players, batch, SHORT)
    assert core_digests.digest(preset, players, batch, SHORT) == DIGESTS[key]


def test_core_digest__sees_a_one_point_change_in_one_score(monkeypatch):
    """The digest can fail: a step that shifts one deal's reward by one point changes it."""
    real_step = game.step

    def shifted(rules, state, actions, validate=True):
        new, out = real_step(rules, state, actions, validate)
        out.rewards[out.terminated] += 1
        return new, out

    monkeypatch.setattr(game, "step", shifted)
    key = core_digests.key("cz", 2, 1, SHORT)
    assert core_digests.digest("cz", 2, 1, SHORT) != DIGESTS[key]


def test_scripted_player__lays_cards_half_of_the_time_it_can():
    mask = np.zeros((400, 2658), bool)
    mask[:, 30] = True  # a meld
    mask[:, 2610] = True  # a discard
    picks = core_digests.scripted_actions(mask, np.random.default_rng(0))
    assert set(picks) == {30, 2610}
    assert 0.65 < (picks == 30).mean() < 0.85  # half the time, plus half of the random rest
