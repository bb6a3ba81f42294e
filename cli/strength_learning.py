"""``zolik strength distil``: what a distillation carries from an expert-iteration round's
labels to labels it was not taught, under other settings (``train.distil_folds``);
``zolik strength suits``: how far an agent's moves follow the suits' names
(``eval.suit_symmetry``).

    zolik strength distil --run runs/exit_cz2p --round 1 --weights 4,8 --repeats plain,renamed
    zolik strength suits --agent pretrained:cz_2p:argmax --decisions 3000

Only parses arguments, then calls ``train.distil_folds`` or ``eval.suit_symmetry``.
"""

from __future__ import annotations

import argparse
import pathlib
from typing import Any


def add_parsers(sub: Any) -> None:
    distil = sub.add_parser(
        "distil", help="an expert-iteration round's labels distilled again, other settings",
        description="Distil a finished round's stored labels again from the round's start "
                    "network, once per setting (deviation weight x how its repeats are "
                    "made) and held-out block; print, per setting, the share of the taught "
                    "corrections the new network plays, and of the held-out corrections "
                    "and kept moves (95% intervals, folds pooled). Labels nothing new.")
    distil.add_argument("--run", required=True, help="the zolik exit folder")
    distil.add_argument("--round", type=int, default=1, help="its round (default 1)")
    distil.add_argument("--weights", default="4",
                        help="deviation weights, comma-separated (default 4)")
    distil.add_argument("--repeats", default="plain,renamed",
                        help="how overruled labels repeat: plain (as they are), renamed "
                             "(in other suits), comma-separated (default both)")
    distil.add_argument("--folds", type=int, default=4,
                        help="held-out blocks, each 5%% of the labels (default 4)")
    distil.add_argument("--epochs", type=int, default=None,
                        help="passes over the labels (default: the run's)")
    suits = sub.add_parser(
        "suits", help="how far an agent's moves follow the suits' names",
        description="The agent plays fresh deals at every seat; at each decision with a "
                    "choice, its move is compared with its move in the same position with "
                    "the suits renamed (four renamings). Prints, per kind of move, the "
                    "share of positions where they agree (a rule-faithful player: 100%, "
                    "up to cards only their suit tells apart).")
    suits.add_argument("--agent", required=True,
                       help="the agent, e.g. pretrained:cz_2p:argmax (its likeliest move), "
                            "planner, suits:net=pretrained:cz_2p,views=24")
    suits.add_argument("--decisions", type=int, default=3000,
                       help="positions with a choice (default 3000)")
    suits.add_argument("--preset", default="cz")
    suits.add_argument("--players", type=int, default=2)


def cmd_distil(args: argparse.Namespace) -> int:
    from train.distil_folds import REPEATS, compare, plan_of, table

    run = pathlib.Path(args.run)
    try:
        weights = [int(w) for w in args.weights.split(",")]
    except ValueError:
        raise SystemExit(f"--weights {args.weights!r}: give whole numbers, e.g. 4,8") from None
    repeats = args.repeats.split(",")
    if bad := [w for w in weights if w < 1]:
        raise SystemExit(f"--weights {args.weights!r}: {bad[0]} is below 1")
    if bad := [r for r in repeats if r not in REPEATS]:
        raise SystemExit(f"--repeats {bad[0]!r}: choose from {', '.join(REPEATS)}")
    for flag, value in (("--folds", args.folds), ("--round", args.round),
                        ("--epochs", args.epochs)):
        if value is not None and value < 1:
            raise SystemExit(f"{flag} {value}: want 1 or more")
    try:
        epochs = args.epochs or int(plan_of(run)["epochs"])
        rows = compare(run, args.round, weights, repeats, args.folds, epochs)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    print(table(rows))
    return 0


def cmd_suits(args: argparse.Namespace) -> int:
    from eval.suit_symmetry import agreement, table
    from zolik_env.rummy import rules as rule_sets

    if args.decisions < 1:
        raise SystemExit(f"--decisions {args.decisions}: want 1 or more")
    try:
        rules = rule_sets.preset(args.preset, num_players=args.players)
        rows = agreement(rules, args.agent, args.decisions)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    print(table(rows))
    return 0


COMMANDS = {"distil": cmd_distil, "suits": cmd_suits}
