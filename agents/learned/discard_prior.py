"""The discard prior: a learned score of every card kind for the move that ends a turn.

Four decisions in ten are discards, and they are where a network cloned from the planner
departs from it most: the planner throws the card with the lowest score of

    keep value + danger + 40 x (held for the opening) - penalty weight x hand penalty

(``agents.planner.choice_kernel``), an argmin over the hand of a weighted sum of per-card terms.
``agents.features.card_features`` gives the network those terms for every kind, but an MLP over
2,658 independent logits has to learn that the same weights apply to each of the 52
discard moves. ``DiscardPrior`` states that structure: the logit of ``discard k`` gets

    w_keep keep[k] + w_danger danger[k] + w_fits fits[k] + w_held held[k]
    + (w_pen + w_pen_opened opened + w_pen_danger danger_near) penalty[k]

and ``discard joker`` gets ``w_joker``; ``held[k]`` counts the cards of kind ``k`` in
the melds an unopened hand holds for its opening, ``opened`` is whether the seat has
opened, ``danger_near`` whether an opened opponent holds at most ``near_out`` cards
(4; the planner's "in danger"). The seven weights are learned with the network, by the cloning
and then by PPO, and start at the planner's coefficients divided by ``TEMPERATURE``, so
the untrained network already ranks discards as the planner does and the learner can
move each coefficient on its own. The network's own logits are added on top. A warm start
from a re-weighted planner (``planner:danger=3``) starts the prior at that teacher's
coefficients and ``near_out``: the cloning barely moves them (a clone of ``danger=3``
kept about 1.2 times the default danger weight), so a prior started at the defaults
would hold the clone to the default planner's discards.

Everything is read from the observation and its features (``obs_features:
hand+discard``), so the prior sees nothing a seat does not see. The rule-dependent facts
(each kind's hand penalty, where the hand sizes and opened flags lie in the
observation, whether the pile is taken deep) are a ``spec`` made from the rules once and
saved with the network.

With ``"head"`` in its spec the prior also carries a discard head
(``agents.learned.discard_head``): a small network shared by the card kinds whose logit
joins the linear terms. A pool's joint pass gives each row its own network's
coefficients but would give it the first network's head, so networks with a head play
alone (``agents.learned.ppo_joint.joint_key``).
"""

from __future__ import annotations

from typing import Any

import torch

from agents import obs_view as ov
from agents.features.card_features import DANGER, FITS, HELD, KEEP, SCALE, STORE, card_width
from agents.features.hand_features import HAND_FEATURES
from agents.learned.discard_head import DiscardHead
from agents.learned.masked_softmax import bonus_at, bonus_table
from agents.planner.planner_weights import DEFAULT_WEIGHTS, PlannerWeights
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet

TERMS = ("keep", "danger", "fits", "held", "penalty", "penalty_opened", "penalty_danger",
         "joker")
TEMPERATURE = 2.0  # planner points per unit of logit at the start
PENALTY_UNIT = 10.0  # the prior reads hand penalties / 10
JOKER_START = -20.0  # a joker is thrown only when nothing else may go
SIZE_SCALE = 20.0  # the network reads hand sizes / 20 (``agents.learned.ppo.obs_scale``)


def discard_prior_spec(rules: RuleSet,
                       weights: PlannerWeights = DEFAULT_WEIGHTS) -> dict[str, Any]:
    """What the prior needs to know of ``rules``, as plain values saved with a network;
    ``weights``: the planner whose discards it starts from (a warm start's teacher)."""
    starts = {name: start for name, start, _, _ in ov.slices(rules)}
    spec = {"penalty": [hand_card_value(k, rules) / PENALTY_UNIT for k in range(NUM_NATURALS)],
            "players": rules.num_players, "hand_sizes": starts["hand_sizes"],
            "opened": starts["opened"], "deep": rules.discard_pickup == "deep"}
    if weights != DEFAULT_WEIGHTS:  # specs saved before re-weighted teachers lack these
        spec["start"] = planner_weights(spec["deep"], weights)
        spec["near_out"] = weights.near_out
    return spec


def planner_weights(deep: bool, weights: PlannerWeights = DEFAULT_WEIGHTS) -> list[float]:
    """The planner's coefficients in the prior's units (``TERMS`` order), / ``TEMPERATURE``:
    a lower planner score is a higher logit. The network reads keep and danger as
    ``STORE * SCALE`` times their value, penalties / ``PENALTY_UNIT``."""
    unit = 1.0 / (STORE * SCALE) / TEMPERATURE
    w = weights
    base, opened = ((w.penalty + w.penalty_opened, 0.0) if deep
                    else (w.penalty, w.penalty_opened))
    per_point = PENALTY_UNIT / TEMPERATURE
    return [-w.keep * unit, -w.danger * unit, 0.0, -w.held / TEMPERATURE, base * per_point,
            opened * per_point, w.penalty_danger * per_point, JOKER_START]


