"""The discard head: one small network, shared by the 52 natural kinds, that scores the
discard of each kind from what the seat sees of that card.

The discard prior (``agents.learned.discard_prior``) ranks discards by a weighted sum of
the planner's per-card terms, and the actor adds 2,658 independent logits on top: the
discard of the seven of hearts and of the seven of spades share nothing but the latent.
Expert iteration showed what that costs. A search overrules about one discard in six,
and a distilled network plays only about one in eight of those corrections while it
changes one kept discard in seven: it cannot tell the discards the search corrects from
those it keeps, because nothing it has weighs a card's own situation (its partners in
hand, their live outs, what the others took) in more than a fixed linear way.

The head gives it that: for every natural kind ``k`` a vector of ``CARD_INPUTS`` numbers
(the prior's terms; the counts of ``k`` in hand, unseen, taken by the others, on the
table, in the discard pile; the same suit's neighbours one and two ranks away in hand and
unseen, the ace next to both the two and the king, and what the others took of the
nearest; the same rank's other suits; the plan's runs and sets; and ``ROW_INPUTS`` facts
of the position every card shares) goes through the same two-layer MLP to one logit
added to ``discard k``. Whatever the head learns of one card holds for every card in the
same situation, so a correction of one discard teaches all 52. On expert iteration's
labels it was worth +2.5 points per deal over the same distillation without it
(``docs/results/label-quality.md``).

Its last layer starts at zero, so a network given a head
(``agents.learned.build.add_discard_head``) plays exactly as before until it is trained.
Everything is read from the observation and its features (``obs_features:
hand+discard``): the head sees nothing a seat does not see. Its spec, ``{"width",
"at"}`` (hidden width and where the observation's slices start), is saved inside the
discard prior's spec as ``"head"``.
"""

from __future__ import annotations

from typing import Any

import torch

from agents import obs_view as ov
from agents.features.hand_features import HAND_FEATURES, PLAN_RUNS, PLAN_SETS, SCALARS
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.options import RuleSet

SLICES = ("unseen", "known_taken", "table_counts", "discard_counts", "stock_size",
          "hand_sizes", "opened")
PRIOR_TERMS = 7  # the discard prior's per-card terms (``DiscardPrior.terms``)
OWN_COUNTS = 5  # hand, unseen, taken by the others, table, discard pile
NEIGHBOURS = (-2, -1, 1, 2)  # ranks apart, same suit
ROW_INPUTS = 9  # see ``DiscardHead.row_inputs``
CARD_INPUTS = PRIOR_TERMS + OWN_COUNTS + 2 * len(NEIGHBOURS) + 1 + 3 + 3 + ROW_INPUTS


def head_spec(rules: RuleSet, width: int) -> dict[str, Any]:
    """The head's saved spec for ``rules``: its hidden ``width`` and where the slices it
    reads start in the observation."""
    if int(width) < 1:
        raise ValueError(f"discard head width {width!r}: give a positive number of units")
    starts = {name: start for name, start, _, _ in ov.slices(rules)}
    return {"width": int(width), "at": {name: int(starts[name]) for name in SLICES}}


def _neighbour_table() -> tuple[torch.Tensor, torch.Tensor]:
    """int64 (52, 4) the kinds ``NEIGHBOURS`` ranks away in the same suit (ranks wrap, so
    the ace sits next to the two and the king); (52, 3) the same rank's other suits."""
    kinds = torch.arange(NUM_NATURALS)
    suit, rank = kinds // NUM_RANKS, kinds % NUM_RANKS
    near = torch.stack([suit * NUM_RANKS + (rank + d) % NUM_RANKS for d in NEIGHBOURS], 1)
    others = torch.stack([((suit + s) % NUM_SUITS) * NUM_RANKS + rank
                          for s in range(1, NUM_SUITS)], 1)
    return near, others


