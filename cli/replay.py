"""``zolik replay``: print a recorded Žolík game (JSONL, ``zolik_env.envs.replay``) turn
by turn; every move is replayed on the core and the recorded scores are checked.

    zolik replay FILE [--table]            print a recorded game turn by turn
    zolik replay FILE --seat 1             the game as seat 1 saw it (its own hand only)
    zolik replay FILE --record --preset cz --players 2 --seed 0
                                           record one random game into FILE first
"""

from __future__ import annotations

import argparse

from zolik_env.envs.replay import load, print_game, record_random
from zolik_env.rummy import options


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik replay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="JSONL replay file")
    parser.add_argument("--table", action="store_true", help="draw the table after each turn")
    parser.add_argument("--seat", type=int, default=None,
                        help="show the game as this seat saw it: the table before every move "
                             "with only this seat's hand")
    parser.add_argument("--record", action="store_true",
                        help="first record one random game into FILE")
    parser.add_argument("--preset", default="cz", choices=options.PRESETS)
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.record:
        record_random(options.preset(args.preset, num_players=args.players),
                      args.seed).save(args.file)
    try:
        print_game(load(args.file), args.table, args.seat)
    except BrokenPipeError:  # stdout's reader went away: cli.main ends quietly
        raise
    except (OSError, ValueError, KeyError) as err:
        parser.error(f"{args.file}: {err}")
    return 0
