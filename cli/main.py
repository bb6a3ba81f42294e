"""The ``zolik`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module of this package and is imported only when it
runs, so ``zolik --help`` stays fast and loads no training libraries.
A subcommand module exposes ``main(argv: list[str]) -> int``. A ``ValueError`` or
``OSError`` that escapes one (bad input, a path that cannot be written), or a
``SystemExit`` with a message (a subcommand refusing its arguments), ends the command
with one line, ``zolik COMMAND: message``, and exit status 2; ``ZOLIK_DEBUG=1`` shows the
traceback of the former instead. A closed stdout (``zolik replay FILE | head``) ends the
command quietly with status 141, as a process that SIGPIPE ended.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "main": ("cli.main_job", "the README's main job: train PPO ~9 min, evaluate vs baselines"),
    "rules": ("cli.rules", "show presets and options, check melds and openings"),
    "bench": ("cli.bench", "throughput of the batched Žolík core (a table)"),
    "bench-env": ("cli.bench_env", "throughput of the Žolík VecEnv vs the raw core"),
    "replay": ("cli.replay", "print a recorded Žolík game (JSONL) turn by turn"),
    "play": ("cli.play", "play against the kit's agents in the browser (a local web table)"),
    "bench-play": ("cli.bench_play", "how fast a bot's move reaches the web table (a table)"),
    "train": ("cli.train", "PPO self-play training from a YAML config; --resume a run"),
    "eval": ("cli.eval", "duplicate-deal evaluation of agents: intervals, ratings, report"),
    "strength": ("cli.strength", "agent strength on duplicate deals: heuristic pairs, a PPO run"),
    "dice": ("cli.dice", "Pět kostek: exact solver, optimal play, PPO vs optimum, benchmark"),
    "exit": ("cli.exit", "expert iteration: distil a search's moves into a trained network"),
    "export": ("cli.export", "package a trained run as pretrained:NAME; --list the bots that ship"),
    "configs": ("cli.configs", "list the packaged YAML configs (usable by name: --config cz_2p)"),
}


def version() -> str:
    """The installed distribution's version (package metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("zolik")
    except PackageNotFoundError:
        return "unknown (not installed: bash scripts/setup.sh)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik",
        description="Reinforcement-learning kit for the rummy Žolík and the dice game Pět kostek.",
        epilog="Run `zolik COMMAND --help` for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"zolik {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    if argv[0] == "--version":
        print(f"zolik {version()}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        parser.error(f"unknown command {name!r}; choose from {', '.join(SUBCOMMANDS)}")
    module = importlib.import_module(SUBCOMMANDS[name][0])
    try:
        return int(module.main(rest) or 0)
    except BrokenPipeError:  # the reader went away (``zolik replay FILE | head``): quietly
        return closed_pipe()
    except (ValueError, OSError) as error:  # bad input or an unwritable path: one line
        if os.environ.get("ZOLIK_DEBUG"):
            raise
        print(f"zolik {name}: {error}", file=sys.stderr)
        return 2
    except SystemExit as stop:  # a subcommand's refusal of its arguments: one line too
        if not isinstance(stop.code, str):
            raise
        message = stop.code if stop.code.startswith("zolik ") else f"zolik {name}: {stop.code}"
        print(message, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"zolik {name}: interrupted", file=sys.stderr)
        return 130


def closed_pipe() -> int:
    """End quietly when stdout's reader has gone: point stdout at /dev/null so that the
    interpreter's last flush raises nothing, and exit 141 as a process ended by SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        pass
    finally:
        os.close(devnull)
    return 141


if __name__ == "__main__":
    sys.exit(main())
