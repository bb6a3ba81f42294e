"""PettingZoo's former gin_rummy_v4 against RLCard's gin rummy loop, in one process.

PettingZoo 1.25 dropped gin_rummy_v4, so the kit's ``zolik bench --rlcard`` times the
engine it wrapped, RLCard's ``gin-rummy``; this script measures what the wrapper cost, to
turn ratios against that row into ratios against gin_rummy_v4. It runs outside the kit's
environment (the kit needs a newer PettingZoo), in one with the old one:

    python -m venv /tmp/pz124
    /tmp/pz124/bin/pip install "pettingzoo==1.24.3" rlcard pygame
    /tmp/pz124/bin/python scripts/bench_gin_rummy_v4.py

Both loops play uniformly random legal moves from a mask, as ``zolik bench`` does.
"""

from __future__ import annotations

import time

import numpy as np
import rlcard
from pettingzoo.classic import gin_rummy_v4


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


def pettingzoo_loop(seconds: float) -> float:
    """Decisions/s of gin_rummy_v4's AEC loop: ``env.last()`` every decision."""
    env = gin_rummy_v4.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    decisions, seed, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            if not env.agents:
                seed += 1
                env.reset(seed=seed)
            continue
        env.step(random_legal(obs["action_mask"], rng))
        decisions += 1
    return decisions / (time.perf_counter() - start)


def rlcard_loop(seconds: float) -> float:
    """Decisions/s of RLCard's loop, as ``zolik_env.envs.bench.bench_rlcard`` plays it."""
    env = rlcard.make("gin-rummy", config={"seed": 0})
    rng = np.random.default_rng(0)
    mask = np.zeros(env.num_actions, bool)
    decisions, start = 0, time.perf_counter()
    state, _ = env.reset()
    while time.perf_counter() - start < seconds:
        mask[:] = False
        mask[list(state["legal_actions"])] = True
        state, _ = env.step(random_legal(mask, rng))
        decisions += 1
        if env.is_over():
            state, _ = env.reset()
    return decisions / (time.perf_counter() - start)


if __name__ == "__main__":
    for _ in range(2):
        wrapped, raw = pettingzoo_loop(3.0), rlcard_loop(3.0)
        print(f"gin_rummy_v4 {wrapped:,.0f}  rlcard {raw:,.0f}  decisions/s, "
              f"ratio {wrapped / raw:.2f}")
