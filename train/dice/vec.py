"""Batched Stable-Baselines3 ``VecEnv`` over the Pět kostek core's batch axis (solitaire).

All ``num_envs`` games live in one batched ``State``; a step is one call of the core.
Finished games restart at once (SB3 auto-reset): the returned observation is the new
game's, the last one is in ``infos[i]["terminal_observation"]``. ``action_masks()``
returns ``(num_envs, A) bool`` for sb3-contrib ``MaskablePPO``. Rewards are the points
gained by the step times ``reward_scale``; the game of env ``i`` after ``k`` resets uses
a seed derived from ``(seed, i, k)``, so runs are reproducible at any batch size.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from train.vec_base import BatchedVecEnv
from zolik_env.dice import DiceRules, game, num_actions, observe
from zolik_env.dice.state import State, where_rows
from zolik_env.envs.kostky_common import observation_space
from zolik_env.rng import splitmix64


class KostkyVecEnv(BatchedVecEnv):
    """``num_envs`` solitaire games stepped together; see the module docstring."""

    def __init__(
        self,
        num_envs: int,
        rules: DiceRules | None = None,
        seed: int = 0,
        reward_scale: float = 1.0,
        validate: bool = True,
    ) -> None:
        self.rules = rules or DiceRules()
        if self.rules.num_players != 1:
            raise ValueError("KostkyVecEnv is solitaire; use kostky_v0 for several players")
        space = gymnasium.spaces.Discrete(num_actions(self.rules))
        self.render_mode = None
        super().__init__(num_envs, observation_space(self.rules), space)
        self.reward_scale = reward_scale
        self.validate = validate
        self._actions = np.zeros(num_envs, np.int64)
        self._ctx: tuple[State, game.TurnContext] | None = None
        self._start(seed)

    def _game_seeds(self, rows: np.ndarray) -> np.ndarray:
        base = np.uint64(self._seed) * np.uint64(0x100000001B3) + rows.astype(np.uint64)
        return splitmix64(base ^ splitmix64(self._episodes[rows])) >> np.uint64(1)

    def _start(self, seed: int) -> None:
        self._seed = int(seed) % 2**63
        self._episodes = np.zeros(self.num_envs, np.uint64)
        self.state = game.init(self.rules, self._game_seeds(np.arange(self.num_envs)))

    def reset(self) -> np.ndarray:
        """New games in every env; a ``seed(s)`` call before restarts the seed sequence."""
        if self._seeds[0] is not None:
            self._start(self._seeds[0])
            self._reset_seeds()
        else:
            self._episodes += np.uint64(1)
            self.state = game.init(self.rules, self._game_seeds(np.arange(self.num_envs)))
        return observe(self.rules, self.state, 0)

    def step_wait(self) -> VecEnvStepReturn:
        ctx = self._ctx[1] if self._ctx is not None and self._ctx[0] is self.state else None
        self.state, out = game.step(self.rules, self.state, self._actions, self.validate, ctx)
        rewards = out.rewards[:, 0].astype(np.float32) * self.reward_scale
        done = out.terminated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            last = observe(self.rules, self.state, 0)
            scores = game.totals(self.rules, self.state)[:, 0]
            for i in np.flatnonzero(done):
                infos[i] = {"terminal_observation": last[i], "score": int(scores[i])}
            self._episodes[done] += np.uint64(1)
            fresh = game.init(self.rules, self._game_seeds(np.arange(self.num_envs)))
            self.state = where_rows(done, fresh, self.state)
        return observe(self.rules, self.state, 0), rewards, done.copy(), infos

    def get_state(self) -> dict[str, Any]:
        """The games in progress and their seed counters (an exact resume,
        ``train.resume_state``); ``set_state`` puts them back."""
        return {"seed": self._seed, "episodes": self._episodes.copy(), "state": self.state}

    def set_state(self, saved: dict[str, Any]) -> None:
        self._seed, self._episodes = saved["seed"], saved["episodes"].copy()
        self.state, self._ctx = saved["state"], None

    def action_masks(self) -> np.ndarray:
        """Legal actions ``(num_envs, A) bool``."""
        ctx = game.turn_context(self.rules, self.state)
        self._ctx = (self.state, ctx)  # reused by the next step on the same state
        return game.legal_action_mask(self.rules, self.state, ctx)
