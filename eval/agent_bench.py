"""Throughput of the players that think: the planner's decisions/s, planner self-play
through the evaluation harness beside random self-play, and ``pimc``'s seconds per
searched decision. ``zolik bench --agents`` prints these rows after the core's; like
every benchmark of the kit they are a table, never a timed test (compare ratios from one
run: these machines are shared and noisy).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from agents.registry import make_agent
from eval.harness import play_match, seat_rotations
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet, preset


@dataclass(frozen=True)
class AgentRow:
    """One measured line: ``what`` was timed at ``size`` (batch or rollouts)."""

    preset: str
    players: int
    what: str
    size: int
    value: float
    unit: str


def positions(rules: RuleSet, deals: int = 64, moves: int = 240,
              every: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observations, masks) of the seats to act along planner self-play."""
    planner = make_agent("planner", rules)
    rng = np.random.default_rng(0)
    state = game.init(rules, np.arange(deals) + 900_000)
    out = []
    for t in range(moves):
        obs = observe(rules, state, state.current.astype(np.int64))
        mask = game.legal_action_mask(rules, state)
        live = np.flatnonzero(mask.any(1))
        if t % every == 0 and live.size:
            out.append((obs[live], mask[live]))
        state, _ = game.step(rules, state, planner.act_batch(obs, mask, rng))
    return out


def planner_rate(rules: RuleSet, batch: int, seconds: float) -> float:
    """Planner decisions/s at ``batch`` rows per call, on self-play positions."""
    planner = make_agent("planner", rules)
    rows = positions(rules)
    obs = np.concatenate([o for o, _ in rows])
    mask = np.concatenate([m for _, m in rows])
    rng = np.random.default_rng(0)
    done, spent = 0, 0.0
    while spent < seconds:
        for start in range(0, len(obs), batch):
            began = time.perf_counter()
            planner.act_batch(obs[start:start + batch], mask[start:start + batch], rng)
            spent += time.perf_counter() - began
            done += len(obs[start:start + batch])
            if spent >= seconds:
                break
    return done / spent


def selfplay_turns(rules: RuleSet, agent: str, deals: int) -> float:
    """Turns/s of ``agent`` against itself through ``play_match`` (all rotations of
    ``deals`` deals in one batch)."""
    policies = [make_agent(agent, rules) for _ in range(rules.num_players)]
    began = time.perf_counter()
    result = play_match(rules, policies, np.arange(deals) + 800_000, rng_scope="chunk")
    return float(result.turns.sum()) / (time.perf_counter() - began)


def pimc_seconds(rules: RuleSet, rollouts: int, deals: int = 2) -> float:
    """Mean seconds per searched decision of ``pimc:rollouts=N`` playing the planner."""
    agent = make_agent(f"pimc:rollouts={rollouts}", rules)
    spent: list[float] = []
    search = agent.search

    def timed(*args: object) -> object:
        began = time.perf_counter()
        verdict = search(*args)  # type: ignore[arg-type]
        spent.append(time.perf_counter() - began)
        return verdict

    agent.search = timed  # type: ignore[method-assign]
    play_match(rules, [agent, make_agent("planner", rules)], np.arange(deals) + 600_000)
    return float(np.mean(spent))


def bench_agents(name: str, players: int, batches: list[int], budgets: list[int],
                 seconds: float) -> list[AgentRow]:
    """The rows of one preset and player count (see the module docstring)."""
    rules = preset(name, num_players=players)
    rows = [AgentRow(name, players, "planner decisions", b, planner_rate(rules, b, seconds),
                     "decisions/s") for b in batches]
    deals = max(1, 256 // len(seat_rotations(rules.num_players, rules.num_players)))
    for agent in ("random", "planner"):
        rows.append(AgentRow(name, players, f"{agent} self-play (play_match)", deals,
                             selfplay_turns(rules, agent, deals), "turns/s"))
    rows += [AgentRow(name, players, "pimc search", n, pimc_seconds(rules, n),
                      "s/decision") for n in budgets]
    return rows


def format_agent_rows(rows: list[AgentRow]) -> str:
    """The rows as a table, with planner self-play as a share of random self-play's."""
    lines = [f"{'preset':6} {'P':>1}  {'what':32} {'size':>6}  {'value':>12}  unit"]
    for r in rows:
        lines.append(f"{r.preset:6} {r.players:>1}  {r.what:32} {r.size:>6}  "
                     f"{r.value:>12,.3f}  {r.unit}" if r.unit == "s/decision" else
                     f"{r.preset:6} {r.players:>1}  {r.what:32} {r.size:>6}  "
                     f"{r.value:>12,.0f}  {r.unit}")
    turns = {(r.preset, r.players, r.what.split()[0]): r.value for r in rows
             if r.unit == "turns/s"}
    for (name, players, agent), value in turns.items():
        if agent == "planner" and (name, players, "random") in turns:
            share = value / turns[(name, players, "random")]
            lines.append(f"{name} {players}p: planner self-play at {share:.2f}x random "
                         f"self-play's turns/s (same run)")
    return "\n".join(lines)
