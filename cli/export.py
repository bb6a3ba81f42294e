"""``zolik export``: a trained run as a pretrained bot that ships with the kit.

    zolik export runs/ppo_cz2p__1__20261130-190213 --name cz_2p --deals 400
    zolik export --list                     # the bots that ship: name, rules, strength
    zolik export --best-response RUN_DIR    # a best response's margin onto its bot's card

Writes ``agents/learned/bots/NAME.pt`` (float16 weights), ``NAME.json`` and the model card
``NAME.md`` after measuring the exported bot on held-out duplicate deals
(``train.export``). Then ``pretrained:NAME`` plays it in every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik export", description="Package a PPO run as pretrained:NAME, with its "
        "strength measured on held-out duplicate deals.")
    parser.add_argument("run", nargs="?", help="run dir (its final.zip or newest checkpoint)")
    parser.add_argument("--name", help="bot name, e.g. cz_2p (letters, digits, _)")
    parser.add_argument("--deals", type=int, default=400,
                        help="duplicate deals per baseline for the strength table (default 400)")
    parser.add_argument("--note", default="", help="a sentence for the model card")
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="the play temperature pretrained:NAME samples its moves at "
                        "(default 1: the network's own distribution; below 1 sharper; 0: "
                        "it plays its likeliest move); the card's rows are measured at it")
    parser.add_argument("--views", type=int, default=1,
                        help="renamings of the suits the bot's play averages over (default "
                        "1: the network alone; 4 or 24 with --temperature 0: it plays the "
                        "likeliest averaged move, agents.suit_average); the card measures it")
    parser.add_argument("--list", action="store_true", help="list the bots that ship")
    parser.add_argument("--force", action="store_true",
                        help="replace a bot that ships already (its three files, as a set)")
    parser.add_argument("--best-response", metavar="RUN_DIR",
                        help="write the margin of this best-response run (zolik strength "
                        "exploit --agent pretrained:NAME) into NAME's card")
    return parser


def show_bots() -> int:
    """One line per bot: its rules and training steps, then its measured points per deal
    against each baseline, grouped by how it picked its moves (``sample``: sampled from
    the policy, at the bot's play temperature; ``argmax``: its most likely move)."""
    from agents.learned import pretrained

    for name in pretrained.names():
        meta = pretrained.card(name)
        modes: dict[str, list[str]] = {}
        for r in meta["strength"]:
            modes.setdefault(r.get("play", "sample"), []).append(
                f"vs {r['opponent']} {r['score_diff']:+.1f}")
        t = pretrained.temperature(meta)
        views = pretrained.play_views(meta)
        label = {"sample": "sample" if t == 1.0 else f"sample at t={t:g}",
                 "argmax": (f"argmax averaged over {views} renamings (as it plays)"
                            if views > 1 else "argmax (as it plays)" if t == 0.0 else "argmax")}
        scores = "; ".join(f"{label.get(mode, mode)}: {', '.join(rows)}"
                           for mode, rows in modes.items())
        margin = meta.get("best_response", {}).get("margin")
        exploit = ("; a best response to it: not measured" if margin is None else
                   f"; a best response to it scores {margin['difference']:+.1f} "
                   f"[{margin['low']:+.1f}, {margin['high']:+.1f}]")
        print(f"pretrained:{name:<10} {meta['rules']} {meta['num_players']}p, "
              f"{meta['steps']:,} steps; points per deal (higher is better), {scores}{exploit}")
    return 0


def record_best_response(run: str) -> int:
    """``--best-response RUN_DIR``: the run's margin onto its bot's card, or one line
    saying why not."""
    from train import export

    if not Path(run).is_dir():
        raise ValueError(f"--best-response: no run dir {run!r}")
    name, entry = export.record_best_response(run)  # a ValueError is one line (cli.main)
    margin = entry["margin"]
    print(f"pretrained:{name}: best-response margin {margin['difference']:+.2f} "
          f"[{margin['low']:+.2f}, {margin['high']:+.2f}] on {margin['deals']:,} deals, "
          f"written into agents/learned/bots/{name}.json and .md")
    if entry["bot_sha256"] is None:
        print(f"note: {run} did not record which file of pretrained:{name} it was trained "
              f"against (older runs); check that the bot has not been replaced "
              f"since it started")
    return 0


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list:
        return show_bots()
    if args.best_response:
        return record_best_response(args.best_response)
    if not args.run or not args.name:
        parser.error("give a run dir and --name (or --list)")
    if not args.name.replace("_", "").isalnum():
        parser.error(f"--name {args.name!r}: use letters, digits and _")
    if not Path(args.run).is_dir():
        parser.error(f"no run dir {args.run!r}")
    if args.deals <= 0:
        parser.error(f"--deals must be positive, got {args.deals}")
    from train.export import export

    export(args.run, args.name, args.deals, note=args.note, force=args.force,
           temperature=args.temperature, views=args.views)  # bad values: one line
    at = ("" if args.temperature == 1.0 else
          f" (playing its likeliest move averaged over {args.views} renamings of the suits)"
          if args.views > 1 else " (playing its likeliest move)"
          if args.temperature == 0.0 else f" (sampling at temperature {args.temperature:g})")
    print(f"wrote agents/learned/bots/{args.name}.pt, .json and .md: "
          f"play it as pretrained:{args.name}{at}")
    return 0
