"""``zolik main``: the README's main job with its defaults.

Plays a batch of random legal Žolík deals per preset on the batched core and prints a
summary (how deals end, mean scores per seat, decisions per deal), then one finished
deal's table. Training and evaluation will replace this as the kit's main job.
"""

from __future__ import annotations

import argparse

import numpy as np

from zolik_env.rummy import game, options
from zolik_env.rummy.render import render


def play_random(rules: options.RuleSet, seeds: np.ndarray, seed: int) -> tuple[game.State, int]:
    """Play every deal to its end with uniformly random legal moves."""
    state = game.init(rules, seeds)
    rng = np.random.default_rng(seed)
    decisions = 0
    while not state.done.all():
        mask = game.legal_action_mask(rules, state)
        decisions += int((~state.done).sum())
        state, _, _, _ = game.step(rules, state, game.sample_legal(mask, rng))
    return state, decisions


def summarise(rules: options.RuleSet, state: game.State, decisions: int) -> str:
    b = state.batch_size
    won = int((state.winner >= 0).sum())
    lines = [f"preset {rules.name}, {rules.num_players} players, {b} random deals: "
             f"{won} won, {int(state.truncated.sum())} cut off, "
             f"{b - won - int(state.truncated.sum())} ended with the stock exhausted; "
             f"{decisions / b:.0f} decisions per deal",
             "  mean deal score per seat: " + ", ".join(
                 f"{s:+.1f}" for s in state.scores.mean(0)) + (
                 "  (penalties: lower is better)" if rules.lower_is_better else "")]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik main", description=__doc__)
    parser.add_argument("--deals", type=int, default=64, help="deals per preset (default 64)")
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be >= 1, got {args.deals}")
    for name in options.PRESETS:
        rules = options.preset(name, num_players=args.players)
        seeds = np.arange(args.deals) + args.seed * 1_000_000
        state, decisions = play_random(rules, seeds, args.seed)
        print(summarise(rules, state, decisions))
    print("\nthe last deal's table:\n" + render(rules, state, args.deals - 1))
    return 0
