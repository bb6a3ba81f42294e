"""``swap:net=SPEC,kinds=K1+K2``: an agent whose moves of some kinds are the planner's.

At every decision both the agent (``net``, any agent that acts on observations) and the
planner are asked; where the agent's move is of one of ``kinds`` (draw, meld, lay-off,
joker swap, undo, discard: the kind of the action id, ``KINDS``) the planner's move is
played instead. Two uses: ``eval.move_kinds`` measures what each kind of a network's moves
is worth against the planner's, and ``train.expert_iteration`` labels a network's own
deals with it (the planner's moves where the network's are measured to lose, the network's
own elsewhere). Each decision comes from the seat's observation alone.

``margin=M`` keeps the agent's move of a swapped kind where the agent is sure of it: where
its log-probability exceeds that of the planner's move by more than ``M``. It asks whether
a network's confident departures from the planner gain what its others lose
(``kinds=all``: every kind). The agent must give its move distribution (a network).

Spec: ``swap:net=pretrained:cz_2p:argmax,kinds=draw+meld``,
``swap:net=pretrained:cz_2p:argmax,kinds=all,margin=3``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import SingleFromBatched, is_oracle_policy, is_search_policy
from agents.registry import key_values, make_agent, number_value
from zolik_env.rummy import actions as A
from zolik_env.rummy.options import RuleSet

KINDS = {  # kind -> the range of action ids
    "draw": (A.DRAW_STOCK, A.MELD_BASE),
    "meld": (A.MELD_BASE, A.LAYOFF_BASE),
    "lay-off": (A.LAYOFF_BASE, A.JOKER_BASE),  # ace-high lay-offs too
    "joker swap": (A.JOKER_BASE, A.UNDO),
    "undo": (A.UNDO, A.DISCARD_BASE),
    "discard": (A.DISCARD_BASE, A.NUM_ACTIONS),
}


def kind_of(moves: np.ndarray) -> np.ndarray:
    """int (B,): the index in ``KINDS`` of each move's kind."""
    edges = np.array([end for _, end in KINDS.values()])
    return np.searchsorted(edges, moves, side="right")


class KindSwap(SingleFromBatched):
    """``agent``'s moves, except those of the kinds in ``swapped`` (indices in ``KINDS``),
    which are ``planner``'s move at that decision unless the agent is surer of its own than
    of the planner's by more than ``margin`` (log-probability; None: always swapped);
    counts, per kind, the agent's moves and those the planner would not have made."""

    def __init__(self, agent: Any, planner: Any, swapped: Sequence[int] = (),
                 margin: float | None = None) -> None:
        if is_search_policy(agent) or is_oracle_policy(agent):
            raise ValueError(f"agent {agent.name!r} does not act on an observation alone (a "
                             f"search or an oracle): its moves cannot be swapped")
        if margin is not None and not callable(getattr(agent, "probabilities", None)):
            raise ValueError(f"agent {agent.name!r} gives no move distribution: margin= needs "
                             f"a network")
        self.agent, self.planner, self.swapped = agent, planner, np.asarray(swapped, np.int64)
        self.margin = margin
        self.name = agent.name
        self.moves = np.zeros(len(KINDS), np.int64)
        self.differ = np.zeros(len(KINDS), np.int64)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        if self.margin is None:
            mine = np.asarray(self.agent.act_batch(obs, mask, rng), np.int64)
        else:
            probs = self.agent.probabilities(obs, mask)
            mine = np.asarray(self.agent.act_probabilities(probs, mask, rng), np.int64)
        theirs = np.asarray(self.planner.act_batch(obs, mask, rng), np.int64)
        kinds = kind_of(mine)
        np.add.at(self.moves, kinds, 1)
        np.add.at(self.differ, kinds[mine != theirs], 1)
        swap = np.isin(kinds, self.swapped)
        if self.margin is not None:
            rows = np.arange(len(mine))
            with np.errstate(divide="ignore"):
                sure = np.log(probs[rows, mine]) - np.log(probs[rows, theirs]) > self.margin
            swap &= ~sure
        return np.where(swap, theirs, mine)


def kind_indices(text: str, agent: str = "swap") -> list[int]:
    """``[0, 1]`` for ``"draw+meld"``, every kind for ``"all"``, naming an unknown kind."""
    names = list(KINDS)
    if text == "all":
        return list(range(len(names)))
    out = []
    for kind in filter(None, text.split("+")):
        if kind not in KINDS:
            raise ValueError(f"{agent}: kind {kind!r}: choose from {', '.join(names)}")
        out.append(names.index(kind))
    return out


def make(rules: RuleSet, argument: str = "") -> KindSwap:
    """The agent for spec ``swap:ARGUMENT`` (see the module docstring)."""
    given = key_values("swap", argument, ("net", "kinds", "margin"))
    if not given.get("net"):
        raise ValueError("swap: give the agent, e.g. swap:net=pretrained:cz_2p,kinds=draw")
    margin = given.get("margin")
    swapped = KindSwap(make_agent(given["net"], rules), make_agent("planner", rules),
                       kind_indices(given.get("kinds", "")),
                       None if margin is None else number_value("swap", "margin", margin, 0))
    swapped.name = f"swap:{argument}"
    return swapped

