"""Pět kostek, the five-dice game with selectable joker rules (docs/rules-spec.md §5).

Public API (numpy + stdlib only; no gymnasium, pettingzoo or torch)::

    from zolik_env.dice import DiceRules, init, legal_action_mask, step, observe
    rules = DiceRules(joker="forced")
    state = init(rules, seeds=[0, 1, 2])          # a batch of three games
    mask = legal_action_mask(rules, state)        # (3, 44) bool
    state, out = step(rules, state, actions)      # out.rewards (3, 1), out.terminated (3,)

The exact solver lives in ``zolik_env.dice.solver`` (imported on demand).
"""

from zolik_env.dice.actions import (
    NUM_REROLLS,
    REROLL_BASE,
    SCORE_BASE,
    action_to_string,
    num_actions,
    reroll_action,
    score_action,
)
from zolik_env.dice.game import StepOut, init, legal_action_mask, step, totals
from zolik_env.dice.observe import decode_observation, obs_layout, obs_size, obs_slices, observe
from zolik_env.dice.rules import BOX_NAMES, DiceRules
from zolik_env.dice.state import State

__all__ = [
    "BOX_NAMES",
    "NUM_REROLLS",
    "REROLL_BASE",
    "SCORE_BASE",
    "DiceRules",
    "State",
    "StepOut",
    "action_to_string",
    "decode_observation",
    "init",
    "legal_action_mask",
    "num_actions",
    "obs_layout",
    "obs_size",
    "obs_slices",
    "observe",
    "reroll_action",
    "score_action",
    "step",
    "totals",
]
