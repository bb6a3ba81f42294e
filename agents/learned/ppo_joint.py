"""Several PPO networks' move distributions in one pass, for a pool of snapshots.

A self-play pool holds up to ``pool_size`` snapshots of the learner, and in every pass of
the opponents' moves each snapshot plays a few rows. Called one by one, each snapshot pays
the whole fixed cost of a forward pass (some seventy small tensor operations: scaling,
the legal-move list, the priors' terms, the softmax) for a handful of rows; those calls
were the largest part of the opponents' time. Snapshots of one run differ only in their
weights, so ``joint_probabilities`` computes what depends on the observations once for
all rows and only the products with each network's weights per network. The result is
each network's own ``legal_probabilities`` on its rows, up to float rounding.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.learned.legacy import spec_of
from agents.learned.masked_softmax import LegalMoves, as_mask, layer_at
from agents.learned.ppo_net import LeanMaskablePolicy, eval_mode


def joint_key(net: Any) -> tuple[Any, ...] | None:
    """Networks with equal keys may share a pass: the same class, input scaling, layer
    shapes, activation and priors of their net spec (their weights may differ; the plan
    prior's third row is a weight, so networks with and without it share; a network with a
    discard head shares with none, as the head's weights are not per row). None: not a
    ``LeanMaskablePolicy``, which always plays alone."""
    if not isinstance(net, LeanMaskablePolicy):
        return None
    extractor = net.pi_features_extractor
    scale = hashlib.sha256(extractor.scale.numpy().tobytes()).hexdigest()
    shapes = tuple(tuple(p.shape) for p in net.mlp_extractor.policy_net.parameters())
    spec = spec_of(net)
    alone = id(net) if (spec.discard_prior or {}).get("head") else None  # its own head
    return (type(net), net.features_dim, spec.critic_extra, scale, shapes,
            net.activation_fn, type(net.mlp_extractor), spec.plan_prior,
            json.dumps(spec.discard_prior, sort_keys=True), alone)


@torch.no_grad()
def joint_probabilities(nets: Sequence[Any], obs: np.ndarray,
                        owner: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """float64 (B, NUM_ACTIONS): row ``i`` as ``nets[owner[i]].legal_probabilities``
    would give it, for networks of one ``joint_key``."""
    first = nets[0]
    x = torch.as_tensor(np.asarray(obs), dtype=torch.float32)
    whose = torch.as_tensor(np.asarray(owner, np.int64))
    features = first.extract_features(x, first.pi_features_extractor)
    latent = features.new_empty(len(x), first.mlp_extractor.latent_dim_pi)
    legal = LegalMoves.of(as_mask(action_masks, len(x)))
    logits = features.new_empty(len(legal.rows))
    entry_owner = whose[legal.rows]
    for k, net in enumerate(nets):
        eval_mode(net)
        mine = torch.nonzero(whose == k)[:, 0]
        latent[mine] = net.mlp_extractor.forward_actor(features[mine])
        entries = torch.nonzero(entry_owner == k)[:, 0]
        logits[entries] = layer_at(net.action_net, latent, legal.rows[entries],
                                   legal.cols[entries])
    logits = first.with_priors_at(logits, features, legal, nets, whose)
    return legal.spread(legal.log_softmax(logits), int(first.action_space.n)).numpy()
