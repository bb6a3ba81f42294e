"""How random deals end: a table of outcomes per preset and player count.

    python -m zolik_env.rummy.outcomes --deals 1000

Plays ``--deals`` deals of uniformly random legal moves per row of the table, batched,
and counts how each ended: a winner went out, the deal ended by the rules with no
winner (the player to move had no legal draw), or it was cut off (``max_stock_rebuilds``
or ``max_turns``). Random play rarely goes out, so the table shows how often the
stock-exhaustion rules decide a deal. Numpy only; deterministic for a seed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import numpy as np

from zolik_env.rummy import game
from zolik_env.rummy.options import PRESETS, RuleSet, preset


@dataclass(frozen=True)
class Outcomes:
    """Counts of how ``deals`` random deals ended."""

    deals: int
    winner: int  # a seat went out
    no_winner: int  # ended by the rules without a winner (no legal draw)
    cut_off: int  # truncated: the rebuild limit or max_turns
    rebuilt: int  # deals whose stock was rebuilt at least once
    no_winner_unrebuilt: int  # ended without a winner before any rebuild


def play_random_deals(rules: RuleSet, deals: int, seed: int = 0) -> Outcomes:
    """Play ``deals`` deals (seeds ``seed .. seed + deals - 1``) by random legal moves."""
    state = game.init(rules, np.arange(seed, seed + deals), np.arange(deals))
    rng = np.random.default_rng(seed)
    while not state.done.all():
        actions = game.sample_legal(game.legal_action_mask(rules, state), rng)
        state = game.step(rules, state, actions, validate=False)[0]
    no_winner = state.terminated & (state.winner < 0)
    return Outcomes(deals=deals, winner=int((state.winner >= 0).sum()),
                    no_winner=int(no_winner.sum()), cut_off=int(state.truncated.sum()),
                    rebuilt=int((state.rebuilds > 0).sum()),
                    no_winner_unrebuilt=int((no_winner & (state.rebuilds == 0)).sum()))


def format_table(rows: list[tuple[str, int, Outcomes]]) -> str:
    """A Markdown table, one row per (preset, players)."""
    lines = ["| preset | players | deals | winner | no winner | cut off | "
             "no winner, never rebuilt |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, players, o in rows:
        def share(n: int, o: Outcomes = o) -> str:
            return f"{n} ({100 * n / o.deals:.1f}%)"
        lines.append(f"| {name} | {players} | {o.deals} | {share(o.winner)} | "
                     f"{share(o.no_winner)} | {share(o.cut_off)} | "
                     f"{share(o.no_winner_unrebuilt)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m zolik_env.rummy.outcomes",
        description="How deals of random legal play end, per preset and player count.")
    parser.add_argument("--deals", type=int, default=500, help="deals per row (default 500)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4],
                        help="player counts (default 2 4)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS,
                        metavar="PRESET", help=f"presets (default: {' '.join(PRESETS)})")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    rows = [(name, p, play_random_deals(preset(name, num_players=p), args.deals, args.seed))
            for name in args.presets for p in args.players]
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
