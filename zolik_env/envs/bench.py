"""Throughput of the PettingZoo AEC loop of ``zolik_v0``: one deal at a time, as most
users step it.

Each decision reads ``env.last()`` (the acting agent's observation and action mask, as
an agent needs them) and plays a uniformly random legal move; a finished deal is
followed by ``reset`` with the next seed. ``zolik bench --aec`` prints it beside the
core's rows (``zolik_env.rummy.bench``): the same table, with ``aec`` in the batch
column. Never a timed test: compare ratios from one run.
"""

from __future__ import annotations

import time

import numpy as np

from zolik_env.envs.zolik_aec import env as make_env
from zolik_env.rummy import options
from zolik_env.rummy.bench import BenchRow, mean_deal_length


def bench_aec(preset: str, players: int, seconds: float, seed: int = 0) -> BenchRow:
    """Random legal play through ``zolik_v0.env`` for about ``seconds``."""
    rules = options.preset(preset, num_players=players)
    env = make_env(rules=rules)
    rng = np.random.default_rng(seed)
    deal_seed = seed * 1_000_000
    env.reset(seed=deal_seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            if not env.agents:
                deal_seed += 1
                env.reset(seed=deal_seed)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    elapsed = time.perf_counter() - start
    raw = env.unwrapped
    return BenchRow(preset, players, 0, decisions / elapsed,
                    decisions / elapsed / mean_deal_length(rules), float("nan"),
                    raw.core_state.nbytes() / 2**20)
