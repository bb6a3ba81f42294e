"""``zolik rules``: print the rule options of the presets, check melds and openings."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from zolik_env.rummy import rules
from zolik_env.rummy.melds import describe


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zolik rules",
        description=f"Show the rule options of the presets ({', '.join(rules.PRESETS)}), or "
        "check melds and an opening in card notation (ranks A 2-10 J Q K, suits S H D C, "
        "joker JK).",
        epilog='Example: zolik rules --preset jolly --meld "6D JK 8D JK 10D" --meld "AD AH AS"',
    )
    parser.add_argument("--preset", default="cz", choices=rules.PRESETS,
                        help="rule preset (default: cz)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="override one rule option, e.g. opening_points=51 (repeatable)")
    parser.add_argument("--meld", action="append", default=[], metavar="CARDS",
                        help="a meld in table order to check (repeatable); with several, "
                        "they are also checked as one opening")
    return parser


def parse_option(text: str) -> tuple[str, object]:
    """``name=value`` -> (name, int | bool | str)."""
    if "=" not in text:
        raise ValueError(f"bad --option {text!r}: expected NAME=VALUE")
    name, raw = text.split("=", 1)
    value: object = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    return name.strip(), value


def _row(name: str, per_preset: Sequence[str], allowed: str) -> str:
    """One line of the option table: a column per preset."""
    return f"{name:28} " + " ".join(f"{value:>12}" for value in per_preset) + f"  {allowed}"


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        ruleset = rules.preset(args.preset, **dict(map(parse_option, args.option)))
        if not args.meld:
            print(_row("option", rules.PRESETS, "allowed"))
            for name, *defaults, allowed, _ in rules.option_table():
                print(_row(name, defaults, allowed))
            return 0
        for meld in args.meld:
            print(f"{meld}: {describe(rules.check_meld(meld, ruleset))}")
        if len(args.meld) > 1:
            opening = rules.check_opening(args.meld, ruleset)
            verdict = "valid" if opening.valid else f"invalid: {opening.reason}"
            print(f"as an opening ({opening.points} points): {verdict}")
    except ValueError as error:
        print(f"zolik rules: {error}", file=sys.stderr)
        return 2
    return 0