class DiscardPrior(torch.nn.Module):
    """The discard prior's logit bonus (see the module docstring) from the scaled actor
    features: the observation, then the card features, then the hand features."""

    def __init__(self, spec: dict[str, Any], scale: float = 1.0) -> None:
        super().__init__()
        self.players = int(spec["players"])
        self.sizes_at, self.opened_at = int(spec["hand_sizes"]), int(spec["opened"])
        self.near_out = int(spec.get("near_out", DEFAULT_WEIGHTS.near_out))
        self.register_buffer("penalty", torch.tensor(spec["penalty"], dtype=torch.float32))
        self.scale = float(scale)  # the coefficients are scale x weight (faster Adam steps)
        start = torch.tensor(spec.get("start") or planner_weights(bool(spec["deep"])))
        self.weight = torch.nn.Parameter(start / self.scale)
        source = torch.full((A.NUM_ACTIONS,), NUM_KINDS)  # value of each move; 53: none
        source[A.DISCARD_BASE:A.DISCARD_BASE + NUM_KINDS] = torch.arange(NUM_KINDS)
        self.register_buffer("source", source, persistent=False)
        self.head = DiscardHead(spec["head"], self.players) if spec.get("head") else None

    def add_head(self, head: dict[str, Any]) -> None:
        """Give the prior a new discard head of spec ``head`` (its last layer zero: the
        bonuses stay as they were until it is trained)."""
        self.head = DiscardHead(head, self.players).to(self.penalty.device)

    @property
    def coefficients(self) -> torch.Tensor:
        """(8,) the prior's coefficients, in ``TERMS`` order."""
        return self.weight * self.scale

    def near(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 1) 1.0 where an opened opponent holds at most ``near_out`` cards."""
        others = slice(1, self.players)
        sizes = features[:, self.sizes_at:self.sizes_at + self.players][:, others] * SIZE_SCALE
        others_opened = features[:, self.opened_at:self.opened_at + self.players][:, others]
        return ((sizes <= self.near_out + 0.5) & (others_opened > 0)).any(1, keepdim=True).float()

    def terms(self, features: torch.Tensor, near: torch.Tensor | None = None) -> torch.Tensor:
        """(B, 52, 7) the per-kind terms of the naturals' discards (``TERMS`` but the last);
        ``near``: ``self.near(features)`` where the caller has it."""
        cards = features[:, -(HAND_FEATURES + card_width(True)):-HAND_FEATURES]
        opened = features[:, self.opened_at:self.opened_at + 1]
        near = self.near(features) if near is None else near
        penalty = self.penalty.expand(features.shape[0], NUM_NATURALS)
        return torch.stack([cards[:, field][:, :NUM_NATURALS] for field in (KEEP, DANGER, FITS,
                                                                             HELD)]
                           + [penalty, penalty * opened, penalty * near], -1)

    def values(self, features: torch.Tensor,
               coefficients: torch.Tensor | None = None) -> torch.Tensor:
        """(B, 53) the bonus of discarding each kind (the joker's is a constant);
        ``coefficients`` (B, 8), one set per row, replace the prior's own."""
        near = self.near(features)
        terms = self.terms(features, near)
        if coefficients is None:
            coefficients = self.coefficients
            naturals = terms @ coefficients[:-1]
            joker = coefficients[-1].expand(len(features), 1)
        else:
            naturals = torch.einsum("bkt,bt->bk", terms, coefficients[:, :-1])
            joker = coefficients[:, -1:]
        if self.head is not None:
            naturals = naturals + self.head(features, terms, near)
        return torch.cat([naturals, joker], 1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(B, NUM_ACTIONS) bonus: zero but on the discards."""
        return bonus_table(self.values(features), self.source)

    def at(self, features: torch.Tensor, rows: torch.Tensor, moves: torch.Tensor,
           coefficients: torch.Tensor | None = None) -> torch.Tensor:
        """(N,) the bonus of move ``moves[i]`` in row ``rows[i]`` (``coefficients``: as
        for ``values``)."""
        return bonus_at(self.values(features, coefficients), self.source, rows, moves)


assert JOKER == NUM_NATURALS and len(TERMS) == 8
