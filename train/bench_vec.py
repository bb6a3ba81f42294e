"""Throughput of ``ZolikVecEnv`` against the raw core, random play on one process;
``zolik bench-env`` prints it (``cli.bench_env``).

For each row: the raw core's decisions/s (``zolik_env.rummy.bench``: mask, step and the
acting seat's observation per decision), the VecEnv's learner steps/s with a random
learner and random opponents (``action_masks``, ``step``), and the decisions/s the VecEnv
makes in all (learner + opponents). ``core/vec`` is raw decisions/s over VecEnv steps/s;
``core/vec dec`` compares decisions. Never a timed test (shared, noisy machines).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from train.zolik_vec import ZolikVecEnv
from zolik_env.rummy import game
from zolik_env.rummy.bench import bench_one


@dataclass(frozen=True)
class VecRow:
    preset: str
    players: int
    batch: int
    core_decisions_per_s: float
    vec_steps_per_s: float
    vec_decisions_per_s: float

    @property
    def ratio(self) -> float:
        return self.core_decisions_per_s / self.vec_steps_per_s

    @property
    def decision_ratio(self) -> float:
        return self.core_decisions_per_s / self.vec_decisions_per_s


def bench_vec(preset: str, players: int, batch: int, seconds: float) -> tuple[float, float]:
    """(learner steps/s, decisions/s) of the VecEnv with random learner and opponents."""
    env = ZolikVecEnv(batch, preset, players, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    steps, decisions = 0, env.num_decisions
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(game.sample_legal(env.action_masks(), rng))
        steps += batch
    elapsed = time.perf_counter() - start
    return steps / elapsed, (env.num_decisions - decisions) / elapsed


def run(presets: list[str], players: list[int], batches: list[int],
        seconds: float) -> list[VecRow]:
    rows = []
    for preset in presets:
        for p in players:
            for b in batches:
                core = bench_one(preset, p, b, seconds).decisions_per_s
                steps, decisions = bench_vec(preset, p, b, seconds)
                rows.append(VecRow(preset, p, b, core, steps, decisions))
                print(format_table(rows[-1:]).splitlines()[-1], flush=True)
    return rows


def format_table(rows: list[VecRow]) -> str:
    lines = ["| preset | players | batch | core decisions/s | VecEnv steps/s | "
             "VecEnv decisions/s | core/vec | core/vec dec |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.preset} | {r.players} | {r.batch} | {r.core_decisions_per_s:,.0f} | "
              f"{r.vec_steps_per_s:,.0f} | {r.vec_decisions_per_s:,.0f} | {r.ratio:.2f} | "
              f"{r.decision_ratio:.2f} |" for r in rows]
    return "\n".join(lines)
