"""``zolik bench-env``: throughput of ``ZolikVecEnv`` against the raw core
(``train.bench_vec``).

    zolik bench-env [--presets cz] [--players 2 4] [--batches 64 1024] [--seconds 3]
"""

from __future__ import annotations

import argparse

from cli.args import positive_float, positive_int
from train import bench_vec
from train.bench_vec import format_table, run
from zolik_env.rummy import options


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik bench-env", description=bench_vec.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["cz"], choices=options.PRESETS)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4], choices=[2, 3, 4])
    parser.add_argument("--batches", nargs="+", type=positive_int, default=[64, 1024])
    parser.add_argument("--seconds", type=positive_float, default=3.0,
                        help="time per row (default 3)")
    args = parser.parse_args(argv)
    if min(args.batches) < 1:
        parser.error("--batches: batch sizes must be >= 1")
    rows = run(args.presets, args.players, args.batches, args.seconds)
    print()
    print(format_table(rows))
    return 0
