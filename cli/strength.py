"""``zolik strength``: how strong the agents are, on duplicate deals.

    zolik strength pairs --deals 300                 # greedy vs random, planner vs greedy
    zolik strength ppo --run runs/ppo_cz2p__1__...   # a PPO run against greedy and planner
    zolik strength ppo --train-minutes 58            # train on --config first, then the same

Only parses arguments, then calls ``eval.strength`` (heuristic pairs, a Markdown table)
or ``train.strength.benchmark`` (PPO, which writes ``strength.json`` into the run dir).
"""

from __future__ import annotations

import argparse
import pathlib
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zolik strength",
                                     description="Agent strength on duplicate deals.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    pairs = sub.add_parser("pairs", help="heuristic agents against each other (a table)")
    pairs.add_argument("--deals", type=int, default=100, help="deals per cell (default 100)")
    pairs.add_argument("--presets", default="cz,sk,jolly", help="comma-separated presets")
    pairs.add_argument("--players", default="2,4", help="comma-separated player counts")
    pairs.add_argument("--pairs", default="greedy:random,planner:greedy",
                       help="comma-separated A:B agent pairs")
    ppo = sub.add_parser("ppo", help="a PPO run's checkpoint against baselines")
    ppo.add_argument("--run", help="run dir to evaluate (its final.zip or newest checkpoint)")
    ppo.add_argument("--train-minutes", type=float,
                     help="first train on --config for this many minutes")
    ppo.add_argument("--config", default="cz_2p", help="YAML file or packaged config name")
    ppo.add_argument("--deals", type=int, default=400, help="duplicate deals per baseline")
    ppo.add_argument("--opponents", nargs="+", default=["greedy", "planner"])
    ppo.add_argument("--play", nargs="+", default=["sample", "argmax"],
                     choices=["sample", "argmax"],
                     help="how the checkpoint plays: sampling its moves and/or always its "
                          "most likely move (default both)")
    return parser


def cmd_pairs(args: argparse.Namespace) -> int:
    from eval.strength import table_lines

    pairs = [tuple(pair.split(":")) for pair in args.pairs.split(",")]
    if any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"--pairs takes A:B pairs, got {args.pairs!r}")
    players = [int(p) for p in args.players.split(",")]
    for line in table_lines(args.deals, args.presets.split(","), players, pairs):
        print(line, flush=True)
    return 0


def cmd_ppo(args: argparse.Namespace) -> int:
    from train.strength import benchmark, train_run

    if args.train_minutes:
        from cli.configs import resolve_config

        try:
            config = resolve_config(args.config, "ppo")
        except ValueError as error:
            raise SystemExit(f"zolik strength ppo: {error}") from None
        run_dir = train_run(config, args.train_minutes)
    elif args.run:
        run_dir = pathlib.Path(args.run)
    else:
        raise SystemExit("zolik strength ppo: give --run RUN_DIR or --train-minutes N")
    benchmark(run_dir, args.deals, args.opponents, args.play)
    return 0


COMMANDS = {"pairs": cmd_pairs, "ppo": cmd_ppo}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
