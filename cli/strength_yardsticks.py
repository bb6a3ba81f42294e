"""``zolik strength exploit`` and ``zolik strength oracle``: how far agents are from strong
play (``docs/yardsticks.md``).

    zolik strength exploit --agent planner --minutes 60 --seed 1      # best response + curve
    zolik strength exploit --agent pimc:rollouts=32 --minutes 60 --reference RUN_DIR
    zolik strength exploit --agent planner --run RUN_DIR --no-reference  # evaluate a run
    zolik strength oracle --presets cz,sk,jolly --deals 1000 --pimc-deals 200

Only parses arguments, then calls ``train.best_response`` (the training recipe),
``eval.exploit`` (margins, curve, report) and ``eval.oracle_strength``.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import sys
from typing import Any

STEPS_UNBOUNDED = 10**12  # a best response's total_steps unless --set: its minutes end it


def add_parsers(sub: Any) -> None:
    exploit = sub.add_parser(
        "exploit", help="a best response trained against a frozen agent, and its margin",
        description="Train PPO against the agent alone (warm start: not the agent), then "
                    "its margin over the agent on held-out duplicate deals with the 95% "
                    "interval, the learning curve (table and plot), and the same margin "
                    "of a best response to the planner as the reference.")
    exploit.add_argument("--agent", required=True, help="the target's spec (planner, "
                         "pimc:rollouts=32, pretrained:cz_2p, ppo:PATH, ...)")
    exploit.add_argument("--minutes", type=float, default=60.0,
                         help="training budget per best response, warm start included (the "
                              "run stops at the minutes, not at the config's total_steps)")
    exploit.add_argument("--preset", default="cz")
    exploit.add_argument("--players", type=int, default=2)
    exploit.add_argument("--config", help="PPO config (default: the packaged PRESET_Np)")
    exploit.add_argument("--seed", type=int, help="training seed (default: the config's)")
    exploit.add_argument("--set", action="append", metavar="KEY=VALUE", dest="overrides",
                         help="override a config value (repeatable), e.g. torch_threads=1")
    exploit.add_argument("--teacher", help="warm start (default greedy; planner for a greedy "
                         "target; \"\" for none); never the target's family")
    exploit.add_argument("--run", help="evaluate this best-response run instead of training")
    exploit.add_argument("--deals", type=int, default=2000, help="held-out duplicate deals "
                         "for the margins (default 2000)")
    exploit.add_argument("--curve-deals", type=int, default=200,
                         help="deals per point of the learning curve (default 200)")
    exploit.add_argument("--curve-points", type=int, default=6,
                         help="checkpoints on the learning curve (default 6)")
    exploit.add_argument("--checkpoint-every", type=int, default=50_000,
                         help="learner steps between checkpoints, the curve's grain")
    ref = exploit.add_mutually_exclusive_group()
    ref.add_argument("--reference", metavar="RUN_DIR",
                     help="reuse this best response to the planner as the reference")
    ref.add_argument("--no-reference", action="store_true", help="skip the reference")
    exploit.add_argument("--workers", type=int, default=1, help="processes for the deals")
    exploit.add_argument("--out", help="folder for the report (default: the run dir; its "
                         "exploit.json is also kept in the run dir, where zolik export "
                         "--best-response reads it)")
    oracle = sub.add_parser(
        "oracle", help="privileged oracles against the same agents: the oracle gap",
        description="oracle:planner against planner and oracle:pimc against pimc with the "
                    "same budget, per preset, on held-out duplicate deals; the oracles see "
                    "every card and are marked privileged.")
    oracle.add_argument("--presets", default="cz,sk,jolly", help="comma-separated presets")
    oracle.add_argument("--players", type=int, default=2)
    oracle.add_argument("--deals", type=int, default=1000,
                        help="duplicate deals for the planner's gap (default 1000)")
    oracle.add_argument("--pimc-deals", type=int, default=100,
                        help="duplicate deals for pimc's gap (default 100)")
    oracle.add_argument("--pimc", default="rollouts=16",
                        help="pimc's argument for both sides (default rollouts=16); none: skip")
    oracle.add_argument("--workers", type=int, default=1, help="processes for the deals")
    oracle.add_argument("--out", default="runs/oracle_strength", help="folder for the results")


def _fail(command: str, message: str) -> SystemExit:
    return SystemExit(f"zolik strength {command}: {message}")


def _check_counts(args: argparse.Namespace, command: str, flags: tuple[str, ...]) -> None:
    for flag in flags:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        if not value > 0:
            raise _fail(command, f"{flag} must be positive, got {value:g}")


def _target_rules(args: argparse.Namespace) -> tuple[Any, pathlib.Path | None]:
    """The best response's config (trained or read) and its run dir, if it exists yet."""
    from cli.train import load_ppo_config
    from train.best_response import config_for, target_of
    from train.config import parse_overrides

    if args.run:
        run_dir = pathlib.Path(args.run)
        if not (run_dir / "config.yaml").is_file():
            raise _fail("exploit", f"{run_dir} is not a run dir (no config.yaml)")
        stored = target_of(run_dir)
        if stored is not None and stored != args.agent:
            raise _fail("exploit", f"{run_dir} is a best response to {stored!r}, not "
                                   f"{args.agent!r}")
        from train.ppo import read_config

        cfg = read_config(run_dir)
        _check_agent(args.agent, cfg.rules())
        return cfg, run_dir
    try:
        overrides = parse_overrides(args.overrides)
    except ValueError as error:
        raise _fail("exploit", str(error)) from None
    # the minutes bound a best response: the config's step count would end an hour's run
    # after a third of it on a fast machine (--set total_steps=N bounds it by steps too)
    overrides.setdefault("total_steps", STEPS_UNBOUNDED)
    base = load_ppo_config("strength exploit", args.config or f"{args.preset}_{args.players}p",
                           overrides, args.seed)
    _check_agent(args.agent, base.rules())
    try:
        return config_for(base, args.agent, args.minutes, args.teacher,
                          args.checkpoint_every), None
    except ValueError as error:
        raise _fail("exploit", str(error)) from None


