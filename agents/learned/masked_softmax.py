"""Masked log-softmax and entropy over the legal moves, for the lean PPO policies.

sb3-contrib's ``MaskableCategorical`` writes -1e8 into illegal logits and builds a
validated ``Categorical``; one ``log_softmax`` with -inf on illegal moves gives the same
log-probabilities and entropy for a fraction of the cost (``agents.learned.ppo_net``).
``LegalMoves`` goes further: it lists the legal moves, so that logits, priors
(``bonus_at``) and the softmax are computed for those alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


def as_legal(action_masks: Any, logits: torch.Tensor) -> torch.Tensor:
    """SB3's action masks (a numpy array or a tensor) as a bool tensor shaped like
    ``logits``, on its device."""
    return as_mask(action_masks, logits.shape[0], logits.device).reshape(logits.shape)


def as_mask(action_masks: Any, rows: int, device: Any = None) -> torch.Tensor:
    """SB3's action masks (a numpy array or a tensor, possibly flat) as a (rows, A) bool
    tensor."""
    if not torch.is_tensor(action_masks):
        action_masks = np.asarray(action_masks)
    return torch.as_tensor(action_masks, device=device).bool().reshape(rows, -1)


def masked_log_softmax(logits: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """Log-probabilities over the legal moves; -inf on the others."""
    if legal is None:
        return torch.log_softmax(logits, 1)
    return torch.log_softmax(logits.masked_fill(~legal, -torch.inf), 1)


def legal_entropy(log_probs: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """(B,) entropy of the distribution whose log-probabilities (-inf if illegal) are given."""
    finite = log_probs if legal is None else log_probs.masked_fill(~legal, 0.0)
    return -(log_probs.exp() * finite).sum(1)


def sample_moves(log_probs: torch.Tensor) -> torch.Tensor:
    """int64 (B,): one move per row drawn from ``exp(log_probs)`` (-inf on illegal moves)
    by the inverse CDF with one uniform per row from torch's generator. On a CPU,
    ``torch.multinomial`` over thousands of moves took half of a collecting step's
    forward pass; this is a cumulative sum and a binary search. A move of probability 0
    is never drawn: the first cumulative sum above the uniform belongs to a move that
    raised it; rounding at the top is caught by capping at the last legal move."""
    cdf = log_probs.exp().cumsum(1)
    uniform = torch.rand(len(cdf), 1, dtype=cdf.dtype, device=cdf.device) * cdf[:, -1:]
    picks = torch.searchsorted(cdf, uniform, right=True).squeeze(1)
    legal = torch.isfinite(log_probs)
    last = legal.shape[1] - 1 - legal.flip(1).int().argmax(1)
    return torch.minimum(picks, last)


def layer_at(layer: torch.nn.Linear, inputs: torch.Tensor, rows: torch.Tensor,
             outputs: torch.Tensor) -> torch.Tensor:
    """(N,) ``layer(inputs)[rows, outputs]`` without the (B, out) table."""
    # index_select: its backward is a row-wise add, three times faster than indexing's
    return ((layer.weight.index_select(0, outputs) * inputs.index_select(0, rows)).sum(1)
            + layer.bias.index_select(0, outputs))


def bonus_table(values: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    """(B, A) a prior's logit bonus of every move: ``values`` (B, V) at ``source`` (A,),
    zero where ``source`` is V (a move the prior leaves alone)."""
    return _with_zero(values)[:, source]


def bonus_at(values: torch.Tensor, source: torch.Tensor, rows: torch.Tensor,
             moves: torch.Tensor) -> torch.Tensor:
    """(N,) ``bonus_table(values, source)[rows, moves]``, without the table."""
    return _with_zero(values)[rows, source[moves]]


def _entries(legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows, cols) of a (B, A) bool mask's true entries in row-major order, as
    ``nonzero`` gives them, about 4x faster on sparse masks: eight entries are read as
    one int64 word, and only the nonzero words are looked into."""
    width = legal.shape[1]
    flat = legal.to(torch.bool).contiguous().reshape(-1)
    whole = flat.numel() // 8 * 8
    words = flat[:whole].view(torch.uint8).view(torch.int64)
    hot = words.nonzero().squeeze(1)
    inside = flat[:whole].view(-1, 8)[hot].nonzero()
    index = torch.cat([hot[inside[:, 0]] * 8 + inside[:, 1],
                       flat[whole:].nonzero().squeeze(1) + whole])
    return index // width, index % width


def _with_zero(values: torch.Tensor) -> torch.Tensor:
    return torch.cat([values, values.new_zeros(len(values), 1)], 1)


@dataclass(frozen=True)
class LegalMoves:
    """The legal moves of a batch as a list, for computing logits only where they count.

    A row has a few dozen legal moves among thousands; the network's last layer, its
    priors and the softmax need only those. Entry ``i`` is move ``cols[i]`` of row
    ``rows[i]``, the ``slots[i]``-th legal move of that row (in ascending move order), so
    a (B, ``width``) table holds each row's legal moves in its first ``count`` slots.
    """

    rows: torch.Tensor  # (N,) int64
    cols: torch.Tensor  # (N,) int64
    slots: torch.Tensor  # (N,) int64
    count: torch.Tensor  # (B,) int64
    width: int

    @classmethod
    def of(cls, legal: torch.Tensor) -> LegalMoves:
        """The legal moves of a (B, A) bool mask."""
        rows, cols = _entries(legal)
        count = torch.bincount(rows, minlength=len(legal))
        first = torch.cumsum(count, 0) - count
        slots = torch.arange(len(rows), device=legal.device) - first[rows]
        return cls(rows, cols, slots, count, int(count.max()) if len(count) else 0)

    @property
    def valid(self) -> torch.Tensor:
        """(B, width) bool: the slots that hold a legal move."""
        return torch.arange(self.width, device=self.count.device) < self.count[:, None]

    def table(self, values: torch.Tensor, fill: float) -> torch.Tensor:
        """(B, width): the (N,) ``values`` in their rows' slots, ``fill`` elsewhere."""
        out = values.new_full((len(self.count), self.width), fill)
        return out.index_put((self.rows, self.slots), values)

    def log_softmax(self, logits: torch.Tensor) -> torch.Tensor:
        """(B, width) log-probabilities of the (N,) legal moves' logits; -inf on empty slots."""
        return torch.log_softmax(self.table(logits, -torch.inf), 1)

    def spread(self, log_probs: torch.Tensor, num_actions: int) -> torch.Tensor:
        """float64 (B, ``num_actions``): the probabilities of the (B, width) ``log_probs``
        at their moves, zero on the others."""
        probs = torch.zeros(len(self.count), num_actions, dtype=torch.float64)
        probs[self.rows, self.cols] = log_probs[self.rows, self.slots].double().exp()
        return probs

    def moves(self) -> torch.Tensor:
        """(B, width) int64: the move in each slot (0 on empty slots)."""
        return self.table(self.cols, 0)

    def slot_of(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B,) slot of each row's move in ``actions`` (B,), and (B,) whether it is legal."""
        hit = self.cols == actions.long().reshape(-1)[self.rows]
        slot = torch.zeros_like(self.count)
        found = torch.zeros(len(self.count), dtype=torch.bool, device=self.count.device)
        slot[self.rows[hit]] = self.slots[hit]
        found[self.rows[hit]] = True
        return slot, found
