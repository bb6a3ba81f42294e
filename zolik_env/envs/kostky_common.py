"""What the Pět kostek environments share: the observation space of the core's flat
observation. Imports gymnasium and the dice core only."""

from __future__ import annotations

import gymnasium
import numpy as np

from zolik_env.dice import DiceRules, obs_size


def observation_space(rules: DiceRules) -> gymnasium.spaces.Box:
    """Bounded Box of the flat observation (scores / 500 stay below 20 on any table)."""
    return gymnasium.spaces.Box(0.0, 20.0, (obs_size(rules),), np.float32)
