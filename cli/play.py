"""``zolik play``: play Žolík against the kit's agents in the browser.

    zolik play                                   cz, 2 players, against the planner
    zolik play --preset sk --players 3 --opponents greedy planner
    zolik play --opponents pretrained:cz_2p      the shipped bot (it plays cz, 2 players)
    zolik play --preset jolly --match            a match to jolly's target, scores kept
    zolik play --match --match-length 3 --opening-points 51   a cz match of three deals
    zolik play --host 0.0.0.0 --players 3 --humans 2   a room: a friend joins by its code
    zolik play --no-browser --port 8765          serve only; open the printed address

The server listens on 127.0.0.1 (this machine only); ``--host 0.0.0.0 --humans 2``
lets a friend on your network join by the room code the page shows (opt-in, with a
warning). Games are saved as JSONL replays in
``--games`` (default ``runs/table``) after every move: a closed tab or a restarted server
continues where it was. ``zolik replay FILE`` prints a finished one.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import threading
import webbrowser
from typing import Any

from agents.registry import make_agent
from zolik_env.rummy import options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="zolik play", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="cz", choices=options.PRESETS)
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--opponents", nargs="+", default=["planner"],
                        help="agent specs for the other seats (one for all, or one each)")
    parser.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    parser.add_argument("--match", action="store_true",
                        help="play deals to the preset's match end (cz: match_deals, sk and "
                             "jolly: their target), with running scores")
    parser.add_argument("--opening-points", type=int, default=None, metavar="N",
                        help="meld points the first melding must reach (default: the preset's: "
                             "cz 42, sk 51, jolly 40)")
    parser.add_argument("--match-length", type=int, default=None, metavar="N",
                        help="with --match: cz deals in the match (default 1); sk and jolly: "
                             "the target score (default 1000 and 250)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 0.0.0.0 lets friends on your network join "
                             "rooms (a game with --humans 2 or more gets a room code)")
    parser.add_argument("--humans", type=int, default=1,
                        help="human seats at the table (the others are bots); 2 or more make "
                             "a room that friends join by its code")
    parser.add_argument("--games", default="runs/table", help="folder the games are saved in")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a host name the page may be opened under besides localhost and "
                             "IP addresses (the server refuses other names: DNS rebinding)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error(f"--port must be in 1..65535, got {args.port}")
    if not 1 <= args.humans <= args.players:
        parser.error(f"--humans must be 1..{args.players}, got {args.humans}")
    if args.seed is not None and not 0 <= args.seed < 2**62:
        parser.error(f"--seed must be an integer in [0, 2^62), got {args.seed}")
    check_games_folder(parser, pathlib.Path(args.games))
    bots = args.players - args.humans
    if bots and len(args.opponents) not in (1, bots):
        parser.error(f"--opponents: give one spec or {bots}, got {args.opponents}")
    rule_options = checked_rules(parser, args)
    try:
        import uvicorn

        from play.server import create_app
    except ImportError as err:
        parser.error(f"the web table needs the [play] extra: pip install -e '.[play]' ({err})")
    app = create_app(pathlib.Path(args.games), {
        "preset": args.preset, "players": args.players, "opponents": args.opponents,
        "match": args.match, "humans": args.humans, "options": rule_options,
        **({"seed": args.seed} if args.seed is not None else {})},
        hosts=[args.host, *args.allow_host], warm_readers=True)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{shown}:{args.port}/"
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}: anyone who can reach port {args.port} can "
              f"open the page and join a room whose code they know", file=sys.stderr)
    print(f"the table is at {url} (Ctrl-C stops the server; games are saved in {args.games})")
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def checked_rules(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The rule options the command sets (``--opening-points``, ``--match-length``), after
    checking them and that every ``--opponents`` spec builds and plays those rules."""
    rule_options: dict[str, Any] = {}
    if args.opening_points is not None:
        rule_options["opening_points"] = args.opening_points
    if args.match_length is not None:
        if not args.match:
            parser.error("--match-length needs --match")
        rule_options["match_deals" if args.preset == "cz" else "match_target"] = args.match_length
    try:
        rules = options.preset(args.preset, num_players=args.players, **rule_options)
    except ValueError as err:
        parser.error(str(err))
    for spec in args.opponents:  # named before the server starts: they play these rules
        try:
            make_agent(spec, rules)
        except ValueError as err:
            parser.error(f"--opponents {spec}: {err}")
    return rule_options


def check_games_folder(parser: argparse.ArgumentParser, folder: pathlib.Path) -> None:
    """Refuse a ``--games`` that is a file or cannot be written, before the server starts."""
    if folder.exists() and not folder.is_dir():
        parser.error(f"--games {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".zolik_write_probe"
        probe.write_text("")
        probe.unlink()
    except OSError as err:
        parser.error(f"--games {folder} cannot be written: {err.strerror or err}")


if __name__ == "__main__":
    raise SystemExit(main())
