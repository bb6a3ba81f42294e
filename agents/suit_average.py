"""``suits:net=SPEC,views=N``: a network's move distribution averaged over renamings of
the suits, and its likeliest move.

The rules treat the four suits alike (``zolik_env.rummy.symmetry``); a network need not.
Asked at its own positions with the suits renamed (``zolik strength suits``), the
2026-12-07 ``pretrained:cz_2p`` drew otherwise in 8% to 14% of them and discarded
otherwise (not the renamed card) in 31% to 37%, where the planner always draws alike
(``docs/results/suit-symmetry.md``): part of its play follows the suits' names.
This agent asks the network at the position and at ``views - 1`` renamings of it, maps
each answer back to the position's own moves, averages the distributions and plays the
likeliest move; as AlphaGo averaged its network over the board's symmetries. With
``views=24`` (every renaming) its moves no longer depend on the suits' names, up to ties.
It plays from the network's weights alone, no search: one network call per decision
on ``views`` renamed positions.

The renamings are fixed (the same moves for the same position): the position itself, the
three that turn the suits round (S H D C to H D C S, ...), then the rest in the order of
``SUIT_PERMUTATIONS``.

Spec: ``suits:net=pretrained:cz_2p,views=4`` (default 4); ``net`` must give its move
distribution (a network: ``pretrained:NAME``, ``ppo:PATH``). A ``net`` that averages
already (a bot exported with ``--views``) is averaged from its network alone: the spec
means the same network over ``views`` renamings whatever the bot's own setting, not an
average of averages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import SingleFromBatched
from agents.registry import key_values, make_agent, number_value
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.symmetry import (
    IDENTITY,
    SUIT_PERMUTATIONS,
    action_map,
    permute_masks,
    permute_observations,
)

_TURNS = ((1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2))
ORDER = (IDENTITY, *_TURNS, *(p for p in SUIT_PERMUTATIONS[1:] if p not in _TURNS))
DEFAULT_VIEWS = 4
STACKED_ROWS = 1024  # positions per network call, times the views


class SuitAveraged(SingleFromBatched):
    """``net``'s distribution averaged over the first ``views`` renamings of ``ORDER``."""

    def __init__(self, net: Any, rules: RuleSet, views: int = DEFAULT_VIEWS,
                 name: str = "") -> None:
        if not callable(getattr(net, "probabilities", None)):
            raise ValueError(f"suits: {net.name!r} gives no move distribution; give a "
                             f"network (pretrained:NAME, ppo:PATH)")
        if not 1 <= views <= len(ORDER):
            raise ValueError(f"suits: views={views} must be 1 to {len(ORDER)}")
        if isinstance(net, SuitAveraged):
            net = net.net  # average the network itself (module docstring)
        self.net, self.rules, self.renamings = net, rules, ORDER[:views]
        self.name = name or f"suits:views={views}"

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float64 (B, A): the mean over the renamings of the network's distribution there,
        each mapped back to this position's moves (zero on illegal moves). The renamed
        positions of up to ``STACKED_ROWS`` rows go through the network as one batch: one
        call instead of ``views``, which is most of the cost when a match asks for one
        row at a time."""
        total = np.zeros(mask.shape, np.float64)
        for rows in np.array_split(np.arange(len(obs)), -(-len(obs) // STACKED_ROWS) or 1):
            total[rows] = self._mean_of_views(obs[rows], mask[rows])
        return total

    def _mean_of_views(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        views = len(self.renamings)
        seen = self.net.probabilities(
            np.concatenate([permute_observations(self.rules, obs, p) for p in self.renamings]),
            np.concatenate([permute_masks(mask, p) for p in self.renamings]))
        seen = seen.reshape(views, len(obs), -1)
        return sum(seen[k][:, action_map(p)] for k, p in enumerate(self.renamings)) / views

    def values(self, obs: np.ndarray) -> np.ndarray:
        """The network's own value estimates (``search:net=...`` ends rollouts with them)."""
        return np.asarray(self.net.values(obs))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return self.act_probabilities(self.probabilities(obs, mask), mask, rng)

    @staticmethod
    def act_probabilities(probs: np.ndarray, mask: np.ndarray,
                          rng: np.random.Generator) -> np.ndarray:
        """The likeliest legal move of averaged distributions already known (as
        ``agents.kind_swap`` asks a network for its move after its distribution)."""
        return np.argmax(np.where(mask, probs, -1.0), 1).astype(np.int64)


def check_views(argument: str) -> int:
    """The ``views`` of a ``suits:`` argument (default ``DEFAULT_VIEWS``), or a one-line
    ValueError naming a bad key or value."""
    given = key_values("suits", argument, ("net", "views"))
    views = int(number_value("suits", "views", given.get("views", str(DEFAULT_VIEWS)), 1, int))
    if views > len(ORDER):
        raise ValueError(f"suits: views={views} must be 1 to {len(ORDER)}")
    return views


def make(rules: RuleSet, argument: str = "") -> SuitAveraged:
    """The agent for spec ``suits:ARGUMENT`` (see the module docstring)."""
    views = check_views(argument)
    given = key_values("suits", argument, ("net", "views"))
    if not given.get("net"):
        raise ValueError("suits: give the network, e.g. suits:net=pretrained:cz_2p,views=4")
    agent = SuitAveraged(make_agent(given["net"], rules), rules, views)
    agent.name = f"suits:{argument}"
    return agent
