"""What every batched SB3 ``VecEnv`` of the kit shares: the attribute and method plumbing
of one in-process env whose rows are games on the core's batch axis."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from zolik_env.envs.checks import action_ids


class BatchedVecEnv(VecEnv):
    """A ``VecEnv`` that is one object: attributes are shared by all rows, and
    ``env_method("action_masks")`` returns each row's mask. Actions must be integer ids in
    range (``zolik_env.envs.checks.action_ids``): floats are refused, not truncated."""

    def __init__(self, num_envs: int, observation_space: Any, action_space: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        super().__init__(num_envs, observation_space, action_space)

    def step_async(self, actions: Any) -> None:
        self._actions = action_ids(actions, self.num_envs, int(self.action_space.n))

    def action_masks(self) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        return None

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        return [getattr(self, method_name)(*method_args, **method_kwargs) for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def _indices(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)
