"""Masked log-softmax and entropy over the legal moves, for the lean PPO policies.

sb3-contrib's ``MaskableCategorical`` writes -1e8 into illegal logits and builds a
validated ``Categorical``; one ``log_softmax`` with -inf on illegal moves gives the same
log-probabilities and entropy for a fraction of the cost (``agents.ppo_net``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


def as_legal(action_masks: Any, logits: torch.Tensor) -> torch.Tensor:
    """SB3's action masks (a numpy array or a tensor) as a bool tensor shaped like
    ``logits``, on its device."""
    if not torch.is_tensor(action_masks):
        action_masks = np.asarray(action_masks)
    return torch.as_tensor(action_masks, device=logits.device).bool().reshape(logits.shape)


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
