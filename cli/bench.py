"""``zolik bench``: throughput of the batched Žolík core, random legal play on one core.

Every decision builds the legal-action mask and the acting seat's observation, as an
agent would need them. The loop owns its batch: it steps it in place and deals fresh
deals into the rows of finished ones, as the training VecEnv does. Prints a table; never
a timed test (these machines are shared and noisy: compare ratios from one run).

    zolik bench [--presets cz sk jolly] [--players 2 4] [--batches 1 64 1024] [--seconds 3]
                [--aec] [--vector] [--agents] [--openspiel] [--rlcard]

With --vector, each batch size B also gets the row of the Gymnasium vector env that
gymnasium.make_vec("zolik/Zolik-v0", num_envs=B) builds (learner and random opponents,
every move a decision), and its decisions/s as a share of the core's at batch B.

With --agents, the players that think are timed after the core's rows, per preset and
player count: the planner's decisions/s at batch 1 and 256, planner self-play through
the evaluation harness beside random self-play (about 256 games in one batch), and pimc's
seconds per searched decision at 32, 128 and 512 rollouts (``eval.agent_bench``).

With --openspiel or --rlcard (the ``bench`` extra: pip install 'zolik[bench]'), OpenSpiel's
or RLCard's gin rummy stepped from Python is timed in the same run, and each
one-game-at-a-time row is printed as a multiple of it. RLCard's is the engine of
PettingZoo's former gin_rummy_v4, which only added its AEC wrapper's cost on top.
"""

from __future__ import annotations

import argparse

from cli.args import positive_float, positive_int
from zolik_env.envs.bench import (
    bench_aec,
    bench_openspiel,
    bench_rlcard,
    bench_vector,
    format_vector_shares,
)
from zolik_env.rummy import options
from zolik_env.rummy.bench import BenchRow, bench_one, format_ratios, format_table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=list(options.PRESETS),
                        choices=options.PRESETS)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4], choices=[2, 3, 4])
    parser.add_argument("--batches", nargs="+", type=positive_int, default=[1, 64, 1024])
    parser.add_argument("--seconds", type=positive_float, default=3.0,
                        help="time per row (default 3)")
    parser.add_argument("--aec", action="store_true",
                        help="also time the PettingZoo AEC loop of zolik_v0 (one deal at a "
                             "time, env.last() every decision): 'aec' in the batch column")
    parser.add_argument("--vector", action="store_true",
                        help="also time gymnasium.make_vec('zolik/Zolik-v0', num_envs=B) for "
                             "each batch B: 'make_vec B' in the batch column")
    parser.add_argument("--agents", action="store_true",
                        help="also time the planner (batch 1 and 256), planner self-play "
                             "beside random self-play, and pimc at 32, 128 and 512 rollouts")
    parser.add_argument("--openspiel", action="store_true",
                        help="also time OpenSpiel's gin rummy from Python (needs the bench "
                             "extra) and print the ratios to it")
    parser.add_argument("--rlcard", action="store_true",
                        help="also time RLCard's gin rummy, the engine of PettingZoo's former "
                             "gin_rummy_v4 (needs the bench extra), and print the ratios to it")
    args = parser.parse_args(argv)
    rows: list[BenchRow] = []

    def add(row: BenchRow) -> None:
        """Keep ``row`` for the final table and print its line now."""
        rows.append(row)
        print(format_table([row]).splitlines()[-1], flush=True)

    references = [bench for flag, bench in ((args.openspiel, bench_openspiel),
                                            (args.rlcard, bench_rlcard)) if flag]
    for bench in references:
        try:
            add(bench(args.seconds))
        except RuntimeError as error:
            parser.error(str(error))
    for preset in args.presets:
        for players in args.players:
            for batch in args.batches:
                if batch < 1:
                    parser.error(f"--batches: batch size {batch} must be >= 1")
                add(bench_one(preset, players, batch, args.seconds))
                if args.vector:
                    add(bench_vector(preset, players, batch, args.seconds))
            if args.aec:
                add(bench_aec(preset, players, args.seconds))
    _summary(rows, args, len(references))
    return 0


def _summary(rows: list[BenchRow], args: argparse.Namespace, references: int) -> None:
    """The whole table, the vector env's shares, the ratios to each reference engine and
    the thinking players' rows, as asked."""
    print()
    print(format_table(rows))
    if args.vector:
        print()
        print(format_vector_shares(rows))
    for reference in rows[:references]:
        print()
        print(format_ratios(rows, reference))
    if args.agents:
        _agent_rows(args.presets, args.players, args.seconds)


def _agent_rows(presets: list[str], players: list[int], seconds: float) -> None:
    """Time the thinking players (``eval.agent_bench``) and print their table."""
    from eval.agent_bench import bench_agents, format_agent_rows

    rows = []
    for preset in presets:
        for count in players:
            rows += bench_agents(preset, count, [1, 256], [32, 128, 512], seconds)
    print()
    print(format_agent_rows(rows))
