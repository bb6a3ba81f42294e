"""What the kit's PettingZoo AEC envs share: the standard wrappers, one ``Dict`` space of
observation and action mask per agent, and the per-agent bookkeeping of a reset."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


def wrap(aec: AECEnv) -> AECEnv:
    """TerminateIllegal(-1) -> AssertOutOfBounds -> OrderEnforcing around ``aec``: PettingZoo's
    standard wrappers, each reading the env's public state directly (``DirectReads``); the
    outer one refuses a step after the game ended (``RefuseStepAfterEnd``)."""
    aec = DirectTerminateIllegal(aec, illegal_reward=-1)
    aec = DirectAssertOutOfBounds(aec)
    return RefuseStepAfterEnd(aec)


def _from_unwrapped(name: str) -> Any:
    """A read-only property: attribute ``name`` of the unwrapped env."""
    return property(lambda self: getattr(self.base_env, name))


class DirectReads:
    """For a PettingZoo wrapper: the attributes its methods read every step come from the
    unwrapped env at once rather than through each wrapper's ``__getattr__`` in turn (three
    wrappers made it a dozen Python calls per read). The same values: none of the standard
    wrappers keeps its own copy of them."""

    env: AECEnv

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]
        self.base_env = env.unwrapped  # (``unwrapped`` itself walks down every wrapper)

    agent_selection = _from_unwrapped("agent_selection")
    agents = _from_unwrapped("agents")
    terminations = _from_unwrapped("terminations")
    truncations = _from_unwrapped("truncations")
    infos = _from_unwrapped("infos")
    rewards = _from_unwrapped("rewards")


class DirectTerminateIllegal(DirectReads, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper`` with ``DirectReads``."""


class DirectAssertOutOfBounds(DirectReads, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with ``DirectReads``; the action space
    is asked of the unwrapped env."""

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        space: gymnasium.spaces.Space[Any] = self.base_env.action_space(agent)
        return space

    def step(self, action: Any) -> None:
        space = self.action_space(self.agent_selection)
        if (type(action) is int and isinstance(space, gymnasium.spaces.Discrete)
                and 0 <= action - int(space.start) < int(space.n)):
            wrappers.BaseWrapper.step(self, action)  # in the space: the assertion holds
        else:
            super().step(action)


class DirectLastOrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` whose ``last()`` reads the rewards, flags
    and infos from the unwrapped env at once instead of through every wrapper's
    ``__getattr__`` (the wrappers below keep none of their own): the same answers, a
    fifth faster per decision. The observation still goes through every wrapper."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._base = env.unwrapped

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # the wrapper's own error: "... cannot be accessed before reset"
            return super().last(observe)  # type: ignore[no-any-return]
        base = self._base
        agent = base.agent_selection
        observation = self.observe(agent) if observe else None
        return (observation, base._cumulative_rewards[agent], base.terminations[agent],
                base.truncations[agent], base.infos[agent])


class RefuseStepAfterEnd(DirectLastOrderEnforcing):
    """The order-enforcing wrapper, except that a step after the game ended (every agent
    done and removed) raises ``ValueError`` naming the action, as the raw env does,
    instead of PettingZoo's warning: a move there is a caller's bug, never ignored."""

    def step(self, action: Any) -> None:
        if self._has_reset and not self._base.agents:
            raise ValueError(after_end(action))
        super().step(action)


def after_end(action: Any) -> str:
    return (f"step({str(action)[:40]}) after the game ended: every agent is done; call "
            f"reset() first")


class MaskedAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no types: AECEnv is Any
    """An AEC env whose agents ``player_0..`` each see ``{"observation", "action_mask"}``."""

    def _set_spaces(self, players: int, observation: gymnasium.spaces.Space[Any],
                    num_actions: int) -> None:
        self.possible_agents = [f"player_{p}" for p in range(players)]
        space = gymnasium.spaces.Dict({
            "observation": observation,
            "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), np.int8)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces: dict[str, gymnasium.spaces.Space[Any]] = {
            a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def _reset_agents(self) -> None:
        """Every agent back in play, with no rewards, ends or infos."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
