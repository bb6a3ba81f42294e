"""The compiled planner and greedy against their readable oracle, and layout independence.

``agents.planner`` plays the planner and greedy as compiled batch kernels; the readable
per-row versions in ``tests/agents/planner_reference`` are the specification. Here both
decide every position of whole deals (every preset, 2-4 players, weighted planners,
greedy; one move in ten a random legal one, so the deals reach unplanned positions:
turns after an UNDO, half-laid openings, odd pick-ups), and every move must be the same:
over 10^5 decisions in all. Then a deal must play the same moves alone, in a chunk of 16
and in a batch of 10,000: every decision is a function of its observation alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.planner.planner_weights import parse_weights
from agents.registry import make_agent
from tests.agents.planner_reference.greedy import GreedyPolicy as ReadableGreedy
from tests.agents.planner_reference.planner import PlannerPolicy as ReadablePlanner
from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import observe

WEIGHTED = "keep=0.6,held=30,danger=3,penalty=0.2,penalty_opened=0.9,near_out=6,joker_keep=5"
CASES = [(preset, players, spec, target)
         for preset in ("cz", "sk", "jolly") for players in (2, 3, 4)
         for spec, target in (("planner", 6000), ("greedy", 4000))]
CASES += [(preset, players, f"planner:{WEIGHTED}", 6000)
          for preset, players in (("cz", 2), ("sk", 3), ("jolly", 4))]


def readable(spec: str, rule_set):
    name, _, argument = spec.partition(":")
    if name == "greedy":
        return ReadableGreedy(rule_set)
    return ReadablePlanner(rule_set, parse_weights(argument))


def compare(rule_set, spec: str, target: int, seed: int) -> tuple[int, list[str]]:
    """Decisions compared and the first few differences, over deals played by the
    readable agent in every seat (one move in ten a random legal one)."""
    compiled, oracle = make_agent(spec, rule_set), readable(spec, rule_set)
    rng = np.random.default_rng(seed)
    compared, differences, first = 0, [], 10_000 * seed
    while compared < target:
        state = game.init(rule_set, np.arange(first, first + 32))
        first += 32
        while not state.done.all():
            obs = observe(rule_set, state, state.current.astype(np.int64))
            mask = game.legal_action_mask(rule_set, state)
            live = mask.any(1)
            got = compiled.act_batch(obs, mask, rng)
            want = oracle.act_batch(obs, mask, rng)
            for row in np.flatnonzero(live & (got != want))[:3]:
                differences.append(f"deal {first - 32 + row}: compiled "
                                   f"{A.action_to_string(int(got[row]))}, readable "
                                   f"{A.action_to_string(int(want[row]))}")
            compared += int(live.sum())
            wild = rng.random(len(mask)) < 0.1
            chosen = np.where(wild & live, game.sample_legal(mask, rng), want)
            state, _ = game.step(rule_set, state, chosen)
    return compared, differences


@pytest.mark.parametrize(("preset", "players", "spec", "target"), CASES)
def test_compiled_moves__equal_the_readable_ones(preset, players, spec, target):
    rule_set = rules.preset(preset, num_players=players)
    compared, differences = compare(rule_set, spec, target, seed=players)
    assert compared >= target
    assert not differences, differences[:5]


def test_the_cases__add_up_to_over_100_000_decisions():
    assert sum(target for *_, target in CASES) >= 100_000


def test_the_comparison__catches_a_planted_difference(monkeypatch):
    """A readable planner changed on one kind of move shows up as a difference."""
    rule_set = rules.preset("cz")
    original = ReadablePlanner.act

    def throws_the_last(self, obs, mask, rng):
        action = original(self, obs, mask, rng)
        legal = np.flatnonzero(mask[A.DISCARD_BASE:])
        return A.DISCARD_BASE + int(legal[-1]) if action >= A.DISCARD_BASE else action

    monkeypatch.setattr(ReadablePlanner, "act", throws_the_last)
    _, differences = compare(rule_set, "planner", 300, seed=1)
    assert differences


def moves_of(rule_set, seeds: np.ndarray, agents: list) -> np.ndarray:
    """int16 (D, steps): every move of the deals ``seeds`` played in one batch, -1 once a
    deal is over; seat p is played by ``agents[p % len(agents)]``."""
    state = game.init(rule_set, seeds)
    rng = np.random.default_rng(0)
    moves = []
    while not state.done.all():
        seats = state.current.astype(np.int64)
        obs = observe(rule_set, state, seats)
        mask = game.legal_action_mask(rule_set, state)
        chosen = np.zeros(len(seeds), np.int64)
        for p, agent in enumerate(agents):
            rows = np.flatnonzero(seats % len(agents) == p)
            if rows.size:
                chosen[rows] = agent.act_batch(obs[rows], mask[rows], rng)
        moves.append(np.where(state.done, -1, chosen).astype(np.int16))
        state, _ = game.step(rule_set, state, chosen)
    return np.stack(moves, 1)


def trimmed(moves: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(int(a) for a in row if a >= 0) for row in moves]


@pytest.mark.parametrize(("preset", "players"), [("cz", 2)])
def test_a_deal_plays_the_same_alone_in_16_and_in_10_000(preset, players):
    rule_set = rules.preset(preset, num_players=players)
    agents = [make_agent("planner", rule_set), make_agent("greedy", rule_set)]
    seeds = np.arange(7_000_000, 7_010_000)
    batch = trimmed(moves_of(rule_set, seeds, agents))
    chunk = trimmed(moves_of(rule_set, seeds[4_992:5_008], agents))
    assert chunk == batch[4_992:5_008]
    for index in (0, 5_000, 9_999):
        assert trimmed(moves_of(rule_set, seeds[index:index + 1], agents)) == [batch[index]]
