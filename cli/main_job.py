"""``zolik main``: train PPO by self-play for a short budget, evaluate it, print the table.

    zolik main                       # ~9 min of training on the default config, then evaluation
    zolik main --minutes 3 --deals 50
    zolik main --steps 20000         # stop at a step count instead (still capped by --minutes)

Steps: (1) ``train.ppo.run`` on the packaged ``cz_2p`` config (``--config`` takes a name
or a YAML path; ``zolik configs`` lists the names) with a wall-clock budget and
denser snapshots, checkpoints and evaluations than the hour-long config; (2) the final
checkpoint plays ``--deals`` duplicate deals against each baseline (``eval.harness``) on
held-out seeds, distinct from both training deals and the periodic evaluations; (3) the
table is printed and saved (``final_eval.csv``/``.json``), with the learning curve
(``learning_curve.png``) and the time profile, in the run dir. The defaults finish in
about 10 minutes on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cli.train import load_ppo_config
from train.config import PPOConfig, parse_overrides
from train.evaluate import (
    FIELDS,
    PLAY_MODES,
    append_rows,
    evaluate_checkpoint,
    format_table,
    plot_curve,
    verdict,
)
from train.ppo import RunResult, run
from zolik_env.seeds import EVAL_SEED_START

FINAL_SEED_START = EVAL_SEED_START + 1_000_000  # final evaluation deals: after the periodic ones
SHORT_RUN = ["snapshot_every=25000", "checkpoint_every=50000", "eval_every=60000",
             "eval_deals=16", "teacher_decisions=150000", "teacher_epochs=3"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zolik main", description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="cz_2p",
                        help="PPO YAML file or packaged config name (default cz_2p)")
    parser.add_argument("--minutes", type=float, default=9.0,
                        help="training wall clock incl. periodic evaluation (default 9)")
    parser.add_argument("--steps", type=int,
                        help="stop training at this many learner steps (one rollout or more)")
    parser.add_argument("--deals", type=int, default=100,
                        help="duplicate deals per baseline in the final evaluation")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy", "planner"],
                        help="baselines of the final evaluation")
    parser.add_argument("--seed", type=int, help="training seed (default: the config's)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", dest="overrides",
                        help="further config overrides (YAML values)")
    return parser


def main_config(args: argparse.Namespace) -> PPOConfig:
    """The config of the main job's run (the short-run settings on top), checked."""
    overrides = parse_overrides(SHORT_RUN + (args.overrides or []))
    overrides["time_budget_minutes"] = args.minutes
    if args.steps is not None:
        overrides["total_steps"] = args.steps
    cfg = load_ppo_config("main", args.config, overrides, args.seed)
    rollout = cfg.num_envs * cfg.n_steps
    if args.steps is not None and args.steps < rollout:
        raise SystemExit(f"zolik main: --steps {args.steps} is less than one rollout "
                         f"(num_envs {cfg.num_envs} x n_steps {cfg.n_steps} = {rollout} "
                         f"learner steps), so no update would run: give --steps {rollout} "
                         f"or more")
    return cfg


def final_evaluation(result: RunResult, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The final checkpoint against each baseline; rows saved next to the config."""
    from train.ppo import read_config

    cfg = read_config(result.run_dir)
    rows = evaluate_checkpoint(result.final, cfg.rules(), args.opponents, args.deals,
                               result.steps, cfg.seed, FINAL_SEED_START, PLAY_MODES,
                               progress=cfg.progress)
    append_rows(result.run_dir / "final_eval.csv", rows, (*FIELDS, "play"))
    (result.run_dir / "final_eval.json").write_text(json.dumps(
        {"checkpoint": str(result.final), "steps": result.steps, "seed_start": FINAL_SEED_START,
         "rows": rows}, indent=1))
    return rows


def profile_line(run_dir: Any) -> str:
    """The last logged ``time/*`` values of the run, as one line."""
    import csv

    logs = sorted(run_dir.glob("progress*.csv"))
    rows = list(csv.DictReader(logs[-1].open())) if logs else []
    if not rows:
        return "profile: no rollout finished"
    keys = ("steps_per_s", "env_core_s", "opponents_s", "reference_s", "learner_forward_s",
            "update_s", "eval_s")
    return "profile: " + ", ".join(f"{k}={rows[-1].get(f'time/{k}', '?')}" for k in keys)


def check_numbers(args: argparse.Namespace) -> None:
    if args.deals <= 0:
        raise SystemExit(f"zolik main: --deals must be positive, got {args.deals}")
    if args.minutes <= 0:
        raise SystemExit(f"zolik main: --minutes must be positive, got {args.minutes:g}")


def check_opponents(args: argparse.Namespace, cfg: PPOConfig) -> None:
    """The final evaluation's opponents are built once before minutes of training."""
    from agents.registry import make_agent

    for spec in args.opponents:
        try:
            make_agent(spec, cfg.rules())
        except ValueError as error:
            raise SystemExit(f"zolik main: --opponents: {error}") from None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    check_numbers(args)
    cfg = main_config(args)
    check_opponents(args, cfg)
    start = time.time()
    result = run(cfg)
    print(f"trained {result.steps} steps in {result.seconds / 60:.1f} min: {result.run_dir}")
    print(profile_line(result.run_dir))
    rows = final_evaluation(result, args)
    print(f"\nPPO ({result.final.name}) vs baselines, {args.deals} duplicate deals each, "
          f"held-out seeds from {FINAL_SEED_START}; win share counts ties 1/2, score diff is "
          f"points per deal (PPO minus baseline), 95% bootstrap intervals; play: sample = "
          f"moves drawn from the policy as in training, argmax = always its likeliest move:")
    print(format_table(rows))
    for row in rows:
        print(verdict(row))
    if (result.run_dir / "eval.csv").exists():
        curve = plot_curve(result.run_dir / "eval.csv", result.run_dir / "learning_curve.png")
        print(f"learning curve: {curve}")
    print(f"total {(time.time() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
