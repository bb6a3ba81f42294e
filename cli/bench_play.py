"""``zolik bench-play``: how fast a bot's move reaches the web table's page
(``play.bench``).

    zolik bench-play [--agents greedy planner] [--presets cz] [--players 2 4] [--moves 300]
"""

from __future__ import annotations

import argparse

from agents.registry import make_agent
from cli.args import positive_int
from play import bench
from zolik_env.rummy import options


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik bench-play", description=bench.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["greedy", "planner"])
    parser.add_argument("--presets", nargs="+", default=["cz"], choices=options.PRESETS)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4], choices=[2, 3, 4])
    parser.add_argument("--moves", type=positive_int, default=300,
                        help="bot moves timed per row (default 300)")
    args = parser.parse_args(argv)
    for agent in args.agents:  # named before anything is timed
        for preset in args.presets:
            try:
                make_agent(agent, options.preset(preset))
            except ValueError as err:
                parser.error(f"--agents {agent}: {err}")
    rows = [bench.measure(agent, preset, players, args.moves)
            for agent in args.agents for preset in args.presets for players in args.players]
    print(bench.format_table(rows))
    return 0
