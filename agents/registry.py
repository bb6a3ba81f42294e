"""Build agents from short specs: ``random``, ``greedy``, ``planner``, ``ppo:PATH``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Policy
from zolik_env.rummy.options import RuleSet

# name -> "module:factory"; a factory takes (rules, argument) and returns a Policy
AGENTS: dict[str, str] = {
    "random": "agents.random_policy:make",
    "ppo": "agents.ppo:make",
    "greedy": "agents.greedy:make",
    "planner": "agents.planner:make",
}


def register(name: str, target: str) -> None:
    """Add an agent kind (``"module:factory"``)."""
    AGENTS[name] = target


def make_agent(spec: str, rules: RuleSet) -> Policy:
    """The agent named by ``spec`` (``kind`` or ``kind:argument``) for ``rules``.

    Raises:
        ValueError: naming an unknown kind.
    """
    kind, _, argument = spec.partition(":")
    if kind not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}: choose from "
                         f"{', '.join(sorted(AGENTS))} (ppo takes ppo:PATH)")
    module, factory = AGENTS[kind].split(":")
    build: Callable[[RuleSet, str], Policy] = getattr(importlib.import_module(module), factory)
    return build(rules, argument)
