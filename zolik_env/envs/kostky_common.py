"""What the Pět kostek environments share: the observation space of the core's flat
observation and the AEC env's global state. Imports gymnasium and the dice core only."""

from __future__ import annotations

import gymnasium
import numpy as np

from zolik_env.dice import DiceRules, obs_size, observe
from zolik_env.dice.state import State


def observation_space(rules: DiceRules) -> gymnasium.spaces.Box:
    """Bounded Box of the flat observation (scores / 500 stay below 20 on any table)."""
    return gymnasium.spaces.Box(0.0, 20.0, (obs_size(rules),), np.float32)


def state_space(rules: DiceRules) -> gymnasium.spaces.Box:
    """Box of ``game_state``: every seat's observation, then the seat to act one-hot."""
    p = rules.num_players
    return gymnasium.spaces.Box(0.0, 20.0, (p * obs_size(rules) + p,), np.float32)


def game_state(rules: DiceRules, state: State, row: int = 0) -> np.ndarray:
    """float32 ``(P * OBS + P,)``: the observations of seats 0..P-1 of game ``row`` (each
    from its own seat), then a one-hot of the seat to act (all zeros once it is over)."""
    game = state.take(slice(row, row + 1))
    views = [observe(rules, game, seat)[0] for seat in range(rules.num_players)]
    to_act = np.arange(rules.num_players) == game.current[0]
    views.append((to_act & ~game.done[0]).astype(np.float32))
    return np.concatenate(views)
