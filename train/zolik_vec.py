"""Batched Stable-Baselines3 ``VecEnv`` of Žolík: the SB3 face of the fast path.

A thin adapter over ``zolik_env.envs.zolik_vector.ZolikVectorEnv`` (``num_envs`` deals in
one core ``State``, learner against ``opponents`` or an ``OpponentHook``, reward shaping,
the privileged critic view, the duplicate reference: see that module) with the agent
features appended by ``agents.features.vector_features.FeatureObservations``. The
vector env resets ended deals in the same step (``AutoresetMode.SAME_STEP``), as SB3
does: the returned observation is the new deal's, and this adapter turns the vector
env's ``final_obs``/``final_info`` into SB3's list of per-env dicts, for the rows whose
deal ended: ``terminal_observation``, ``seat``, ``deal_reward``, ``reference_reward``,
``opened``, ``deal_scores``, ``winner``, ``TimeLimit.truncated`` and the hook's
``deal_info`` entries.

``action_masks()`` is ``bool (num_envs, 2658)`` for sb3-contrib's ``MaskablePPO``;
observations are the learner's int16 view, then the ``features``, then with ``critic``
the critic view (only ``agents.learned.ppo_net.SplitMlpExtractor``'s value MLP reads
it); rewards are float32. ``seed(s)`` before ``reset()`` restarts the seed sequence;
``get_state``/``set_state`` copy everything an exact resume needs
(``train.resume_state``). An illegal learner action raises ``ValueError`` naming the env
and the move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from agents.features.hand_features import check_features
from agents.features.vector_features import FeatureObservations
from train.vec_base import BatchedVecEnv
from zolik_env.envs.zolik_common import make_rules
from zolik_env.envs.zolik_vector import OpponentHook, SeatOpponents, ZolikVectorEnv
from zolik_env.rummy import options
from zolik_env.rummy.state import State

__all__ = ["OpponentHook", "SeatOpponents", "ZolikVecEnv"]

# the vector env's final_info entries, in the order (and as the types) of SB3's infos
_DEAL_INFO = (("seat", int), ("deal_reward", float), ("reference_reward", float),
              ("opened", bool), ("deal_scores", np.ndarray.tolist), ("winner", int))


class ZolikVecEnv(BatchedVecEnv):
    """``num_envs`` learner-vs-opponents deals stepped together; see the module docstring."""

    def __init__(self, num_envs: int, rules: str | options.RuleSet = "cz",
                 num_players: int | None = None, opponents: Any = None,
                 rule_options: dict[str, Any] | None = None, reward: str = "score",
                 seed: int = 0, hook: OpponentHook | None = None,
                 seed_limit: int | None = None, shaping: float = 0.0,
                 gamma: float = 1.0, features: str = "", critic: bool = False,
                 reference: Any = None) -> None:
        """``features`` (``agents.features.hand_features``) are appended to the learner's
        observations; the other arguments are ``ZolikVectorEnv``'s."""
        self.rules = make_rules(rules, num_players, rule_options)
        self.features = check_features(features)
        self.render_mode = None
        self.vector = ZolikVectorEnv(num_envs, self.rules, opponents=opponents, reward=reward,
                                     seed=seed, hook=hook, seed_limit=seed_limit,
                                     shaping=shaping, gamma=gamma, critic=critic,
                                     reference=reference)
        self.wrapped = FeatureObservations(self.vector, self.features)
        super().__init__(num_envs, self.wrapped.single_observation_space,
                         self.vector.single_action_space)
        self._actions = np.zeros(num_envs, np.int64)

    @property
    def state(self) -> State:
        """The deals in progress (the vector env's, stepped in place)."""
        return self.vector.state

    @property
    def learner(self) -> np.ndarray:
        return self.vector.learner

    @property
    def hook(self) -> OpponentHook:
        return self.vector.hook

    @property
    def num_decisions(self) -> int:
        """Learner and opponent moves played so far (for benchmarks)."""
        return self.vector.num_decisions

    @property
    def reference_seconds(self) -> float:
        """Seconds spent in the reference's moves (for the profile)."""
        return self.vector.reference_seconds

    @property
    def critic(self) -> bool:
        return self.vector.critic

    @property
    def reference(self) -> Any:
        return self.vector.reference

    def reset(self) -> np.ndarray:
        """New deals in every env; a ``seed(s)`` call before restarts the seed sequence."""
        seed = self._seeds[0]
        obs, _ = self.wrapped.reset(seed=seed)
        if seed is not None:
            self._reset_seeds()
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.wrapped.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in info:
            final = info["final_info"]
            extra = [key for key in final if not key.startswith("_")
                     and key not in dict(_DEAL_INFO)]
            for i in np.flatnonzero(info["_final_obs"]):
                infos[i] = {"terminal_observation": info["final_obs"][i],
                            **{key: make(final[key][i]) for key, make in _DEAL_INFO},
                            "TimeLimit.truncated": bool(truncated[i]),
                            **{key: final[key][i] for key in extra if final[f"_{key}"][i]}}
        return obs, rewards.astype(np.float32), terminated | truncated, infos

    def get_state(self) -> dict[str, Any]:
        """The vector env's ``get_state`` (for an exact resume, ``train.resume_state``)."""
        return self.vector.get_state()

    def set_state(self, saved: dict[str, Any]) -> None:
        self.vector.set_state(saved)

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 2658): each learner's legal moves."""
        return self.vector.action_masks()
