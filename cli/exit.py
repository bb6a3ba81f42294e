"""``zolik exit``: expert iteration from a trained run: the network plays, a search
labels its decisions, the network learns the search's moves; repeated.

    zolik exit --init runs/ppo_cz2p__1__... --out runs/exit_cz2p --rounds 3
    zolik exit --init runs/... --out runs/exit_cz2p --rounds 4   # one more round, resumed
    zolik exit --init pretrained:cz_2p --out runs/exit_cz2p     # from a bot that ships
    zolik exit --init config:cz_4p_hour --init-minutes 60 --out runs/exit_cz4p --labels round
        # the recipe's hour of training first, then the rounds: one command

Each round is kept in ``OUT/round_N/``; started again with the same arguments (``--rounds``
may grow) the run goes on from the first unfinished round. ``OUT/final.zip`` is the last
round's network: ``ppo:OUT`` plays it, ``zolik export OUT --name NAME`` ships it
(``train.expert_iteration``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cli.args import finite_non_negative_float, positive_float, positive_int
from train.expert_iteration import LABEL_SETS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik exit", description="Expert iteration: distil a search's moves on the "
        "network's own deals into the network, round after round; each round measured "
        "against the planner on held-out duplicate deals.")
    parser.add_argument("--init", required=True,
                        help="the PPO run dir whose network starts (its final.zip or newest "
                             "checkpoint; its config gives the rules and features), or "
                             "pretrained:NAME, a bot that ships (copied into OUT/init with "
                             "the packaged config its card names), or config:NAME, a "
                             "packaged PPO config (zolik configs) trained first into "
                             "OUT/init for --init-minutes, with --seed as its seed")
    parser.add_argument("--init-minutes", type=positive_float, default=None, metavar="M",
                        help="with --init config:NAME: the training's wall clock (default "
                             "60, the hour recipes'); a killed run resumes it for the "
                             "minutes left")
    parser.add_argument("--out", required=True, help="folder for the rounds (resumable)")
    parser.add_argument("--labeller", default="pimc:rollouts=64",
                        help="the search that labels (default pimc:rollouts=64), or "
                             "swap:kinds=K1+K2: the planner's moves where the network's are "
                             "of those kinds (draw, meld, lay-off, joker swap, undo, "
                             "discard), or suits:views=N: the network's own play averaged "
                             "over N renamings of the suits (agents.suit_average)")
    parser.add_argument("--anchor", choices=("network", "labeller"), default="network",
                        help="whose moves the search must beat: the round's network "
                             "(default; the planner's move is a challenger) or the "
                             "labeller's own rollout policy")
    parser.add_argument("--deviation-weight", type=positive_int, default=1,
                        help="how often a label that overrules the round's network counts "
                             "in the distillation (default 1)")
    parser.add_argument("--renamed-repeats", action="store_true",
                        help="repeat each overruled label in other suits (the rules treat "
                             "the suits alike), not as it is: the network meets the same "
                             "correction in positions it has not seen (needs "
                             "--deviation-weight above 1)")
    parser.add_argument("--anchor-kl", type=finite_non_negative_float, default=0.0,
                        help="weight of KL(round's network || new network) in the "
                             "distillation: the new network keeps the round's move "
                             "distribution where the search agreed with it (default 0: none)")
    parser.add_argument("--discard-head", type=positive_int, default=None, metavar="WIDTH",
                        help="give the network a discard head of WIDTH hidden units before "
                             "the first distillation: one small network shared by the card "
                             "kinds that scores each discard from what the seat sees of that "
                             "card (agents.learned.discard_head; default: none)")
    parser.add_argument("--play-temperature", type=finite_non_negative_float, default=1.0,
                        metavar="T", help="the network samples the moves of its own deals "
                        "at temperature T (default 1, as in training; a bot's play "
                        "temperature, e.g. 0.5, labels the states it meets; 0: its likeliest "
                        "move)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds (default 3)")
    parser.add_argument("--decisions", type=positive_int, default=30_000,
                        help="decisions labelled per round (default 30000)")
    parser.add_argument("--epochs", type=positive_int, default=2,
                        help="passes over the labels per round (default 2)")
    parser.add_argument("--labels", choices=LABEL_SETS, default="all",
                        help="what a round's network learns: every round's labels so far "
                             "(all, the default, as DAgger aggregates) or its own round's "
                             "(round: each round a step from the one before)")
    parser.add_argument("--lr", type=positive_float, default=3e-4,
                        help="Adam step size of the distillation (default 3e-4)")
    parser.add_argument("--eval-deals", type=positive_int, default=500,
                        help="held-out duplicate deals against the planner per round (500)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the labelled deals (1)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="processes that play and label (default 2)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _check_labeller(args: argparse.Namespace, rules: Any) -> None:
    """A one-line exit for a labeller spec that cannot label a round, before any work."""
    from agents.kind_swap import kind_indices
    from agents.search.pimc import make as make_pimc
    from agents.suit_average import check_views
    from train.config import is_search_teacher

    kind, _, argument = args.labeller.partition(":")
    if kind == "swap":
        if not argument.startswith("kinds=") or "," in argument:
            raise SystemExit(f"--labeller {args.labeller!r}: the round's network is the swap's "
                             f"net; give only its kinds, e.g. swap:kinds=draw+meld")
        kind_indices(argument.removeprefix("kinds="), "--labeller swap")
    elif kind == "suits":  # the round's network is the one averaged: only views are given
        if "net=" in argument:
            raise SystemExit(f"--labeller {args.labeller!r}: the round's network is the one "
                             f"averaged; give only views, e.g. suits:views=24")
        check_views(argument)
    elif not is_search_teacher(args.labeller):
        raise SystemExit(f"--labeller {args.labeller!r}: give a search, e.g. "
                         f"pimc:rollouts=64, or swap:kinds=draw, or suits:views=24")
    elif args.anchor == "network" and "prior=" in args.labeller:
        raise SystemExit(f"--labeller {args.labeller!r}: --anchor network makes the round's "
                         f"network the prior; give --anchor labeller to choose another")
    else:  # anchored, the round's network is the prior: any other policy stands in for it
        make_pimc(rules, argument if args.anchor == "labeller"
                  else ",".join(filter(None, [argument, "prior=random"])))


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    bot = args.init.removeprefix("pretrained:") if args.init.startswith("pretrained:") else ""
    recipe = args.init.removeprefix("config:") if args.init.startswith("config:") else ""
    if args.init_minutes is not None and not recipe:
        raise SystemExit(f"--init-minutes {args.init_minutes:g} goes with --init config:NAME "
                         f"(a training to run first), not --init {args.init}")
    init = Path(args.init)
    if not (bot or recipe) and not (init / "config.yaml").is_file():
        raise SystemExit(f"--init {args.init!r}: not a run dir (no config.yaml), "
                         f"pretrained:NAME or config:NAME")
    from cli.train import load_ppo_config

    bot_cfg = bot_config(bot) if bot else None
    recipe_cfg = (load_ppo_config("exit", recipe, {}, args.seed) if recipe else None)
    init_cfg = bot_cfg or recipe_cfg or _config_of(init)
    rules = init_cfg.rules()
    if args.renamed_repeats and args.deviation_weight == 1:
        raise SystemExit("--renamed-repeats repeats the overruled labels: give "
                         "--deviation-weight above 1 (their count)")
    if args.discard_head and not init_cfg.discard_prior:
        raise SystemExit(f"--discard-head {args.discard_head}: {args.init}'s network has no "
                         f"discard prior, which the head joins (discard_prior: true)")
    from train.expert_iteration import ExitPlan, run

    _check_labeller(args, rules)
    if bot_cfg:
        init = bot_run(bot, bot_cfg, Path(args.out) / "init")
    if recipe_cfg:
        init = recipe_run(recipe_cfg, Path(args.out) / "init",
                          60.0 if args.init_minutes is None else args.init_minutes)
    plan = ExitPlan(init=str(init), labeller=args.labeller, rounds=args.rounds,
                    decisions=args.decisions, epochs=args.epochs, learning_rate=args.lr,
                    anchor=args.anchor, deviation_weight=args.deviation_weight,
                    renamed_repeats=args.renamed_repeats,
                    anchor_kl=args.anchor_kl, discard_head=args.discard_head or 0,
                    play_temperature=args.play_temperature, labels=args.labels,
                    eval_deals=args.eval_deals, seed=args.seed, workers=args.workers)
    final = run(plan, Path(args.out), progress=not args.quiet)
    print(f"the last round's network: {final} (ppo:{args.out} plays it)")
    return 0


def bot_config(name: str) -> Any:
    """The packaged PPO config that the card of the shipped bot ``name`` names (its
    ``exp_name``), with the bot's seed; a bad name is one line."""
    from agents.learned import pretrained
    from cli.configs import available, config_root
    from train.config import load_config

    try:
        card = pretrained.card(name)
    except ValueError as error:
        raise SystemExit(f"--init pretrained:{name}: {error}") from None
    for packaged in available("ppo"):
        cfg = load_config(config_root() / "ppo" / f"{packaged}.yaml", {"seed": card["seed"]})
        if cfg.exp_name == card["config"]:
            return cfg
    raise SystemExit(f"--init pretrained:{name}: its card's config {card['config']!r} is "
                     f"not a packaged one")


def bot_run(name: str, cfg: Any, folder: Path) -> Path:
    """``folder`` made a run dir of the shipped bot ``name`` (``train.bot_run.run_of_bot``);
    a refusal is one line."""
    from train.bot_run import run_of_bot

    try:
        return run_of_bot(name, cfg, folder)
    except ValueError as error:
        raise SystemExit(f"--init pretrained:{name}: {error}") from None


def recipe_run(cfg: Any, folder: Path, minutes: float) -> Path:
    """``folder`` holding ``cfg`` trained for ``minutes`` (``train.exit_init``); a refusal
    or an interrupted training is one line."""
    from train.exit_init import run_of_config

    try:
        return run_of_config(cfg, folder, minutes)
    except (ValueError, RuntimeError, OSError) as error:
        raise SystemExit(f"--init config:{cfg.exp_name}: {error}") from None


def _config_of(run_dir: Path) -> Any:
    from train.ppo import read_config

    return read_config(run_dir)
