"""``zolik eval``: duplicate-deal evaluation of agents and checkpoints.

    zolik eval --agents random greedy --preset cz --players 2 --deals 200
    zolik eval --config default --agents random ppo:runs/x/model.zip --sequential
    zolik eval --agents mine=mypkg.mymod:make_agent greedy --workers 2 --record replays/

An agent given as ``package.module:factory`` is imported (the current directory is
searched too): ``factory(rules)`` returns a Policy (``agents.registry``).

Parses the command line into an ``EvalConfig`` (flags override the YAML file), calls
``tournament.run``, prints the agent and pair tables and where the report went.
"""

from __future__ import annotations

import argparse
import os
import sys

from agents.registry import make_agent
from cli.configs import resolve_config
from eval.config import load_config
from eval.report import agent_table, format_text, opponent_table, pair_table, privileged_note
from eval.tournament import run
from zolik_env.rummy.options import PRESETS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zolik eval",
        description="Play agents against each other on duplicate deals (every deal once per "
                    "seat rotation), with bootstrap intervals over deals and openskill "
                    "ratings; writes JSON, CSV, plots and a Markdown/HTML report.")
    p.add_argument("--config", help="YAML file or packaged config name (default); flags override")
    p.add_argument("--agents", nargs="+", metavar="[NAME=]SPEC",
                   help="agent specs: random, greedy, planner[:KEY=VALUE,...] (its weights), "
                        "ppo:PATH, package.module:factory; NAME= sets the name shown in the "
                        "reports")
    p.add_argument("--preset", choices=PRESETS, help="rule preset")
    p.add_argument("--players", type=int, help="seats at the table (2..4)")
    p.add_argument("--deals", type=int, help="duplicate deals per pair of agents")
    p.add_argument("--seed-start", type=int, help="first deal seed (>= 10^9; default 2*10^9)")
    p.add_argument("--seed", type=int, help="seed of the agents' generators and the bootstrap")
    p.add_argument("--workers", type=int, help="processes; 0 = all local cores")
    p.add_argument("--chunk-deals", type=int, help="deals per work unit")
    p.add_argument("--backend", choices=["local", "ray"],
                   help="local worker processes (default) or Ray tasks (the [ray] extra)")
    p.add_argument("--address", help="with --backend ray: auto or HOST:PORT of a Ray head "
                                     "node (default: start a local Ray instance)")
    p.add_argument("--sequential", action="store_true", default=None,
                   help="stop a pair once its interval excludes zero")
    p.add_argument("--out", help="run directory (default runs/eval__...)")
    p.add_argument("--no-plots", dest="plots", action="store_false", default=None,
                   help="skip the plots")
    p.add_argument("--no-progress", dest="progress", action="store_false", default=None,
                   help="hide the progress bar")
    p.add_argument("--record", metavar="DIR",
                   help="write every game played into DIR as a replay file (zolik replay)")
    p.add_argument("--resume", action="store_true", default=None,
                   help="with --out DIR: continue an interrupted run of the same evaluation, "
                        "reading back the chunks it saved")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if os.getcwd() not in sys.path:  # user agents by import path, here and in the workers
        sys.path.append(os.getcwd())
    overrides = {k: v for k, v in vars(args).items() if k != "config"}
    try:
        path = resolve_config(args.config, "eval") if args.config else None
        cfg = load_config(path, **overrides)
    except ValueError as error:
        print(f"zolik eval: {error}", file=sys.stderr)
        return 2
    try:
        rules = cfg.rules()
        for spec in cfg.agents:  # fail fast on unknown specs or unreadable checkpoints
            make_agent(spec, rules)
    except ValueError as error:
        print(f"zolik eval: {error}", file=sys.stderr)
        return 2
    try:
        if cfg.backend == "ray":  # the extra and the cluster, before any deal
            from eval import ray_backend

            ray_backend.start(cfg.address, cfg.workers)
        result = run(cfg)
    except (OSError, RuntimeError, ValueError) as error:  # unwritable report, no cluster
        print(f"zolik eval: {error}", file=sys.stderr)
        return 2
    if note := privileged_note(result):
        print(note)
    print(format_text(*agent_table(result)))
    print()
    print(format_text(*opponent_table(result)))
    print()
    print(format_text(*pair_table(result)))
    print(f"\nreport: {result.out_dir}/report.md (JSON, CSV, plots alongside)")
    if cfg.record:
        print(f"replays: {cfg.record}/*.jsonl (zolik replay FILE)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
