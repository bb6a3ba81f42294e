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
(``"ansi"`` text, ``"human"`` the text printed after every step, ``"rgb_array"`` a
``uint8 (H, W, 3)`` image of the dice and scorecards)
(``players=`` is a deprecated alias of ``num_players``).

State (centralised critics): every scorecard is public, so ``state()`` is every seat's
observation in seat order followed by a one-hot of the seat to act, in ``state_space``
(``Box(0, 20, (P * OBS + P,), float32)``).

Observation: ``{"observation": Box(0, 20, (OBS,), float32), "action_mask": int8 (A,)}``.
The vector is ``zolik_env.dice.observe`` from the agent's own seat (its scorecard; the
``scores`` slice lists every total starting with its own). The mask is all zeros for
agents whose turn it is not and once the game is over.

Actions: ``Discrete(31 + NB)`` as in ``zolik_env.dice.actions`` (rerolls, then boxes).

Rewards: ``reward="points"`` (default for one player): the points each action earns.
``reward="outcome"`` (default for several): at the end +1 to the sole highest total,
-1 to every seat below the top, 0 to seats sharing the top. An illegal move ends the game
with -1 for the mover (``TerminateIllegalWrapper`` in ``env``).
``env.unwrapped.core_state`` is the core's batch-of-one ``State``.
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
from zolik_env.envs.aec_base import MaskedAECEnv, after_end, wrap
from zolik_env.envs.checks import action_id
from zolik_env.envs.kostky_common import game_state, observation_space, state_space
from zolik_env.envs.kostky_image import dice_image


def env(num_players: int = 2, table: str = "classic", joker: str = "none",
        yahtzee_bonus: bool = True, fixed_order: bool = False, reward: str | None = None,
        render_mode: str | None = None, *, players: int | None = None) -> AECEnv:
    """Pět kostek for 1..N agents, wrapped: TerminateIllegal(-1) -> AssertOutOfBounds ->
    OrderEnforcing around ``raw_env``.

    Args:
        num_players: seats, 1 or more (1 is solitaire).
        table: ``"classic"`` (one column) or ``"triple"`` (three, x1 x2 x3).
        joker: ``"none"``, ``"forced"`` or ``"free"`` (docs/rules-spec.md §5).
        yahtzee_bonus: +100 for each further Yahtzee.
        fixed_order: boxes of a column are filled top to bottom.
        reward: ``"points"`` (default for one player) or ``"outcome"`` (default for
            several: +1 / 0 / -1 by the final ranking).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"``
            (printed after every step) or ``"rgb_array"``.
        players: deprecated alias of ``num_players``.
    """
    if players is not None:  # warned here, so the warning names the caller's line
        warnings.warn("kostky_v0: 'players' is deprecated, pass 'num_players'",
                      DeprecationWarning, stacklevel=2)  # fmt: skip
        num_players = players
    return wrap(raw_env(num_players, table, joker, yahtzee_bonus, fixed_order, reward,
                        render_mode))


class raw_env(MaskedAECEnv, EzPickle):  # PettingZoo naming
    """Pět kostek without the standard wrappers: an illegal move raises ``ValueError``.
    Arguments as ``env``; ``state()`` is every seat's view (``state_space``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
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
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} unknown: choose from "
                             f"{self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._set_spaces(num_players, observation_space(self.rules), num_actions(self.rules))
        self.state_space = state_space(self.rules)
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.core_state = game.init(self.rules, [int(self._rng.integers(2**63 - 1))])
        self._reset_agents()
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(num_actions(self.rules), np.int8)
        if seat == int(self.core_state.current[0]):
            mask = game.legal_action_mask(self.rules, self.core_state)[0].astype(np.int8)
        return {"observation": observe(self.rules, self.core_state, seat)[0], "action_mask": mask}

    def state(self) -> np.ndarray:
        """float32 (``state_space``): the whole game, every scorecard being public."""
        return game_state(self.rules, self.core_state)

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError(after_end(action))
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = action_id(action, num_actions(self.rules), agent)
        self.core_state, out = game.step(self.rules, self.core_state, np.array([a]),
                                         validate=True)
        self._cumulative_rewards[agent] = 0.0
        if self.reward_mode == "points":
            self.rewards = {a: float(r) for a, r in zip(self.agents, out.rewards[0], strict=True)}
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        if out.terminated[0]:
            if self.reward_mode == "outcome":
                final = totals(self.rules, self.core_state)[0]
                self.rewards = dict(zip(self.agents, _outcome(final), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[int(self.core_state.current[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            return dice_image(self.rules, self.core_state)
        text = render_text(self.rules, self.core_state)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        return None


def _outcome(scores: np.ndarray) -> list[float]:
    """+1 to a sole top scorer, 0 to seats sharing the top, -1 below the top."""
    top = scores.max()
    sole = (scores == top).sum() == 1
    return [(1.0 if sole else 0.0) if s == top else -1.0 for s in scores]
