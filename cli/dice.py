"""``zolik dice``: exact solver, agent evaluation, benchmark and PPO training for Pět kostek.

The parsers only parse; each subcommand calls one function of the kit. Training and
the PPO agent are imported only when asked for (they need torch and sb3-contrib), so
``zolik dice solve`` loads neither.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cli.args import positive_float, positive_int
from zolik_env.dice.rules import JOKERS, DiceRules

EPILOG = """examples:
  zolik dice solve --joker forced              expected optimal score, cached on disk
  zolik dice solve --all                       the table for every joker rule and option
  zolik dice eval --agent optimal --games 100000 --joker forced
  zolik dice eval --agent ppo:runs/dice__1__X --joker forced --compare
  zolik dice bench --batch 1 4096
  zolik dice train --config ppo_forced                packaged config (zolik configs)
  zolik dice curve runs/dice__1__X --games 5000       every checkpoint, likeliest moves
"""


def _add_rules_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--joker", choices=JOKERS, default="none",
                        help="joker rule (default: none, the standard game here)")  # fmt: skip
    parser.add_argument("--no-bonus", action="store_true", help="drop the +100 Yahtzee bonus")
    parser.add_argument("--fixed-order", action="store_true",
                        help="boxes are filled top to bottom, no choice")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik dice",
        description="Pět kostek: exact solver, agent evaluation, benchmark and PPO training.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    solve = sub.add_parser("solve", help="expected score of optimal solitaire classic play")
    _add_rules_args(solve)
    solve.add_argument("--all", action="store_true", help="every joker rule, bonus on and off")
    ev = sub.add_parser("eval", help="play N solitaire games with an agent; mean ± 95%% CI")
    ev.add_argument("--agent", default="optimal",
                    help="optimal | random | ppo:PATH (a .zip or a run dir)")
    ev.add_argument("--games", type=positive_int, default=10_000,
                    help="number of games (default 10000)")
    ev.add_argument("--seed", type=int, default=0, help="seed of the game stream (default 0)")
    ev.add_argument(
        "--compare",
        action="store_true",
        help="also play the optimal agent on the same game seeds; per-box differences",
    )
    ev.add_argument("--json", help="write the summary to this JSON file")
    _add_rules_args(ev)
    bench = sub.add_parser("bench", help="env decisions/s at several batch sizes")
    bench.add_argument("--batch", type=positive_int, nargs="+", default=[1, 4096],
                       help="batch sizes")
    bench.add_argument("--seconds", type=positive_float, default=2.0, help="time per cell")
    train = sub.add_parser("train", help="MaskablePPO on solitaire (train.dice.ppo)")
    train.add_argument("--config", default="ppo_forced",
                       help="YAML file or packaged config name (default ppo_forced)")
    train.add_argument("--seed", type=int, help="override the config's seed")
    train.add_argument("--minutes", type=positive_float, help="override time_budget_minutes")
    train.add_argument("--resume", help="continue the run in this run dir")
    train.add_argument("--restart", action="store_true",
                       help="with --resume: a run dir without checkpoints trains from step 0")
    curve = sub.add_parser("curve", help="play every checkpoint of a training run greedily; "
                                         "greedy_curve.csv and learning_curve.png in the run dir")
    curve.add_argument("run_dir", help="a run dir of zolik dice train")
    curve.add_argument("--games", type=positive_int, default=5000,
                       help="games per checkpoint, the same dice for each (default 5000)")
    curve.add_argument("--seed", type=int, default=0, help="seed of the game stream (default 0)")
    return parser


def _rules(args: argparse.Namespace) -> DiceRules:
    return DiceRules(joker=args.joker, yahtzee_bonus=not args.no_bonus,
                     fixed_order=args.fixed_order)  # fmt: skip


def _say(text: str) -> None:
    """A progress line on stderr (the results go to stdout)."""
    print(f"[zolik dice] {text} ...", file=sys.stderr, flush=True)


def _solve(rules: DiceRules) -> float:
    """The variant's optimal expected score; a bar on stderr while a table is solved (the
    first time: 10-30 s; then read from the cache)."""
    from tqdm import tqdm

    from zolik_env.dice import solver

    variant = (rules.joker, rules.yahtzee_bonus, rules.fixed_order)
    if not solver.table_path(*variant).exists():
        desc = (f"solving joker={rules.joker} bonus={rules.yahtzee_bonus} "
                f"fixed={rules.fixed_order}")
        with tqdm(desc=desc, unit="state", file=sys.stderr, leave=False) as bar:
            def advance(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            solver.ensure_table(*variant, progress=advance)
    return solver.expected_score(*variant)


def _play(rules: DiceRules, agent: Any, games: int, seed: int, name: str) -> Any:
    """``play_dice`` with a bar of games played on stderr."""
    from tqdm import tqdm

    from eval.harness import play_dice

    with tqdm(total=games, desc=f"playing {name}", unit="game", file=sys.stderr,
              leave=False) as bar:
        return play_dice(rules, agent, games, seed, progress=lambda done: bar.update(
            done - bar.n))


def cmd_solve(args: argparse.Namespace) -> int:
    from zolik_env.dice import solver

    variants = [(args.joker, not args.no_bonus, args.fixed_order)]
    if args.all:
        variants = [(j, b, f) for f in (False, True) for b in (True, False) for j in JOKERS]
    print(f"{'joker':<8}{'bonus':<7}{'fixed':<7}{'expected':>10}{'seconds':>9}")
    for joker, bonus, fixed in variants:
        start = time.perf_counter()
        value = _solve(DiceRules(joker=joker, yahtzee_bonus=bonus, fixed_order=fixed))
        took = time.perf_counter() - start
        print(f"{joker:<8}{bonus!s:<7}{fixed!s:<7}{value:>10.4f}{took:>9.2f}")
    print(f"(tables cached in {solver.cache_dir()})")
    return 0


def make_agent(spec: str, rules: DiceRules) -> Any:
    """``optimal``, ``random`` or ``ppo:PATH`` -> an agent with ``act_batch``."""
    from agents.dice.players import OptimalAgent, PPOAgent, RandomAgent

    if spec == "optimal":
        return OptimalAgent(rules)
    if spec == "random":
        return RandomAgent()
    if spec.startswith("ppo:"):
        return PPOAgent(spec[4:])
    raise ValueError(f"unknown agent {spec!r}: use optimal, random or ppo:PATH")


def cmd_eval(args: argparse.Namespace) -> int:
    from zolik_env.dice import evaluate, solver

    rules = _rules(args)
    agent = make_agent(args.agent, rules)  # a bad spec fails before the solver runs
    _say(f"solving the optimal tables for {rules} (about 30 s the first time; then cached in "
         f"{solver.cache_dir()})")
    optimum = _solve(rules)
    start = time.perf_counter()
    _say(f"playing {args.games} games with {args.agent}")
    stats = _play(rules, agent, args.games, args.seed, args.agent)
    summary = evaluate.summarise(stats, optimum) | {
        "agent": args.agent,
        "seconds": time.perf_counter() - start,
    }
    reference = None
    if args.compare:
        _say(f"playing the same {args.games} games with optimal")
        ref_stats = _play(rules, make_agent("optimal", rules), args.games, args.seed,
                          "optimal")
        reference = evaluate.summarise(ref_stats, optimum)
        summary["optimal_on_same_dice"] = reference
    print(f"agent {args.agent}, rules {rules}")
    print(evaluate.format_summary(summary, reference))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from zolik_env.dice import bench

    print("env decisions/s (legal_action_mask + step, random legal actions, one process)")
    print(bench.table(tuple(args.batch), args.seconds))
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from train.dice import ppo as dice_ppo

    if args.restart and not args.resume:
        raise SystemExit("zolik dice train: --restart goes with --resume RUN_DIR")
    if args.resume:
        from cli.train import resume_dir

        run_dir = resume_dir(args.resume, args.restart, "dice train")
        cfg = dice_ppo.load_config(run_dir / "config.yaml", time_budget_minutes=args.minutes)
        print(dice_ppo.run(cfg, run_dir))
    else:
        from cli.configs import resolve_config

        try:
            path = resolve_config(args.config, "dice")
        except ValueError as error:
            raise SystemExit(f"zolik dice train: {error}") from None
        cfg = dice_ppo.load_config(path, seed=args.seed, time_budget_minutes=args.minutes)
        print(dice_ppo.run(cfg))
    return 0


def cmd_curve(args: argparse.Namespace) -> int:
    from train.dice.curve import CURVE_CSV, CURVE_PNG, curve

    try:
        rows = curve(args.run_dir, args.games, args.seed, _say)
    except ValueError as error:
        raise SystemExit(f"zolik dice curve: {error}") from None
    print(f"{'steps':>10}{'minutes':>9}{'mean':>9}{'ci95':>7}{'of optimum':>12}")
    for row in rows:
        print(f"{row['steps']:>10}{row['minutes']:>9.1f}{row['mean']:>9.2f}{row['ci95']:>7.2f}"
              f"{100 * row['fraction_of_optimum']:>11.2f}%")
    print(f"written: {args.run_dir}/{CURVE_CSV}, {args.run_dir}/{CURVE_PNG}")
    return 0


COMMANDS = {"solve": cmd_solve, "eval": cmd_eval, "bench": cmd_bench, "train": cmd_train,
            "curve": cmd_curve}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
