"""Žolík as an RLlib multi-agent env, with the opponent pool of the self-play recipe.

RLlib's multi-agent API is turn-based here as in PettingZoo: ``reset`` and ``step``
return an observation only for the agent to act, and at the end of a deal one for every
agent RLlib played in it, with the deal's reward. The env wraps ``zolik_v0`` (the AEC
env, the rules' one implementation) and changes two things for training:

- **Roles, not seats.** Each deal the learner sits at a seat drawn from the env's own
  generator; RLlib sees it as the agent ``learner``. Every other seat plays one opponent
  kind for the whole deal, drawn from the ``opponents`` mix: ``latest`` (the learner's
  module ``main`` itself, pure self-play), ``past`` (one of the frozen snapshot modules
  ``past_0 ..``, uniformly) or a baseline or agent spec (``random``, ``greedy``,
  ``planner``, ``pretrained:NAME``), which the env plays itself and RLlib never sees.
  The agent id says the kind and the relative seat (``latest_1``, ``past3_2``), so
  ``module_for`` maps ids to modules without knowing the deal.
- **Observations for a network.** ``{"observations": float32, "action_mask": float32}``:
  the int16 observation times ``agents.learned.ppo.obs_scale``, clipped to [-5, 5] (as the SB3
  recipe's network does), and the exact legal-action mask.

Seeding: the generator of deals and opponents is keyed by the run's seed, the env
runner's index, the seed RLlib gives each sub-env at its first reset (the run's seed plus
runner index plus sub-env index) and the iteration the session started from. So no two
sub-envs of a run share a stream (RLlib's own seeds alone repeat across runners:
runner 1's second env gets runner 2's first env's seed), and a resumed session deals new
deals rather than the run's first ones again.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.learned.ppo import CLIP, obs_scale
from agents.registry import make_agent
from zolik_env import zolik_v0
from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.seeds import TRAIN_SEED_LIMIT

LEARNER = "learner"
MAIN = "main"  # the module that learns; it also plays the ``latest`` opponents


def past_module(slot: int) -> str:
    """The id of the frozen snapshot module in ``slot``."""
    return f"past_{slot}"


def module_for(agent_id: str) -> str:
    """RLlib's agent-to-module mapping: ``learner`` and ``latest_S`` -> ``main``,
    ``pastK_S`` -> ``past_K``."""
    if agent_id == LEARNER or agent_id.startswith("latest_"):
        return MAIN
    if agent_id.startswith("past"):
        return past_module(int(agent_id[4:].partition("_")[0]))
    raise ValueError(f"no module plays agent {agent_id!r}")


def agent_ids(players: int, past_slots: int) -> list[str]:
    """Every agent id a deal can have: the learner and each kind at each relative seat."""
    ids = [LEARNER]
    for seat in range(1, players):
        ids.append(f"latest_{seat}")
        ids.extend(f"past{slot}_{seat}" for slot in range(past_slots))
    return ids


def mix_weights(opponents: dict[str, float], past_slots: int) -> tuple[list[str], np.ndarray]:
    """The opponent kinds and their probabilities (``past`` needs snapshot slots)."""
    kinds = [kind for kind, weight in opponents.items()
             if weight > 0 and (kind != "past" or past_slots > 0)]
    weights = np.array([opponents[kind] for kind in kinds], dtype=np.float64)
    return kinds, weights / weights.sum()


class ZolikMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """``env_config``: ``preset``, ``players``, ``rule_options``, ``reward``,
    ``opponents`` (kind -> weight), ``past_slots``, ``seed``, ``start_iteration``."""

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(env_config or {})
        self.aec = zolik_v0.raw_env(rules=config.get("preset", "cz"),
                                    num_players=config.get("players", 2),
                                    rule_options=config.get("rule_options") or {},
                                    reward=config.get("reward", "score"))
        rules = self.aec.rules
        self.players = rules.num_players
        self.past_slots = int(config.get("past_slots", 0))
        self.kinds, self.weights = mix_weights(config.get("opponents") or {"latest": 1.0},
                                               self.past_slots)
        self.baselines = {kind: make_agent(kind, rules) for kind in self.kinds
                          if kind not in ("latest", "past")}
        self.key = (int(config.get("seed", 0)), int(getattr(env_config, "worker_index", 0)),
                    int(config.get("start_iteration", 0)))
        self.rng = self._generator(0)
        self.scale = obs_scale(rules)
        self.possible_agents = agent_ids(self.players, self.past_slots)
        self.agents = []
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(-CLIP, CLIP, (len(self.scale),), np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents,
                                           gymnasium.spaces.Discrete(NUM_ACTIONS))
        self.seat_agent: dict[str, str] = {}  # AEC agent name -> RLlib agent id, or baseline

    def _generator(self, reset_seed: int) -> np.random.Generator:
        seed, runner, start = self.key
        return np.random.default_rng([seed, runner, reset_seed, start])

    def _draw_roles(self) -> None:
        """Seat the learner and draw each other seat's opponent kind for this deal."""
        names = self.aec.possible_agents
        learner_seat = int(self.rng.integers(self.players))
        self.seat_agent = {names[learner_seat]: LEARNER}
        for offset in range(1, self.players):
            kind = self.kinds[int(self.rng.choice(len(self.kinds), p=self.weights))]
            if kind == "latest":
                kind = f"latest_{offset}"
            elif kind == "past":
                kind = f"past{int(self.rng.integers(self.past_slots))}_{offset}"
            self.seat_agent[names[(learner_seat + offset) % self.players]] = kind
        self.agents = [a for a in self.seat_agent.values() if a in self.observation_spaces]

    def _obs(self, name: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(name)
        scaled = np.clip(raw["observation"].astype(np.float32) * self.scale, -CLIP, CLIP)
        return {"observations": scaled, "action_mask": raw["action_mask"].astype(np.float32)}

    def _play_baselines(self) -> None:
        """Let the env's own opponents move until an RLlib agent is to act or the deal ends."""
        while self.aec.agents:
            name = self.aec.agent_selection
            agent = self.seat_agent[name]
            if agent in self.observation_spaces:
                return
            raw = self.aec.observe(name)
            mask = raw["action_mask"].astype(bool)
            self.aec.step(int(self.baselines[agent].act(raw["observation"], mask, self.rng)))
            if self._over():
                return

    def _over(self) -> bool:
        return any(self.aec.terminations.values()) or any(self.aec.truncations.values())

    def _turn(self) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool]]:
        """The observation of the agent to act, or the end of the deal for all."""
        if not self._over():
            name = self.aec.agent_selection
            agent = self.seat_agent[name]  # RLlib wants a reward with every observation
            return {agent: self._obs(name)}, {agent: 0.0}, {"__all__": False}, \
                {"__all__": False}
        played = {name: agent for name, agent in self.seat_agent.items()
                  if agent in self.observation_spaces}
        obs = {agent: self._obs(name) for name, agent in played.items()}
        rewards = {agent: float(self.aec.rewards[name]) for name, agent in played.items()}
        truncated = any(self.aec.truncations.values())
        done = dict.fromkeys(played.values(), not truncated)
        cut = dict.fromkeys(played.values(), truncated)
        return obs, rewards, {**done, "__all__": not truncated}, {**cut, "__all__": truncated}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self.rng = self._generator(seed)
        self.aec.reset(seed=int(self.rng.integers(TRAIN_SEED_LIMIT)))
        self._draw_roles()
        self._play_baselines()
        obs, _, _, _ = self._turn()
        return obs, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                          dict[str, bool], dict[str, bool],
                                                          dict[str, Any]]:
        name = self.aec.agent_selection
        self.aec.step(int(action_dict[self.seat_agent[name]]))
        if not self._over():
            self._play_baselines()
        obs, rewards, terminated, truncated = self._turn()
        return obs, rewards, terminated, truncated, {}
