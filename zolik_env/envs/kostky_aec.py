"""Pět kostek for 1..N players as a PettingZoo AEC environment (``kostky_v0``).

PettingZoo
----------
    from zolik_env import kostky_v0
    env = kostky_v0.env(num_players=2, joker="forced")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)

Agents ``player_0 .. player_{N-1}`` take whole turns in seat order: each turn is a run of
rerolls ending with filling one box (docs/rules-spec.md §5). Options: ``num_players``,
``table``, ``joker``, ``yahtzee_bonus``, ``fixed_order``, ``reward`` and ``render_mode``
(``players=`` is a deprecated alias of ``num_players``).

Observation: ``{"observation": Box(0, 20, (OBS,), float32), "action_mask": int8 (A,)}``.
The vector is ``zolik_env.dice.observe`` from the agent's own seat (its scorecard; the
``scores`` slice lists every total starting with its own). The mask is all zeros for
agents whose turn it is not and once the game is over.

Actions: ``Discrete(31 + NB)`` as in ``zolik_env.dice.actions`` (rerolls, then boxes).

Rewards: ``reward="points"`` (default for one player): the points each action earns.
``reward="outcome"`` (default for several): at the end +1 to the sole highest total,
-1 to every seat below the top, 0 to seats sharing the top. An illegal move ends the game
with -1 for the mover (``TerminateIllegalWrapper`` in ``env``).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from zolik_env.dice import DiceRules, game, num_actions, observe, totals
from zolik_env.dice.render import render_text
from zolik_env.envs.aec_base import MaskedAECEnv, wrap
from zolik_env.envs.kostky_common import observation_space


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped: TerminateIllegal(-1) -> AssertOutOfBounds -> OrderEnforcing."""
    return wrap(raw_env(**kwargs))


class raw_env(MaskedAECEnv, EzPickle):  # PettingZoo naming
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "kostky_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 2,
        table: str = "classic",
        joker: str = "none",
        yahtzee_bonus: bool = True,
        fixed_order: bool = False,
        reward: str | None = None,
        render_mode: str | None = None,
        *,
        players: int | None = None,
    ) -> None:
        if players is not None:  # the name before the cores shared one convention
            warnings.warn("kostky_v0: 'players' is deprecated, pass 'num_players'",
                          DeprecationWarning, stacklevel=2)  # fmt: skip
            num_players = players
        EzPickle.__init__(self, num_players, table, joker, yahtzee_bonus, fixed_order, reward,
                          render_mode)  # fmt: skip
        super().__init__()
        self.rules = DiceRules(table=table, joker=joker,  # type: ignore[arg-type]
                               num_players=num_players, yahtzee_bonus=yahtzee_bonus,
                               fixed_order=fixed_order)  # fmt: skip
        self.reward_mode = reward or ("points" if num_players == 1 else "outcome")
        if self.reward_mode not in ("points", "outcome"):
            raise ValueError(f"reward must be 'points' or 'outcome', got {reward!r}")
        self.render_mode = render_mode
        self._set_spaces(num_players, observation_space(self.rules), num_actions(self.rules))
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = game.init(self.rules, [int(self._rng.integers(2**63 - 1))])
        self._reset_agents()
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(num_actions(self.rules), np.int8)
        if seat == int(self.state.current[0]):
            mask = game.legal_action_mask(self.rules, self.state)[0].astype(np.int8)
        return {"observation": observe(self.rules, self.state, seat)[0], "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state, out = game.step(self.rules, self.state, np.array([action]), validate=True)
        self._cumulative_rewards[agent] = 0.0
        if self.reward_mode == "points":
            self.rewards = {a: float(r) for a, r in zip(self.agents, out.rewards[0], strict=True)}
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        if out.terminated[0]:
            if self.reward_mode == "outcome":
                self.rewards = dict(zip(self.agents, _outcome(totals(self.rules, self.state)[0]),
                                        strict=True))  # fmt: skip
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[int(self.state.current[0])]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return render_text(self.rules, self.state)

    def close(self) -> None:
        return None


def _outcome(scores: np.ndarray) -> list[float]:
    """+1 to a sole top scorer, 0 to seats sharing the top, -1 below the top."""
    top = scores.max()
    sole = (scores == top).sum() == 1
    return [(1.0 if sole else 0.0) if s == top else -1.0 for s in scores]
