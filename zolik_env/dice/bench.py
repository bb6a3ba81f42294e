"""Throughput of the Pět kostek core: env decisions per second (mask + step).

A *decision* is one row stepped in a live game. The timer covers ``turn_context``,
``legal_action_mask`` and ``step`` only; the uniform-random actions are drawn outside
it. Finished batches restart with fresh seeds. Imports only numpy and stdlib.

    zolik dice bench [--batch 1 4096] [--seconds 2]
"""

from __future__ import annotations

import time

import numpy as np

from zolik_env.dice import game
from zolik_env.dice.rules import DiceRules


def decisions_per_second(
    rules: DiceRules, batch: int, seconds: float = 2.0, validate: bool = False, seed: int = 0
) -> float:
    """Live decisions per second of env time, measured for about ``seconds``."""
    rng = np.random.default_rng(seed)
    state = game.init(rules, np.arange(batch))
    games, decisions, env_time = 1, 0, 0.0
    wall = time.perf_counter()
    while time.perf_counter() - wall < seconds or decisions == 0:
        t0 = time.perf_counter()
        ctx = game.turn_context(rules, state)
        mask = game.legal_action_mask(rules, state, ctx)
        t1 = time.perf_counter()
        actions = np.argmax(mask * rng.random(mask.shape, dtype=np.float32), axis=1)
        t2 = time.perf_counter()
        live = int((~state.done).sum())
        state, _ = game.step(rules, state, actions, validate=validate, ctx=ctx)
        env_time += (t1 - t0) + (time.perf_counter() - t2)
        decisions += live
        if state.done.all():
            state = game.init(rules, np.arange(batch) + games * batch)
            games += 1
    return decisions / env_time


def table(batches: tuple[int, ...] = (1, 4096), seconds: float = 2.0) -> str:
    """Markdown table of decisions/s for a few rule variants and batch sizes."""
    variants = [
        ("classic, none", DiceRules()),
        ("classic, forced", DiceRules(joker="forced")),
        ("classic, forced, fixed order", DiceRules(joker="forced", fixed_order=True)),
        ("triple, forced, 2 players", DiceRules(table="triple", joker="forced", num_players=2)),
    ]
    lines = ["| rules | " + " | ".join(f"batch {b}" for b in batches) + " |",
             "|---|" + "---:|" * len(batches)]  # fmt: skip
    for name, rules in variants:
        cells = [f"{decisions_per_second(rules, b, seconds):,.0f}" for b in batches]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
