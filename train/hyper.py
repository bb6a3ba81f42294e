"""PPO's hyper-parameters: one model that every trainer's config extends.

``PPOHyperParams`` declares PPO's loss and network once, each field with its range and
its description. ``train.config.SelfPlayConfig`` (Žolík self-play, for both the SB3 and
the RLlib trainer) and ``train.dice.ppo.DicePPOConfig`` (Pět kostek) derive from it. A
trainer whose natural value differs gives the field a new default with the same
annotated type (``Fraction``, ``Positive``, ``Weight``), so the range stays declared here:

    class DicePPOConfig(PPOHyperParams):
        gamma: Fraction = 1.0
        \"\"\"The score is undiscounted; episodes last at most 39 decisions.\"\"\"

How much experience each update sees is named in each library's terms:
``SB3Rollout`` for the two sb3-contrib trainers (Žolík's ``train.ppo`` and the dice
trainer), RLlib's ``train_batch``/``minibatch``/``epochs`` in ``train.rllib.ppo``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from zolik_env.config_model import ConfigModel, IntTuple

Fraction = Annotated[float, Field(gt=0, le=1)]  # a discount or a GAE lambda
Positive = Annotated[float, Field(gt=0)]  # a step size, a clip, a norm
Weight = Annotated[float, Field(ge=0)]  # a loss term's weight
Count = Annotated[int, Field(gt=0)]  # envs, steps, a minibatch, epochs


class PPOHyperParams(ConfigModel):
    """PPO's loss, optimiser step and network, shared by every trainer's config."""

    learning_rate: Positive = 3.0e-4
    """Adam step size of PPO."""
    gamma: Fraction = 0.998
    """Discount per learner decision."""
    gae_lambda: Fraction = 0.95
    """GAE's bias-variance trade-off (1 = Monte Carlo returns)."""
    clip_range: Positive = 0.2
    """PPO's clip on the probability ratio."""
    ent_coef: Weight = 0.001
    """Weight of the entropy bonus."""
    vf_coef: Weight = 0.5
    """Weight of the value loss."""
    max_grad_norm: Positive = 0.5
    """Gradients are clipped to this norm."""
    net_arch: IntTuple = (256, 256)
    """Hidden layers of the separate policy and value MLPs."""


class SB3Rollout(PPOHyperParams):
    """The rollout and minibatches of sb3-contrib's MaskablePPO on a batched VecEnv."""

    num_envs: Count = 256
    """Games stepped together in the batched VecEnv."""
    n_steps: Count = 32
    """Steps per env per rollout (rollout = num_envs * n_steps decisions)."""
    batch_size: Count = 1024
    """Minibatch size of a PPO update (at most a rollout)."""
    n_epochs: Count = 3
    """Passes over each rollout per update."""

    @model_validator(mode="after")
    def _batch_fits_a_rollout(self) -> SB3Rollout:
        """A minibatch is drawn from one rollout, so it cannot be larger."""
        rollout = self.num_envs * self.n_steps
        if self.batch_size > rollout:
            raise ValueError(f"batch_size={self.batch_size} is larger than a rollout "
                             f"(num_envs x n_steps = {rollout})")
        return self


__all__ = ["Count", "Fraction", "PPOHyperParams", "Positive", "SB3Rollout", "Weight"]
