"""``zolik strength``: how strong the agents are, on duplicate deals.

    zolik strength pairs --deals 300                 # greedy vs random, planner vs greedy
    zolik strength pairs --pair pretrained:cz_2p planner --presets cz --players 2
    zolik strength ppo --run runs/ppo_cz2p__1__...   # a PPO run against greedy and planner
    zolik strength ppo --train-minutes 58            # train on --config first, then the same
    zolik strength ppo --config cz_2p_hour --train-minutes 60 --seed 2
    zolik strength search --budgets 8,32,96 --deals 200 --workers 2   # pimc vs the planner
    zolik strength exploit --agent planner --minutes 60  # a best response and its margin
    zolik strength oracle --presets cz,sk,jolly          # what seeing every card is worth
    zolik strength kinds --agent pretrained:cz_2p:argmax # its gains on the planner by move kind
    zolik strength labels --net pretrained:cz_2p --labeller pimc:rollouts=128  # labels' worth
    zolik strength distil --run runs/exit_cz2p --weights 4,8  # what a round's network learns
    zolik strength suits --agent pretrained:cz_2p:argmax  # how far it follows suits' names

Only parses arguments, then calls ``eval.strength`` (heuristic pairs, a Markdown table),
``train.strength.benchmark`` (PPO, which writes ``strength.json`` into the run dir) or
``eval.search_strength`` (the search agent against its budget: a table and a plot) or
``eval.move_kinds`` (an agent's gains on the planner by kind of move) or
``eval.label_quality`` (what an expert-iteration labeller's corrections are worth);
``exploit`` and ``oracle`` live in ``cli.strength_yardsticks``, ``distil`` and ``suits``
in ``cli.strength_learning``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

from cli import strength_learning as learning
from cli import strength_yardsticks as yardsticks


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zolik strength",
                                     description="Agent strength on duplicate deals.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    pairs = sub.add_parser("pairs", help="heuristic agents against each other (a table)")
    pairs.add_argument("--deals", type=int, default=100, help="deals per cell (default 100)")
    pairs.add_argument("--presets", default="cz,sk,jolly", help="comma-separated presets")
    pairs.add_argument("--players", default="2,4", help="comma-separated player counts")
    pairs.add_argument("--pairs", default="greedy:random,planner:greedy",
                       help="comma-separated A:B pairs of plain agent names")
    pairs.add_argument("--pair", nargs=2, action="append", metavar=("A", "B"),
                       help="one pair of any agent specs (ppo:PATH, pretrained:NAME, "
                            "pkg.mod:factory, NAME=SPEC); repeat for more; replaces --pairs")
    ppo = sub.add_parser("ppo", help="a PPO run's checkpoint against baselines")
    ppo.add_argument("--run", help="run dir to evaluate (its final.zip or newest checkpoint)")
    ppo.add_argument("--train-minutes", type=float,
                     help="first train on --config for this many minutes")
    ppo.add_argument("--config", default="cz_2p", help="YAML file or packaged config name")
    ppo.add_argument("--seed", type=int,
                     help="with --train-minutes: the training seed (default: the config's)")
    ppo.add_argument("--set", action="append", metavar="KEY=VALUE", dest="overrides",
                     help="with --train-minutes: override a config value (repeatable)")
    ppo.add_argument("--deals", type=int, default=400, help="duplicate deals per baseline")
    ppo.add_argument("--opponents", nargs="+", default=["greedy", "planner"])
    ppo.add_argument("--play", nargs="+", default=["sample", "argmax"],
                     choices=["sample", "argmax"],
                     help="how the checkpoint plays: sampling its moves and/or always its "
                          "most likely move (default both)")
    search = sub.add_parser(
        "search", help="the search agent (pimc) against its rollouts per decision",
        description="For each budget, pimc:rollouts=N against an opponent on held-out "
                    "duplicate deals (difference per deal, 95% interval), and the seconds "
                    "per decision on one core; writes a table, JSON and a plot to --out. "
                    "Each budget's deals are kept in --out as they finish: the same "
                    "command again continues a stopped or killed run.")
    search.add_argument("--budgets", default="8,32,96",
                        help="comma-separated rollouts per decision (default 8,32,96)")
    search.add_argument("--deals", type=int, default=200, help="duplicate deals per budget")
    search.add_argument("--opponent", default="planner", help="agent spec (default planner)")
    search.add_argument("--policy", default="planner",
                        help="pimc's rollout policy (default planner)")
    search.add_argument("--preset", default="cz")
    search.add_argument("--players", type=int, default=2)
    search.add_argument("--workers", type=int, default=1, help="processes for the deals")
    search.add_argument("--out", default="runs/search_strength", help="folder for the results")
    kinds = sub.add_parser(
        "kinds", help="where an agent gains on the planner, by kind of move",
        description="Per kind of the agent's moves (draw, meld, lay-off, joker swap, undo, "
                    "discard): the share the planner would not have made, and the points "
                    "per deal they are worth (the agent against the planner minus the same "
                    "agent with that kind swapped for the planner's moves, same deals).")
    kinds.add_argument("--agent", required=True,
                       help="agent spec, e.g. pretrained:cz_2p:argmax or ppo:RUN:argmax")
    kinds.add_argument("--deals", type=int, default=1000, help="duplicate deals (1000)")
    kinds.add_argument("--preset", default="cz")
    kinds.add_argument("--players", type=int, default=2)
    kinds.add_argument("--out", default="runs/move_kinds", help="folder for the JSON table")
    labels = sub.add_parser(
        "labels", help="what a labeller's corrections of a network are worth",
        description="The network plays fresh deals; at each decision with a choice, each "
                    "labeller names its move (a pimc labeller without prior= takes the "
                    "network's likeliest move as its prior, as expert iteration does). "
                    "Where a label overrules the network, both moves are played on "
                    "--reference fresh paired worlds with --reference-policy to the end: "
                    "the label's gain. Prints, per labeller and kind of move, the share "
                    "overruled, the mean gain of an overrule (95% interval over deals), "
                    "the share that gain, the points per 100 decisions and the seconds per "
                    "decision; writes JSON and a CSV per labeller to --out.")
    labels.add_argument("--net", required=True,
                        help="the network that plays and is corrected: pretrained:NAME or "
                             "ppo:PATH (sampling its moves; its likeliest move is the one "
                             "a label overrules)")
    labels.add_argument("--labeller", action="append", required=True,
                        help="labeller spec, repeatable, e.g. pimc:rollouts=128 or "
                             "pimc:rollouts=128,z=2")
    labels.add_argument("--decisions", type=int, default=1000,
                        help="decisions with a choice per labeller (1000)")
    labels.add_argument("--reference", type=int, default=512,
                        help="paired worlds that measure each overrule (512)")
    labels.add_argument("--reference-policy", default="planner",
                        help="who plays the reference worlds on (default planner, pimc's "
                             "rollout policy)")
    labels.add_argument("--seed-start", type=int, default=None,
                        help="first deal seed (>= 10^9; default 2,009,000,000)")
    labels.add_argument("--preset", default="cz")
    labels.add_argument("--players", type=int, default=2)
    labels.add_argument("--quiet", action="store_true", help="no progress bar")
    labels.add_argument("--out", default="runs/label_quality",
                        help="folder for the JSON and CSV files")
    yardsticks.add_parsers(sub)
    learning.add_parsers(sub)
    return parser


def _positive(value: float, flag: str, command: str) -> None:
    if not value > 0:
        raise SystemExit(f"zolik strength {command}: {flag} must be positive, got {value:g}")


def _players(text: str) -> list[int]:
    try:
        return [int(p) for p in text.split(",")]
    except ValueError:
        raise SystemExit(f"zolik strength pairs: --players takes comma-separated player "
                         f"counts, got {text!r}") from None


def _check_specs(specs: list[str], rule_sets: list[Any], command: str) -> None:
    """Build every agent once for every rule set, so a bad spec fails before any deal."""
    from agents.registry import make_agent

    for rule_set in rule_sets:
        for spec in dict.fromkeys(specs):
            try:
                make_agent(spec, rule_set)
            except ValueError as error:
                raise SystemExit(f"zolik strength {command}: {error}") from None


def cmd_pairs(args: argparse.Namespace) -> int:
    from eval.strength import table_lines
    from zolik_env.rummy import rules

    if args.pair:
        pairs = [tuple(pair) for pair in args.pair]
    else:
        pairs = [tuple(pair.split(":")) for pair in args.pairs.split(",")]
        if any(len(pair) != 2 for pair in pairs):
            raise SystemExit(f"zolik strength pairs: --pairs takes A:B pairs of plain names "
                             f"(use --pair A B for specs with ':'), got {args.pairs!r}")
    _positive(args.deals, "--deals", "pairs")
    players, presets = _players(args.players), args.presets.split(",")
    try:
        rule_sets = [rules.preset(p, num_players=n) for p in presets for n in players]
    except ValueError as error:
        raise SystemExit(f"zolik strength pairs: {error}") from None
    _check_specs([spec for pair in pairs for spec in pair], rule_sets, "pairs")
    for line in table_lines(args.deals, presets, players, pairs, progress=True):
        print(line, flush=True)
    return 0


def cmd_ppo(args: argparse.Namespace) -> int:
    from train.strength import benchmark, train_run

    _positive(args.deals, "--deals", "ppo")
    if args.train_minutes is not None:
        _positive(args.train_minutes, "--train-minutes", "ppo")
        from cli.train import load_ppo_config
        from train.config import parse_overrides

        cfg = load_ppo_config("strength ppo", args.config, parse_overrides(args.overrides),
                              args.seed)
        _check_specs(args.opponents, [cfg.rules()], "ppo")
        run_dir = train_run(cfg, args.train_minutes)
    elif args.overrides or args.seed is not None:
        raise SystemExit("zolik strength ppo: --seed and --set go with --train-minutes "
                         "(a run dir keeps the config it was trained with)")
    elif args.run:
        run_dir = pathlib.Path(args.run)
        if not (run_dir / "config.yaml").is_file():
            raise SystemExit(f"zolik strength ppo: {run_dir} is not a run dir (no config.yaml)")
        from train.ppo import read_config

        _check_specs(args.opponents, [read_config(run_dir).rules()], "ppo")
    else:
        raise SystemExit("zolik strength ppo: give --run RUN_DIR or --train-minutes N")
    benchmark(run_dir, args.deals, args.opponents, args.play)
    return 0


def _rules_and_out(args: argparse.Namespace, specs: list[str],
                   command: str) -> tuple[Any, pathlib.Path]:
    """The rules of ``--preset``/``--players`` with every spec built for them, and the
    ``--out`` folder made; one line naming what is wrong otherwise."""
    from zolik_env.rummy import rules

    try:
        rule_set = rules.preset(args.preset, num_players=args.players)
    except ValueError as error:
        raise SystemExit(f"zolik strength {command}: {error}") from None
    _check_specs(specs, [rule_set], command)
    out = pathlib.Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SystemExit(f"zolik strength {command}: cannot write --out {out} "
                         f"({error.strerror})") from None
    return rule_set, out


def cmd_search(args: argparse.Namespace) -> int:
    from eval.search_strength import measure, table, write

    try:
        budgets = [int(b) for b in args.budgets.split(",")]
    except ValueError:
        raise SystemExit(f"zolik strength search: --budgets takes comma-separated rollout "
                         f"counts, got {args.budgets!r}") from None
    for flag, value in (("--budgets", min(budgets)), ("--deals", args.deals),
                        ("--workers", args.workers)):
        _positive(value, flag, "search")
    rule_set, out = _rules_and_out(args, [args.opponent, f"pimc:policy={args.policy}"],
                                   "search")
    rows = []
    for row in measure(rule_set, budgets, args.deals, args.opponent, args.workers,
                       policy=args.policy, progress=lambda line: print(line, file=sys.stderr),
                       out=out):
        rows.append(row)
        path = write(rows, args.opponent, out)
        print(table(rows, args.opponent).splitlines()[-1] if len(rows) > 1
              else table(rows, args.opponent), flush=True)
    print(f"wrote {path} and the plot beside it")
    return 0


def cmd_kinds(args: argparse.Namespace) -> int:
    import json

    from eval.move_kinds import format_rows, study

    _positive(args.deals, "--deals", "kinds")
    rule_set, out = _rules_and_out(args, [args.agent], "kinds")
    rows = study(rule_set, args.agent, args.deals, progress=True)
    print(format_rows(rows, args.agent))
    path = out / "move_kinds.json"
    path.write_text(json.dumps({"agent": args.agent, "preset": args.preset,
                                "players": args.players, "rows": rows}, indent=1))
    print(f"wrote {path}")
    return 0


def cmd_labels(args: argparse.Namespace) -> int:
    import json

    from eval import label_quality as quality
    from zolik_env.seeds import TRAIN_SEED_LIMIT

    _positive(args.decisions, "--decisions", "labels")
    if args.seed_start is None:
        args.seed_start = quality.LABELS_SEED_START
    if args.seed_start < TRAIN_SEED_LIMIT:
        raise SystemExit(f"zolik strength labels: --seed-start {args.seed_start} is a "
                         f"training deal; give one of at least {TRAIN_SEED_LIMIT:,}")
    if args.reference < 2:
        raise SystemExit(f"zolik strength labels: --reference must be at least 2 worlds, "
                         f"got {args.reference}")
    rule_set, out = _rules_and_out(args, [args.net, args.reference_policy,
                                          *(quality.anchored(x, args.net)
                                            for x in args.labeller)], "labels")
    rows: list[dict[str, Any]] = []
    for number, labeller in enumerate(args.labeller, 1):
        labels = _labels_of(args, rule_set, out, number, labeller)
        mine = [{"name": f"{number}: all", "labeller": labeller, **quality.summarize(labels)},
                *({"name": f"{number}: {r['kind']}", "labeller": labeller, **r}
                  for r in quality.by_kind(labels) if r["overruled"])]
        table = quality.format_summary(mine, args.net, args.reference).splitlines()
        print("\n".join([f"{number}: {quality.anchored(labeller, args.net)}",
                         *(table if not rows else table[2:])]), flush=True)
        rows += mine
        path = out / "label_quality.json"
        path.write_text(json.dumps({"net": args.net, "preset": args.preset,
                                    "players": args.players, "seed_start": args.seed_start,
                                    "reference": args.reference,
                                    "reference_policy": args.reference_policy, "rows": rows},
                                   indent=1))
    print(f"wrote {path} and a CSV of each labeller's decisions beside it")
    return 0


def _labels_of(args: argparse.Namespace, rule_set: Any, out: pathlib.Path, number: int,
               labeller: str) -> list[Any]:
    """Labeller ``number``'s labels: those ``--out`` kept from a run with the same settings
    (a stopped run started again goes on), else audited now and kept."""
    from eval import label_quality as quality
    from train.work_pool import make_bar

    settings = {"net": args.net, "labeller": labeller, "decisions": args.decisions,
                "reference": args.reference, "reference_policy": args.reference_policy,
                "preset": args.preset, "players": args.players, "seed_start": args.seed_start}
    path = out / f"labels_{number}.csv"
    labels = quality.load(path, settings)
    if labels is not None:
        return labels
    bar = make_bar(args.decisions, f"labeller {number}/{len(args.labeller)}", "dec",
                   not args.quiet)
    try:
        labels = quality.audit(rule_set, args.net, labeller, args.decisions, args.reference,
                               args.reference_policy, args.seed_start, bar=bar)
    except ValueError as error:
        raise SystemExit(f"zolik strength labels: {error}") from None
    bar.close()
    quality.save(path, labels, settings)
    return labels


COMMANDS = {"pairs": cmd_pairs, "ppo": cmd_ppo, "search": cmd_search, "kinds": cmd_kinds,
            "labels": cmd_labels, **yardsticks.COMMANDS,
            **learning.COMMANDS}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
