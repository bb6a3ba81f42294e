"""``search:net=SPEC,...``: a learned network that searches at play time.

``pimc`` (``agents.search.pimc``) with the network in both of the planner's roles: the
network's likeliest move is the one the search must beat, its next likeliest moves are
the other candidates, and every seat of every rollout plays the network's sampled moves.
It plays from its own information state only, as ``pimc`` does; slower than the network
alone (a forward pass per rollout step) and, with enough rollouts, stronger. Evaluation
only, like ``pimc``.

Spec: ``search:net=SPEC`` with ``net`` a network agent (``pretrained:NAME``,
``ppo:PATH``), and ``pimc``'s ``rollouts`` (default 32), ``candidates`` (4), ``z`` (1),
``seconds`` (0) and ``horizon`` (0: rollouts to the deal's end; N: to the searching
seat's N-th turn, where the network's value head estimates the rest), e.g.
``search:net=pretrained:cz_2p,rollouts=64``.
"""

from __future__ import annotations

from agents.registry import key_values, number_value
from agents.search.pimc import Budget, PIMCPolicy, budget_of
from zolik_env.rummy.options import RuleSet

_KEYS = ("net", "rollouts", "seconds", "candidates", "z", "horizon")


def make(rules: RuleSet, argument: str = "") -> PIMCPolicy:
    """The agent for spec ``search:ARGUMENT`` (see the module docstring)."""
    given = key_values("search", argument, _KEYS)
    net = given.pop("net", "")
    if not net:
        raise ValueError("search: give the network, e.g. search:net=pretrained:cz_2p,rollouts=32")
    kind = net.partition(":")[0]
    if kind not in ("pretrained", "ppo"):
        raise ValueError(f"search: net={net!r} is not a network (pretrained:NAME or ppo:PATH)")
    horizon = int(number_value("search", "horizon", given.pop("horizon", "0"), 0, int))
    budget: Budget = budget_of("search", given)
    prior = net if net.endswith(":argmax") else f"{net}:argmax"
    policy = PIMCPolicy(rules, budget, policy=net.removesuffix(":argmax"), prior=prior,
                        horizon=horizon)
    policy.name = "search"
    return policy
