"""The public, readable rules API of Žolík: the specification in code.

    >>> from zolik_env.rummy import rules
    >>> r = rules.preset("cz")
    >>> rules.check_meld("5H JK 7H", r).points
    18

Everything here works card by card on plain lists and strings; the batched core
(``game.py``) must agree with it, and the tests check that it does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from zolik_env.rummy.cards import (
    NUM_KINDS,
    card_to_str,
    deck_counts,
    format_cards,
    parse_card,
    parse_cards,
)
from zolik_env.rummy.melds import MeldCheck, check_meld, hand_card_value, require_rules
from zolik_env.rummy.options import PRESETS, RuleSet, option_table, preset
from zolik_env.rummy.scoring import (
    hand_penalty,
    is_match_over,
    match_totals,
    match_winners,
    score_deal,
)

__all__ = [
    "PRESETS",
    "MeldCheck",
    "OpeningCheck",
    "RuleSet",
    "card_to_str",
    "check_meld",
    "check_opening",
    "format_cards",
    "hand_card_value",
    "hand_penalty",
    "is_match_over",
    "match_totals",
    "match_winners",
    "option_table",
    "parse_card",
    "parse_cards",
    "preset",
    "score_deal",
]


@dataclass(frozen=True, slots=True)
class OpeningCheck:
    """The verdict on a first melding: ``points`` counts every valid meld, also when the
    opening as a whole is invalid."""

    valid: bool
    points: int
    reason: str


def check_opening(melds: Iterable[str | Iterable[str | int]], rules: RuleSet) -> OpeningCheck:
    """Check the melds a player lays in their opening turn against the preset's requirement:
    every meld valid, at least ``opening_points`` in meld values and, where required, a
    joker-free run.

    Raises:
        ValueError: for rules that are not a ``RuleSet``, a token that is not a card, or
            more copies of a card than the pack holds (naming the card).
    """
    require_rules(rules)
    melds = list(melds)
    counts = np.zeros(NUM_KINDS, np.int64)
    for meld in melds:
        np.add.at(counts, parse_cards(meld), 1)
    pack = deck_counts(rules.num_jokers)
    excess = np.flatnonzero(counts > pack)
    if excess.size:
        kind = int(excess[0])
        raise ValueError(f"{counts[kind]} x {format_cards([kind])} in the opening: the pack of "
                         f"{rules.name} holds {pack[kind]}")
    checks = [(meld, check_meld(meld, rules)) for meld in melds]
    points = sum(c.points for _, c in checks)
    if not checks:
        return OpeningCheck(False, 0, "an opening needs at least one meld")
    bad = [(m, c) for m, c in checks if not c.valid]
    if bad:
        meld, check = bad[0]
        text = meld if isinstance(meld, str) else format_cards(parse_cards(meld))
        return OpeningCheck(False, points, f"meld {text!r} is invalid: {check.reason}")
    if points < rules.opening_points:
        return OpeningCheck(False, points, f"the melds are worth {points} points, the opening "
                            f"needs at least {rules.opening_points}")
    if rules.opening_needs_clean_run and not any(
            c.kind == "run" and "JK" not in format_cards(parse_cards(m)).split()
            for m, c in checks):
        return OpeningCheck(False, points, "the opening needs a run without a joker")
    return OpeningCheck(True, points, "")
