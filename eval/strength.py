"""Strength check of the heuristic agents on duplicate deals (``zolik strength pairs``).

Every deal is played twice with the same seed, the two agents swapping seats (4 players:
``A B A B`` then ``B A B A``); a deal's difference is A's mean reward per seat minus B's,
averaged over both seatings (rewards are the core's, higher is better: cz penalties
negated). The table gives the mean difference per deal with a 95% interval over deals.
The deals are played by ``eval.harness.play_match``, one seating at a time, the agents
drawing from one generator in seat order.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence

import numpy as np
from tqdm import tqdm

from agents.registry import display_name, is_privileged_spec, make_agent
from eval.harness import play_match
from zolik_env.rummy import rules

T975 = 1.96  # the normal quantile; eval.stats has bootstrap intervals
FIRST_SEED = 10_000  # the deals are seeds FIRST_SEED, FIRST_SEED + 1, ...


def duplicate_differences(preset: str, players: int, spec_a: str, spec_b: str,
                          seeds: Sequence[int]) -> np.ndarray:
    """float (N,) per-deal mean reward difference A - B over the two seatings."""
    rule_set = rules.preset(preset, num_players=players)
    a, b = make_agent(spec_a, rule_set), make_agent(spec_b, rule_set)
    diffs = np.zeros(len(seeds))
    for flip in (0, 1):
        seats = [a if (p + flip) % 2 == 0 else b for p in range(players)]
        # each seat its own agent index, so the agents act seat by seat
        match = play_match(rule_set, seats, seeds, rng_scope="shared",
                           rotations=np.arange(players)[None],
                           names=[f"seat{p}" for p in range(players)])
        totals = match.rewards[:, 0, :].astype(np.float64)
        is_a = np.array([s is a for s in seats])
        diffs += totals[:, is_a].mean(1) - totals[:, ~is_a].mean(1)
    return diffs / 2


def interval(diffs: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): a 95% interval of the mean over deals."""
    mean = float(diffs.mean())
    half = T975 * float(diffs.std(ddof=1)) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    return mean, mean - half, mean + half


def _shown(spec: str) -> str:
    """A spec's name in the table, an oracle's marked privileged (``agents.search.oracle``)."""
    return display_name(spec) + (" [privileged]" if is_privileged_spec(spec) else "")


def table_lines(deals: int, presets: Sequence[str], players: Sequence[int],
                pairs: Sequence[tuple[str, str]], progress: bool = False) -> Iterator[str]:
    """A Markdown table, one row per pair, preset and player count (yielded as played);
    agents are shown by ``display_name``. ``progress``: a bar over the cells on stderr,
    naming the cell in play (a cell's deals are played as one batch)."""
    seeds = list(range(FIRST_SEED, FIRST_SEED + deals))
    yield ("| pair | preset | players | deals | points per deal, A - B (higher is better for A) "
           "| 95% CI | seconds |")
    yield "|---|---|---|---|---|---|---|"
    cells = [(a, b, preset, n) for a, b in pairs for preset in presets for n in players]
    with tqdm(total=len(cells), unit="cell", disable=not progress, leave=False) as bar:
        for spec_a, spec_b, preset, n in cells:
            pair = f"{_shown(spec_a)} - {_shown(spec_b)}"
            bar.set_description(f"{pair}, {preset} {n}p, {deals} deals x 2")
            start = time.perf_counter()
            mean, low, high = interval(duplicate_differences(preset, n, spec_a, spec_b, seeds))
            bar.update()
            yield (f"| {pair} | {preset} | {n} | {deals} | {mean:+.1f} | "
                   f"[{low:+.1f}, {high:+.1f}] | {time.perf_counter() - start:.0f} |")