class DiscardHead(torch.nn.Module):
    """Per-kind discard logits (see the module docstring)."""

    def __init__(self, spec: dict[str, Any], players: int) -> None:
        super().__init__()
        self.width, self.players = int(spec["width"]), int(players)
        self.at = {name: int(start) for name, start in spec["at"].items()}
        near, others = _neighbour_table()
        self.register_buffer("near", near, persistent=False)
        self.register_buffer("others", others, persistent=False)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(CARD_INPUTS, self.width), torch.nn.ReLU(),
            torch.nn.Linear(self.width, self.width), torch.nn.ReLU(),
            torch.nn.Linear(self.width, 1))
        torch.nn.init.zeros_(self.mlp[-1].weight)  # a new head changes no move
        torch.nn.init.zeros_(self.mlp[-1].bias)

    def _slice(self, features: torch.Tensor, name: str, size: int = NUM_KINDS) -> torch.Tensor:
        start = self.at[name]
        return features[:, start:start + size]

    def row_inputs(self, features: torch.Tensor, near: torch.Tensor) -> torch.Tensor:
        """(B, ROW_INPUTS) what every card of a row shares: the seat has opened, an opened
        opponent is near going out, some opponent has opened, the hand can open, the
        opening points still missing, the stock, the seat's hand size, the smallest
        other hand, the jokers in hand."""
        hand_features = features[:, -HAND_FEATURES:]
        sizes = self._slice(features, "hand_sizes", self.players)
        opened = self._slice(features, "opened", self.players)
        return torch.stack([
            opened[:, 0], near[:, 0],
            opened[:, 1:].amax(1), hand_features[:, SCALARS.index("can_open")],
            hand_features[:, SCALARS.index("need_points")],
            self._slice(features, "stock_size", 1)[:, 0], sizes[:, 0], sizes[:, 1:].amin(1),
            features[:, JOKER]], 1)  # the hand's jokers: the observation begins with the hand

    def forward(self, features: torch.Tensor, terms: torch.Tensor,
                near: torch.Tensor) -> torch.Tensor:
        """(B, 52) the logit bonus of discarding each natural kind; ``terms`` (B, 52, 7)
        are the discard prior's, ``near`` (B, 1) its flag of an opened opponent near
        going out."""
        return self.mlp(self.card_inputs(features, terms, near))[..., 0]

    def card_inputs(self, features: torch.Tensor, terms: torch.Tensor,
                    near: torch.Tensor) -> torch.Tensor:
        """(B, 52, CARD_INPUTS) the head's input for every natural kind."""
        hand = features[:, :NUM_NATURALS]
        unseen = self._slice(features, "unseen")[:, :NUM_NATURALS]
        taken = self._slice(features, "known_taken", self.players * NUM_KINDS)
        taken = taken.reshape(len(features), self.players, NUM_KINDS)[:, 1:, :NUM_NATURALS].sum(1)
        table = self._slice(features, "table_counts")[:, :NUM_NATURALS]
        pile = self._slice(features, "discard_counts")[:, :NUM_NATURALS]
        hand_features = features[:, -HAND_FEATURES:]
        runs = hand_features[:, PLAN_RUNS][:, :NUM_NATURALS]
        sets = hand_features[:, PLAN_SETS][:, :NUM_NATURALS]
        spare = (hand > runs + sets).float()
        per_card = [hand, unseen, taken, table, pile]
        per_card += [hand[:, self.near[:, i]] for i in range(len(NEIGHBOURS))]
        per_card += [unseen[:, self.near[:, i]] for i in range(len(NEIGHBOURS))]
        per_card += [taken[:, self.near[:, 1]] + taken[:, self.near[:, 2]]]
        per_card += [x[:, self.others].sum(-1) for x in (hand, unseen, taken)]
        per_card += [runs, sets, spare]
        cards = torch.stack(per_card, -1)
        shared = self.row_inputs(features, near)[:, None, :].expand(-1, NUM_NATURALS, -1)
        return torch.cat([terms, cards, shared], -1)


assert CARD_INPUTS == 36
