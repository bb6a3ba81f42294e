"""``zolik train``: PPO self-play from a config, or continue a run.

    zolik train --config cz_2p [--set total_steps=100000 --set seed=2]
    zolik train --resume runs/ppo_cz2p__1__20260101-120000 [--minutes 30]
    zolik train --backend rllib [--config rllib/cz_2p] [--address auto]

``--backend sb3`` (the default) is the SB3 recipe (``train.ppo``); ``--backend rllib`` is
RLlib's PPO on Ray (``train.rllib.ppo``, the ``[ray]`` extra; its configs are
``configs/rllib/``). ``--resume`` finds the backend from the run dir.

``--resume`` continues from the newest checkpoint that loads (a damaged one is skipped
with a warning) and drops the log rows written after it, so each step is logged once.

Only parses arguments, then calls ``train.ppo.run``. ``--config`` takes a YAML path or
the name of a packaged config (``zolik configs`` lists them). A resumed run keeps its
``config.yaml``; ``--minutes`` limits this session's wall clock without changing it.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

from cli.configs import resolve_config
from train.config import PPOConfig, load_config, parse_overrides
from train.ppo import read_config, run
from train.runlog import checkpoints

BACKENDS = ("sb3", "rllib")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik train", description="PPO self-play for Žolík: sb3-contrib MaskablePPO "
                                        "(default) or RLlib's PPO on Ray (--backend rllib).")
    parser.add_argument("--backend", choices=BACKENDS, default="sb3",
                        help="sb3: MaskablePPO on the batched VecEnv (default); rllib: "
                             "RLlib's PPO on Ray (env runners scale with env_runners)")
    parser.add_argument("--config", default="cz_2p",
                        help="YAML file or packaged config name (default cz_2p, from "
                             "configs/ppo or, with --backend rllib, configs/rllib)")
    parser.add_argument("--address", metavar="auto|HOST:PORT",
                        help="rllib: the Ray cluster to run on (shorthand for "
                             "--set address=...); default a local Ray instance")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", dest="overrides",
                        help="override a config key (YAML value); repeatable")
    parser.add_argument("--seed", type=int, help="shorthand for --set seed=N")
    parser.add_argument("--minutes", type=float,
                        help="wall-clock budget of this session (overrides time_budget_minutes)")
    parser.add_argument("--resume", metavar="RUN_DIR",
                        help="continue this run from its newest intact checkpoint, same config")
    parser.add_argument("--restart", action="store_true",
                        help="with --resume: a run dir without checkpoints trains from step 0")
    return parser


def resume_dir(path: str, restart: bool, command: str = "train") -> pathlib.Path:
    """The run dir to resume, after checking it has a config and a checkpoint (or
    ``restart``); otherwise one line naming what is missing (``zolik COMMAND: ...``)."""
    run_dir = pathlib.Path(path)
    if command == "train" and is_rllib_run(run_dir):
        from agents.learned.rllib_policy import checkpoints_of

        if not checkpoints_of(run_dir) and not restart:
            raise SystemExit(f"zolik {command}: {path} has no checkpoint to resume from; "
                             f"--restart trains it from iteration 0 with its config")
        return run_dir
    if not (run_dir / "config.yaml").is_file():
        raise SystemExit(f"zolik {command}: {path} is not a run dir (no config.yaml)")
    if not checkpoints(run_dir / "checkpoints") and not restart:
        raise SystemExit(f"zolik {command}: {path} has no checkpoint to resume from; "
                         f"--restart trains it from step 0 with its config.yaml")
    return run_dir


def load_ppo_config(command: str, config: str, overrides: dict[str, Any],
                    seed: int | None) -> PPOConfig:
    """The PPO config named or found at ``config`` with ``overrides`` (and ``seed``) on top;
    a bad name, key or value ends ``zolik COMMAND`` with one line, no traceback."""
    if seed is not None:
        overrides = {**overrides, "seed": seed}
    try:
        return load_config(resolve_config(config, "ppo"), overrides)
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(f"zolik {command}: {error}") from None


def is_rllib_run(run_dir: pathlib.Path) -> bool:
    """Whether ``run_dir`` was written by the RLlib backend (it has its config file)."""
    return (run_dir / "rllib_config.yaml").is_file()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.minutes is not None and args.minutes <= 0:
        raise SystemExit(f"zolik train: --minutes must be positive, got {args.minutes:g}")
    if args.restart and not args.resume:
        raise SystemExit("zolik train: --restart goes with --resume RUN_DIR")
    if args.resume and (args.overrides or args.seed is not None):
        given = [*(args.overrides or []), *([f"seed={args.seed}"] if args.seed is not None
                                            else [])]
        raise SystemExit(f"zolik train: --resume keeps the run's config: drop "
                         f"{', '.join(given)} (--set/--seed are not allowed with it)")
    rllib_run = bool(args.resume) and is_rllib_run(pathlib.Path(args.resume))
    if args.resume and args.backend == "rllib" and not rllib_run:
        raise SystemExit(f"zolik train: {args.resume} is not a run of --backend rllib (no "
                         f"rllib_config.yaml); resume it without --backend")
    if args.address is not None and not (args.backend == "rllib" or rllib_run):
        raise SystemExit(f"zolik train: --address {args.address} goes with --backend rllib "
                         f"(the sb3 backend runs on this machine)")
    if args.backend == "rllib" or rllib_run:
        return train_rllib(args)
    if args.resume:
        run_dir: pathlib.Path | None = resume_dir(args.resume, args.restart)
        cfg = read_config(run_dir)
    else:
        run_dir = None
        cfg = load_ppo_config("train", args.config, parse_overrides(args.overrides), args.seed)
    try:
        result = run(cfg, run_dir, minutes=args.minutes)
    except OSError as error:  # a full disk or a read-only run_root: one line
        raise SystemExit(f"zolik train: {error}") from None
    rewound = (f" (stopped inside a rollout at step {result.played:,}: the checkpoint keeps "
               f"the rollout's start, which a resumed run plays again)"
               if result.played > result.steps else "")
    print(f"{result.run_dir}: {result.steps:,} steps in {result.seconds:.0f} s{rewound}; "
          f"last checkpoint {result.final}")
    return 0


def train_rllib(args: argparse.Namespace) -> int:
    """``zolik train --backend rllib``: the config (or the run dir's), then
    ``train.rllib.ppo.run``; a missing extra, a bad value or an unreachable cluster ends
    in one line."""
    try:
        import ray.rllib  # noqa: F401  (RLlib and what it needs: the [ray] extra)

        from train.rllib import ppo as rllib_ppo
    except ImportError:
        raise SystemExit("zolik train: --backend rllib needs the [ray] extra: "
                         "pip install -e '.[ray]' (scripts/setup.sh installs it)") from None
    overrides = parse_overrides(args.overrides)
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.address is not None:
        overrides["address"] = args.address
    try:
        if args.resume:
            run_dir: pathlib.Path | None = resume_dir(args.resume, args.restart)
            assert run_dir is not None
            cfg = rllib_ppo.read_config(run_dir)
            if args.address is not None:
                cfg = cfg.model_copy(update={"address": args.address})
        else:
            run_dir = None
            cfg = rllib_ppo.load_config(resolve_config(args.config, "rllib"), overrides)
        result = rllib_ppo.run(cfg, run_dir, minutes=args.minutes)
    except (ValueError, FileNotFoundError, RuntimeError, OSError) as error:
        raise SystemExit(f"zolik train: {error}") from None
    print(f"{result.run_dir}: {result.iterations} iterations, {result.env_steps} env steps "
          f"in {result.seconds:.0f} s; last checkpoint {result.final}; plays as "
          f"rllib:{result.run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
