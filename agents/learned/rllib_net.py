"""The RLlib module of ``zolik train --backend rllib``: PPO's default torch module with the
legal-action mask applied to its logits.

The env's observation is ``{"observations", "action_mask"}``; the module's encoder, policy
and value heads see only ``observations`` (RLlib's default MLP, ``fcnet_hiddens``), and
every illegal action's logit is pushed to the float minimum, so sampling, the argmax, the
log-probabilities of PPO's loss and the entropy all range over legal moves only.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """PPO's default module over ``observations``, with masked logits."""

    def __init__(self, *, observation_space: gymnasium.spaces.Dict | None = None,
                 **kwargs: Any) -> None:
        if not isinstance(observation_space, gymnasium.spaces.Dict) or set(
                observation_space.spaces) != {"observations", "action_mask"}:
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with "
                             f"'observations' and 'action_mask', got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
        """(mask, the batch with the bare observations) without changing ``batch``."""
        obs = batch[Columns.OBS]
        return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}

    @staticmethod
    def _masked(outs: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        logits = outs[Columns.ACTION_DIST_INPUTS]
        outs[Columns.ACTION_DIST_INPUTS] = torch.where(
            mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
        return outs

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, bare = self._split(batch)
        return self._masked(super()._forward(bare, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, bare = self._split(batch)
        return self._masked(super()._forward_train(bare, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
