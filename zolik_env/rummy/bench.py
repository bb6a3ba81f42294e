"""Throughput benchmark of the batched core: random legal play on one core.

Every decision builds the legal-action mask and the acting seat's observation, as an
agent would need them. The loop owns its batch, so it steps it in place
(``game.step_in_place``) and deals fresh deals into the rows of finished ones
(``game.reset_in_place``), as the training VecEnv does; the pure ``step`` would add a
copy of the whole State per call (3 MiB at 1,024 deals). Prints a table; never a timed
test (these machines are shared and noisy: compare ratios from one run). ``zolik bench``
prints it (``cli.bench``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from zolik_env.rummy import game, options
from zolik_env.rummy.observe import observe


@dataclass(frozen=True)
class BenchRow:
    preset: str  # or another game's name for a comparison row
    players: int
    batch: int  # 0: a loop of one game at a time, named by ``loop``
    decisions_per_s: float
    deals_per_s: float  # decisions/s over the mean decisions per finished deal
    mask_us_per_state: float  # not timed for the AEC loop
    state_mib: float
    loop: str = "aec"  # what steps the game when ``batch`` is 0: "aec", "openspiel", "rlcard"


@functools.cache
def mean_deal_length(rules: options.RuleSet, deals: int = 128) -> float:
    """Mean decisions per random deal, from ``deals`` deals played to the end. (Counting
    the deals that end inside a short timed run would favour the short ones.)"""
    state = game.init(rules, np.arange(deals) + 10**9)
    rng = np.random.default_rng(1)
    decisions = 0
    while not state.done.all():
        mask = game.legal_action_mask(rules, state)
        decisions += int((~state.done).sum())
        state, _ = game.step(rules, state, game.sample_legal(mask, rng), validate=False)
    return decisions / deals


def bench_one(preset: str, players: int, batch: int, seconds: float, seed: int = 0) -> BenchRow:
    """Play random legal moves for about ``seconds`` and measure."""
    rules = options.preset(preset, num_players=players)
    state = game.init(rules, np.arange(batch) + seed * 1_000_000)
    rng = np.random.default_rng(seed)
    next_seed = seed * 1_000_000 + batch
    decisions = deals = 0
    mask_time = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        mask = game.legal_action_mask(rules, state)
        mask_time += time.perf_counter() - t
        actions = game.sample_legal(mask, rng)
        out = game.step_in_place(rules, state, actions, validate=False)
        observe(rules, state, state.current)
        decisions += batch  # every deal is live: finished ones are replaced at once
        finished = (out.terminated | out.truncated).nonzero()[0]
        if finished.size:
            deals += finished.size
            game.reset_in_place(rules, state, finished,
                                np.arange(next_seed, next_seed + finished.size))
            next_seed += finished.size
    elapsed = time.perf_counter() - start
    calls = max(decisions / batch, 1)
    return BenchRow(preset, players, batch, decisions / elapsed,
                    decisions / elapsed / mean_deal_length(rules),
                    mask_time / calls / batch * 1e6, state.nbytes() / 2**20)


def format_table(rows: list[BenchRow]) -> str:
    lines = ["| preset | players | batch | decisions/s | deals/s | mask µs/state | state MiB |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.preset} | {r.players} | {r.batch or r.loop} | {r.decisions_per_s:,.0f} | "
              f"{r.deals_per_s:,.1f} | {f'{r.mask_us_per_state:.1f}' if r.batch else ''} | "
              f"{_mib(r.state_mib)} |" for r in rows]
    return "\n".join(lines)


def _mib(value: float) -> str:
    return "" if value != value else f"{value:.2f}"  # NaN: not measured


def format_ratios(rows: list[BenchRow], reference: BenchRow) -> str:
    """One line per row of one game at a time (batch 1, or a loop) against ``reference``
    (another game's loop measured in the same run): decisions/s as a multiple of it."""
    lines = [f"against {reference.preset} ({reference.loop}, {reference.decisions_per_s:,.0f} "
             f"decisions/s, same run):"]
    for r in rows:
        if r.batch == 1 or (r.batch == 0 and r.loop == "aec"):
            lines.append(f"  {r.preset} {r.players}p {'batch 1' if r.batch else r.loop}: "
                         f"{r.decisions_per_s / reference.decisions_per_s:.2f}x")
    return "\n".join(lines)
