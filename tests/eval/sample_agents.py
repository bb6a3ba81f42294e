"""A user's agent module: ``zolik eval --agents tests.eval.sample_agents:make_agent``."""

from __future__ import annotations

import numpy as np

from agents.base import SingleFromBatched
from tests.eval.policies import MeldFirst


def make_agent(rules, argument: str = ""):
    """Factory: ``make_agent(rules)`` or ``make_agent(rules, "named")``."""
    policy = MeldFirst()
    if argument:
        policy.name = argument
    return policy


class FirstLegal(SingleFromBatched):
    """A class is a factory too: ``FirstLegal(rules)`` plays the lowest legal action id."""

    def __init__(self, rules) -> None:
        self.rules = rules

    def act_batch(self, obs, mask, rng):
        return np.argmax(mask, axis=1).astype(np.int64)


def not_a_policy(rules):
    return 42
