"""The hand features (``agents.features.hand_features``) appended to a Žolík vector env's
observations, as a Gymnasium vector wrapper.

    envs = FeatureObservations(gymnasium.make_vec("zolik/Zolik-v0", num_envs=64), "hand")

Each row becomes ``[observation, features, critic view]``: the features of ``name`` go
right after the env's observation and before the critic view when the env was made with
``critic=True`` (``training_space``, the layout the kit's networks read). The ended
deals' ``info["final_obs"]`` (``AutoresetMode.SAME_STEP``) get their features too, so
Gymnasium's own ``VectorObservationWrapper`` (next-step autoreset only) is not used.
Features are a function of the observation row alone, so wrapping changes no game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector.utils import batch_space

from agents.features.hand_features import augment, check_features, feature_size, training_space
from zolik_env.rummy.observe import obs_size


class FeatureObservations(gymnasium.vector.VectorWrapper):
    """``env``'s observations with the features of ``name`` appended (see the module
    docstring); ``action_masks()`` is the unwrapped env's."""

    def __init__(self, env: gymnasium.vector.VectorEnv, name: str) -> None:
        super().__init__(env)
        self.features = check_features(name)
        base = env.unwrapped
        self.rules = base.rules
        self._width = obs_size(self.rules)
        self.single_observation_space = training_space(self.rules, self.features,
                                                       bool(getattr(base, "critic", False)))
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def observations(self, obs: np.ndarray) -> np.ndarray:
        """int16 (B, W): each row of ``obs`` with its features inserted after the env's
        observation (before a critic view)."""
        if feature_size(self.features) == 0:
            return obs
        if obs.shape[1] == self._width:
            return augment(obs, self.rules, self.features)
        seen = np.ascontiguousarray(obs[:, :self._width])
        return np.concatenate([augment(seen, self.rules, self.features),
                               obs[:, self._width:]], axis=1)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observations(obs), info

    def step(self, actions: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        if "final_obs" in info and feature_size(self.features):
            rows = np.flatnonzero(info["_final_obs"])
            last = self.observations(np.stack(info["final_obs"][rows]))
            final = np.full(self.num_envs, None, object)
            for j, i in enumerate(rows):
                final[i] = last[j]
            info = info | {"final_obs": final}
        return self.observations(obs), rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        masks: np.ndarray = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        return masks