def _check_agent(spec: str, rules: Any) -> None:
    from agents.registry import is_privileged_spec, make_agent

    if is_privileged_spec(spec):
        raise _fail("exploit", f"--agent {spec!r} is an oracle: it sees every card and "
                               f"cannot be trained against")
    try:
        make_agent(spec, rules)
    except ValueError as error:
        raise _fail("exploit", str(error)) from None


def _wants_reference(args: argparse.Namespace) -> bool:
    """Whether the command measures a reference (none when the target is the planner)."""
    return not args.no_reference and args.agent != "planner"


def _reference(args: argparse.Namespace, cfg: Any, rules: Any, previous: Any) -> Any:
    """The reference margin (a best response to the planner), or None."""
    from eval.exploit import step_of
    from train.best_response import config_for, train

    if not _wants_reference(args):
        return None
    if args.reference:
        ref_dir = pathlib.Path(args.reference)
    else:
        print("training the reference: a best response to the planner", file=sys.stderr)
        ref_dir = train(config_for(cfg, "planner", cfg.time_budget_minutes, args.teacher,
                                   cfg.checkpoint_every), "planner")
    last = _final(ref_dir)
    return _margin(rules, f"ppo:{last}", "planner", args, step_of(last), previous)


def _margin(rules: Any, agent: str, target: str, args: argparse.Namespace, step: int,
            previous: Any) -> Any:
    """The held-out margin, kept from an earlier report of the same measurement if any."""
    from eval.exploit import EXPLOIT_SEED_START, margin, reuse

    kept = reuse(previous, agent, target, args.deals, step, EXPLOIT_SEED_START)
    if kept is not None:
        print(f"kept from the earlier report: {agent} against {target}", file=sys.stderr)
        return kept
    return margin(rules, agent, target, args.deals, EXPLOIT_SEED_START, args.workers, step)


def _final(run_dir: pathlib.Path) -> pathlib.Path:
    from agents.learned.ppo import resolve_checkpoint

    try:
        return resolve_checkpoint(run_dir)
    except FileNotFoundError as error:
        raise _fail("exploit", str(error)) from None


def cmd_exploit(args: argparse.Namespace) -> int:
    """Train (unless ``--run``), then measure the margin, the curve and the reference. The
    report is rewritten after each measurement, and a repeated command keeps what an
    earlier report in the same folder measured, so a stopped run loses no point."""
    from eval.exploit import curve, kept, report, step_of
    from train.best_response import train

    _check_counts(args, "exploit", ("--minutes", "--deals", "--curve-deals", "--curve-points",
                                    "--checkpoint-every", "--workers"))
    if args.reference and not (pathlib.Path(args.reference) / "config.yaml").is_file():
        raise _fail("exploit", f"--reference {args.reference} is not a run dir (no config.yaml)")
    cfg, run_dir = _target_rules(args)
    rules = cfg.rules()
    if run_dir is None:
        run_dir = train(cfg, args.agent)
    out = pathlib.Path(args.out) if args.out else run_dir
    previous = kept(out)
    last = _final(run_dir)
    final = _margin(rules, f"ppo:{last}", args.agent, args, step_of(last), previous)
    print(f"best response to {args.agent}: {final.interval()} points per deal on "
          f"{final.deals} held-out duplicate deals", flush=True)
    note = (f"Run `{run_dir}`: {cfg.preset} {cfg.players}p, seed {cfg.seed}, budget "
            f"{cfg.time_budget_minutes:g} minutes, warm start {cfg.teacher or 'none'!r}, "
            f"pool {cfg.pool}.")
    pending = _wants_reference(args)
    report(final, [], None, out, note, pending)
    rows = curve(rules, run_dir, args.agent, args.curve_deals, args.curve_points, args.workers,
                 log=lambda line: print(line, file=sys.stderr, flush=True), previous=previous,
                 on_point=lambda so_far: report(final, so_far, None, out, note, pending))
    reference = _reference(args, cfg, rules, previous)
    page = report(final, rows, reference, out, note)
    if out.resolve() != run_dir.resolve():  # the run keeps its margin for export
        shutil.copyfile(out / "exploit.json", run_dir / "exploit.json")
    print(page.read_text(encoding="utf-8"))
    return 0


def cmd_oracle(args: argparse.Namespace) -> int:
    from eval.oracle_strength import measure, table, write
    from zolik_env.rummy import rules

    _check_counts(args, "oracle", ("--deals", "--pimc-deals", "--workers"))
    presets = args.presets.split(",")
    try:
        for name in presets:
            rules.preset(name, num_players=args.players)
    except ValueError as error:
        raise _fail("oracle", str(error)) from None
    pimc = None if args.pimc == "none" else args.pimc
    if pimc is not None:
        from agents.registry import make_agent

        try:
            make_agent(f"pimc:{pimc}" if pimc else "pimc", rules.preset(presets[0]))
        except ValueError as error:
            raise _fail("oracle", f"--pimc {pimc!r}: {error}") from None
    rows = []
    for row in measure(presets, args.players, args.deals, args.pimc_deals, pimc, args.workers,
                       log=lambda line: print(line, file=sys.stderr)):
        rows.append(row)
        path = write(rows, pathlib.Path(args.out))
    print(table(rows))
    print(f"wrote {path}")
    return 0


COMMANDS = {"exploit": cmd_exploit, "oracle": cmd_oracle}
