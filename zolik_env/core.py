"""What both rules cores share: the ``StepOut`` that ``step`` returns.

Both cores (``zolik_env.rummy.game``, ``zolik_env.dice.game``) expose the same four pure,
batched functions under the same names (docs/core.md, "Both cores")::

    state = init(rules, seeds)                        # one game per seed
    mask = legal_action_mask(rules, state)            # bool (B, A)
    state, out = step(rules, state, actions)          # out: StepOut
    obs = observe(rules, state, seat)                 # (B, OBS) rummy int16, dice float32

The seat to act is ``state.current`` and the seat count ``rules.num_players`` in both.
This module imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["StepOut"]


@dataclasses.dataclass(frozen=True, slots=True)
class StepOut:
    """What one ``step`` of B games gives back besides the new state."""

    rewards: np.ndarray  # (B, P) what each seat gained this step (rummy float32, dice int32)
    terminated: np.ndarray  # bool (B,) the game is over by the rules
    truncated: np.ndarray  # bool (B,) the game was cut off (dice: never, all False)
