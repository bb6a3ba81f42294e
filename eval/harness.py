"""Duplicate matches: every deal replayed with the agents rotated through the seats.

**Seat scheme.** With n agents at P seats (n <= P) the base assignment gives seat s to
agent ``s % n`` (two agents at four seats: A B A B). The assignments played are the
distinct ones among the P seat shifts of the base and its n relabellings (agent
``(s + r) % P % n + k`` mod n at seat s): n = P gives the P cyclic rotations (A B C,
B C A, C A B), two agents at four seats A B A B and B A B A, two at three A B A, B A A,
A A B, B A B, A B B, B B A. Every agent thus holds every hand (the cards of each seat)
in some rotation, and every agent holds the same number of seats over all rotations.
Every deal is dealt with ``deal_index`` 0, so seat 0 always starts (cz/sk: with 15
cards and a discard).

**Randomness.** Agents draw from their own generators: with ``rng_scope="deal"`` one per
(eval seed, deal seed, rotation, agent), and agents act row by row, so a deal plays the
same in any batch, chunk or process; with ``"chunk"`` one per (eval seed, first seed of
the batch, agent), and agents act on whole batches (faster for networks).

This module may import ``agents`` and ``zolik_env``; nothing here imports ``train``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import Policy
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State


def seat_rotations(num_agents: int, num_players: int) -> np.ndarray:
    """int64 (R, P): the agent index at each seat in each rotation (see the module doc)."""
    if not 1 <= num_agents <= num_players:
        raise ValueError(f"{num_agents} agents cannot share {num_players} seats")
    base = np.arange(num_players) % num_agents
    rotations: list[tuple[int, ...]] = []
    for k in range(num_agents):
        for r in range(num_players):
            shifted = tuple(int(a) for a in (np.roll(base, -r) + k) % num_agents)
            if shifted not in rotations:
                rotations.append(shifted)
    return np.array(rotations, np.int64)


@dataclass(frozen=True)
class MatchResult:
    """Outcomes of D duplicate deals, each played in R rotations at P seats."""

    agents: tuple[str, ...]  # agent names, indexed by the entries of ``rotations``
    rotations: np.ndarray  # int64 (R, P) agent index per seat
    seeds: np.ndarray  # int64 (D,) deal seeds
    scores: np.ndarray  # int32 (D, R, P) deal scores as the preset writes them
    rewards: np.ndarray  # int32 (D, R, P) the same, higher = better (cz negated)
    opened: np.ndarray  # bool (D, R, P) the seat had opened when the deal ended
    winner: np.ndarray  # int8 (D, R) seat that went out, -1 if none
    truncated: np.ndarray  # bool (D, R) cut off (no winner)
    turns: np.ndarray  # int32 (D, R) turns played

    @property
    def num_deals(self) -> int:
        return int(self.seeds.size)


def concat_results(parts: Sequence[MatchResult]) -> MatchResult:
    """One result from chunks of the same match (in the given order)."""
    first = parts[0]
    fields = ("seeds", "scores", "rewards", "opened", "winner", "truncated", "turns")
    return MatchResult(first.agents, first.rotations,
                       **{f: np.concatenate([getattr(p, f) for p in parts]) for f in fields})


def _generators(seed: int, seeds: np.ndarray, num_rotations: int, num_agents: int,
                rng_scope: str) -> list[list[np.random.Generator]]:
    """gens[a][row]: agent a's generator for batch row ``row = r * D + d`` (one shared
    generator per agent when ``rng_scope == "chunk"``)."""
    if rng_scope == "chunk":
        key = [seed, int(seeds[0]), seeds.size]
        return [[np.random.default_rng([*key, a])] for a in range(num_agents)]
    return [[np.random.default_rng([seed, int(s), r, a])
             for r in range(num_rotations) for s in seeds] for a in range(num_agents)]


def _choose(policy: Policy, obs: np.ndarray, mask: np.ndarray, rows: np.ndarray,
            gens: list[np.random.Generator]) -> np.ndarray:
    """Actions of one policy for its batch rows ``rows`` (original row ids)."""
    if len(gens) == 1:
        return np.asarray(policy.act_batch(obs, mask, gens[0]), np.int64)
    return np.array([policy.act(o, m, gens[row]) for o, m, row in zip(obs, mask, rows,
                                                                    strict=True)], np.int64)


def _record(out: dict[str, np.ndarray], rules: RuleSet, state: State,
            local: np.ndarray, rows: np.ndarray) -> None:
    """Copy the outcomes of the finished local rows ``local`` (original ids ``rows``)."""
    out["scores"][rows] = state.scores[local]
    out["rewards"][rows] = game.rewards_of(rules, state.take(local))
    out["opened"][rows] = state.opened[local]
    out["winner"][rows] = state.winner[local]
    out["truncated"][rows] = state.truncated[local]
    out["turns"][rows] = state.turn[local]


def _empty_outcomes(n: int, p: int) -> dict[str, np.ndarray]:
    return {"scores": np.zeros((n, p), np.int32), "rewards": np.zeros((n, p), np.int32),
            "opened": np.zeros((n, p), bool), "winner": np.full(n, -1, np.int8),
            "truncated": np.zeros(n, bool), "turns": np.zeros(n, np.int32)}


def _play_rows(rules: RuleSet, policies: Sequence[Policy], seat_agent: np.ndarray,
               seeds: np.ndarray, gens: list[list[np.random.Generator]]) -> dict[str, np.ndarray]:
    """Play one batch row per entry of ``seeds`` to the end; ``seat_agent`` int (N, P)."""
    state = game.init(rules, seeds)
    alive = np.arange(seeds.size)  # original row id of each row of ``state``
    out = _empty_outcomes(seeds.size, rules.num_players)
    while alive.size:
        mask = game.legal_action_mask(rules, state)
        obs = observe(rules, state, state.current)
        acting = seat_agent[alive, state.current]
        actions = np.zeros(alive.size, np.int64)
        for a, policy in enumerate(policies):
            local = np.flatnonzero(acting == a)
            if local.size:
                actions[local] = _choose(policy, obs[local], mask[local], alive[local], gens[a])
        legal = mask[np.arange(alive.size), actions]
        if not legal.all():
            b = int(np.flatnonzero(~legal)[0])
            raise ValueError(f"agent {policies[acting[b]].name!r} chose illegal action "
                             f"{int(actions[b])} in deal seed {int(seeds[alive[b]])}")
        state, *_ = game.step(rules, state, actions, validate=False)
        done = state.done
        if done.any():
            _record(out, rules, state, np.flatnonzero(done), alive[done])
            state, alive = state.take(np.flatnonzero(~done)), alive[~done]
    return out


def play_match(rules: RuleSet, policies: Sequence[Policy], seeds: Sequence[int] | np.ndarray,
               *, seed: int = 0, rng_scope: str = "deal",
               names: Sequence[str] | None = None) -> MatchResult:
    """Play every deal of ``seeds`` once per seat rotation (see the module docstring).

    All rotations of all deals step together as one batch through the core; at each
    step the rows are grouped by the agent to act, which sees only its seat's observation
    and the legal-action mask.

    Raises:
        ValueError: when an agent picks an illegal action (naming it and the deal).
    """
    seeds = np.asarray(seeds, np.int64)
    rotations = seat_rotations(len(policies), rules.num_players)
    r, d = len(rotations), seeds.size
    gens = _generators(seed, seeds, r, len(policies), rng_scope)
    out = _play_rows(rules, policies, np.repeat(rotations, d, axis=0), np.tile(seeds, r), gens)

    def by_deal(x: np.ndarray) -> np.ndarray:  # rows r * D + d -> (D, R, ...)
        return np.swapaxes(x.reshape((r, d, *x.shape[1:])), 0, 1)

    agent_names = tuple(names) if names is not None else tuple(p.name for p in policies)
    return MatchResult(agent_names, rotations, seeds, **{k: by_deal(v) for k, v in out.items()})
