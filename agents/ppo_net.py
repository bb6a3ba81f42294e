"""The PPO network: sb3-contrib's maskable actor-critic with a lean masked softmax.

Žolík has 2,658 actions, of which a few dozen are legal at any moment. sb3-contrib's
``MaskableCategorical`` writes -1e8 into every illegal logit, builds a validated torch
``Categorical`` and exponentiates the (B, 2658) table up to five times per minibatch;
``exp`` of -1e8 takes the slow path of the vector math library, so in one profile of a
1,024-decision minibatch those passes took half of the update's time, more than the
matrix products of the network itself.

``LeanMaskablePolicy`` computes the same quantities from one ``log_softmax`` of the
logits with -inf on illegal moves: the log-probability of the taken move, the entropy
over the legal moves and, while collecting, a sample (``torch.multinomial``) or the
argmax. Values, losses and the saved format are those of ``MaskableActorCriticPolicy``,
whose other methods (``get_distribution``, ``predict``) it keeps. Every state the
trainer sees has a legal move, so no row is all -inf.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy


def masked_log_softmax(logits: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """Log-probabilities over the legal moves; -inf on the others."""
    if legal is None:
        return torch.log_softmax(logits, 1)
    return torch.log_softmax(logits.masked_fill(~legal, -torch.inf), 1)


def legal_entropy(log_probs: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """(B,) entropy of the distribution whose log-probabilities (-inf if illegal) are given."""
    finite = log_probs if legal is None else log_probs.masked_fill(~legal, 0.0)
    return -(log_probs.exp() * finite).sum(1)


class LeanMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose rollout and update passes use
    ``masked_log_softmax`` (see the module docstring)."""

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
            return latent_pi, latent_vf
        pi_features, vf_features = features
        return (self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features))

    def _log_probs(self, latent_pi: torch.Tensor,
                   action_masks: Any) -> tuple[torch.Tensor, torch.Tensor | None]:
        logits = self.action_net(latent_pi)
        if action_masks is None:
            return masked_log_softmax(logits, None), None
        legal = torch.as_tensor(np.asarray(action_masks) if not torch.is_tensor(action_masks)
                                else action_masks, device=logits.device).bool()
        legal = legal.reshape(logits.shape)
        return masked_log_softmax(logits, legal), legal

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        log_probs, _ = self._log_probs(latent_pi, action_masks)
        if deterministic:
            actions = log_probs.argmax(1)
        else:
            actions = torch.multinomial(log_probs.exp(), 1).squeeze(1)
        log_prob = log_probs.gather(1, actions[:, None]).squeeze(1)
        return actions, self.value_net(latent_vf), log_prob

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None,
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        latent_pi, latent_vf = self._latents(obs)
        log_probs, legal = self._log_probs(latent_pi, action_masks)
        log_prob = log_probs.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        return self.value_net(latent_vf), log_prob, legal_entropy(log_probs, legal)
