"""Shared fixtures for the Pět kostek tests: scripted states and a fresh solver cache."""

from __future__ import annotations

import numpy as np
import pytest

from zolik_env.dice import DiceRules, game
from zolik_env.dice.state import State


@pytest.fixture(autouse=True, scope="session")
def _solver_cache(tmp_path_factory: pytest.TempPathFactory):
    """Tests never read or write the user's cache: tables are solved fresh, once."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ZOLIK_CACHE_DIR", str(tmp_path_factory.mktemp("zolik_cache")))
    yield
    mp.undo()


def make_state(
    rules: DiceRules,
    dice: str,
    boxes: dict[int, int] | None = None,
    rolls_left: int = 0,
    seat_boxes: dict[int, dict[int, int]] | None = None,
    seat: int = 0,
) -> State:
    """One game with dice ``"1 1 2 3 4"`` and the given filled boxes ``{flat box: score}``.

    ``boxes`` fills seat ``seat``'s card; ``seat_boxes`` fills other seats.
    """
    state = game.init(rules, [0])
    card = np.full((1, rules.num_players, rules.num_boxes), -1, np.int16)
    for p, filled in {seat: boxes or {}, **(seat_boxes or {})}.items():
        for box, score in filled.items():
            card[0, p, box] = score
    return game.replace(
        state,
        dice=np.sort(np.array([[int(x) for x in dice.split()]], np.int8), axis=1),
        rolls_left=np.array([rolls_left], np.int8),
        boxes=card,
        current=np.array([seat], np.int8),
    )


def legal_boxes(rules: DiceRules, state: State) -> list[int]:
    """Flat box ids the seat may fill now."""
    from zolik_env.dice import SCORE_BASE

    mask = game.legal_action_mask(rules, state)[0]
    return [int(a) - SCORE_BASE for a in np.flatnonzero(mask) if a >= SCORE_BASE]


def score(rules: DiceRules, state: State, box: int) -> tuple[State, int]:
    """Fill flat box ``box``; returns the new state and the mover's reward."""
    from zolik_env.dice import SCORE_BASE

    seat = int(state.current[0])
    new, out = game.step(rules, state, np.array([SCORE_BASE + box]))
    return new, int(out.rewards[0, seat])
