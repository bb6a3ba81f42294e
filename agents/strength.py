"""Strength check of the heuristic agents on duplicate deals.

    python -m agents.strength --deals 200            # greedy vs random, planner vs greedy

Every deal is played twice with the same seed, the two agents swapping seats (4 players:
``A B A B`` then ``B A B A``); a deal's difference is A's mean reward per seat minus B's,
averaged over both seatings (rewards are the core's, higher is better: cz penalties
negated). The table gives the mean difference per deal with a 95% t-interval over deals.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

import numpy as np

from agents.base import Policy
from agents.registry import make_agent
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet

T975 = 1.96  # the normal quantile; the harness in eval/ has exact t quantiles


def play_deals(rule_set: RuleSet, seats: Sequence[Policy], seeds: Sequence[int],
               rng_seed: int = 0) -> np.ndarray:
    """float (N, P) total reward of each seat in each deal, ``seats[p]`` playing seat p.

    Each policy acts through ``act_batch`` on the deals where its seat is to move.
    """
    state = game.init(rule_set, np.asarray(seeds))
    totals = np.zeros((len(seeds), rule_set.num_players))
    rng = np.random.default_rng(rng_seed)
    while not state.done.all():
        mask = game.legal_action_mask(rule_set, state)
        obs = observe(rule_set, state, state.current)
        actions = np.zeros(len(seeds), np.int64)
        live = ~state.done
        for p, policy in enumerate(seats):
            rows = np.flatnonzero(live & (state.current == p))
            if rows.size:
                actions[rows] = policy.act_batch(obs[rows], mask[rows], rng)
        state, out = game.step(rule_set, state, actions)
        totals += out.rewards
    return totals


def duplicate_differences(preset: str, players: int, spec_a: str, spec_b: str,
                          seeds: Sequence[int]) -> np.ndarray:
    """float (N,) per-deal mean reward difference A - B over the two seatings."""
    rule_set = rules.preset(preset, num_players=players)
    a, b = make_agent(spec_a, rule_set), make_agent(spec_b, rule_set)
    diffs = np.zeros(len(seeds))
    for flip in (0, 1):
        seats = [a if (p + flip) % 2 == 0 else b for p in range(players)]
        totals = play_deals(rule_set, seats, seeds)
        is_a = np.array([s is a for s in seats])
        diffs += totals[:, is_a].mean(1) - totals[:, ~is_a].mean(1)
    return diffs / 2


def interval(diffs: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): a 95% interval of the mean over deals."""
    mean = float(diffs.mean())
    half = T975 * float(diffs.std(ddof=1)) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    return mean, mean - half, mean + half


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--presets", default="cz,sk,jolly")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--pairs", default="greedy:random,planner:greedy")
    args = parser.parse_args(argv)
    seeds = list(range(10_000, 10_000 + args.deals))
    print("| pair | preset | players | deals | mean A-B per deal | 95% CI | seconds |")
    print("|---|---|---|---|---|---|---|")
    for pair in args.pairs.split(","):
        spec_a, spec_b = pair.split(":")
        for preset in args.presets.split(","):
            for players in (int(p) for p in args.players.split(",")):
                start = time.perf_counter()
                mean, low, high = interval(duplicate_differences(preset, players, spec_a,
                                                                 spec_b, seeds))
                print(f"| {spec_a} - {spec_b} | {preset} | {players} | {args.deals} | "
                      f"{mean:+.1f} | [{low:+.1f}, {high:+.1f}] | "
                      f"{time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
