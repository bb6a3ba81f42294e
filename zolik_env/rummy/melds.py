"""Meld validity and meld values, card by card (docs/rules-spec.md §1.3, §2.4, §3.4, §4.4-4.5).

A run's cards occupy consecutive *positions* 1..14 of one suit: position 1 is the low
ace, 2..13 the ranks 2..K, 14 the high ace. ``K A 2`` has no positions, so it can never
be a run. A 14-card run ``A 2 ... K A`` holds both aces without going round the king,
so it is valid (decision; docs/rules-spec.md §1.3; the sources only forbid wrapping round).

This module imports only the standard library, numpy and its siblings.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from zolik_env.rummy.cards import (
    JOKER,
    NUM_SUITS,
    card_to_str,
    kind_of,
    parse_cards,
    rank_of,
    suit_of,
)
from zolik_env.rummy.options import RuleSet

MIN_MELD = 3
MAX_SET = 4
NUM_POSITIONS = 14  # run positions: 1 = low ace, 2..13 = 2..K, 14 = high ace


@dataclass(frozen=True, slots=True)
class MeldCheck:
    """The verdict on one meld written in table order.

    Attributes:
        valid: whether the meld may lie on the table under the rules.
        kind: ``"run"``, ``"set"`` or ``None`` when invalid.
        points: the meld value (a joker counts as the card it represents); 0 when invalid.
        reason: why the meld is invalid, as a sentence; ``""`` when valid.
        represents: for each card, the natural card kind it stands for (jokers resolved).
    """

    valid: bool
    kind: str | None
    points: int
    reason: str
    represents: tuple[int, ...] = ()


def position_rank(position: int) -> int:
    """Rank index (0 = ace) of run position 1..14."""
    return 0 if position in (1, NUM_POSITIONS) else position - 1


def position_value(position: int, rules: RuleSet) -> int:
    """Meld value of the card at run position 1..14."""
    if position == 1:
        return rules.ace_low_run_value
    if position == NUM_POSITIONS:
        return rules.ace_high_value
    return min(position, 10)


def set_card_value(rank: int, rules: RuleSet) -> int:
    """Meld value of one card of a set of rank ``rank`` (0 = ace)."""
    return rules.ace_set_value if rank == 0 else min(rank + 1, 10)


def hand_card_value(kind: int, rules: RuleSet) -> int:
    """Penalty of one card left in hand: 2-10 face, J Q K 10, ace and joker per preset."""
    if kind == JOKER:
        return rules.hand_joker_value
    rank = rank_of(kind)
    return rules.hand_ace_value if rank == 0 else min(rank + 1, 10)


def _invalid(reason: str) -> MeldCheck:
    return MeldCheck(False, None, 0, reason)


def _joker_limits(cards: Sequence[int], rules: RuleSet) -> str:
    jokers = sum(1 for c in cards if c == JOKER)
    if jokers and rules.jokers_fewer_than_naturals and jokers >= len(cards) - jokers:
        return f"it has {jokers} joker(s) and only {len(cards) - jokers} natural card(s)"
    return ""


def _run_start(cards: Sequence[int]) -> list[int]:
    """Candidate positions of the first card, from the first natural card (ace: low or high)."""
    index, first = next((i, c) for i, c in enumerate(cards) if c != JOKER)
    rank = rank_of(first)
    positions = [1, NUM_POSITIONS] if rank == 0 else [rank + 1]
    return [p - index for p in positions]


def check_run(cards: Sequence[int], rules: RuleSet) -> MeldCheck:
    """Check ``cards`` (table order, ascending) as a run."""
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        return _invalid("a run needs at least one natural card")
    if len(cards) > NUM_POSITIONS:
        return _invalid(f"a run has at most {NUM_POSITIONS} cards (A 2 ... K A)")
    if len({suit_of(c) for c in naturals}) > 1:
        return _invalid("a run's cards must all be of one suit")
    if not rules.jokers_adjacent_in_run and any(
            a == JOKER and b == JOKER for a, b in itertools.pairwise(cards)):
        return _invalid("two jokers stand side by side in the run")
    why = _joker_limits(cards, rules)
    if why:
        return _invalid(f"too many jokers: {why}")
    suit = suit_of(naturals[0])
    for start in _run_start(cards):
        positions = range(start, start + len(cards))
        if start < 1 or positions[-1] > NUM_POSITIONS:
            continue
        if all(c == JOKER or rank_of(c) == position_rank(p) for c, p in zip(cards, positions,
                                                                           strict=True)):
            points = sum(position_value(p, rules) for p in positions)
            represents = tuple(kind_of(suit, position_rank(p)) for p in positions)
            return MeldCheck(True, "run", points, "", represents)
    return _invalid("the cards are not consecutive in rank in table order (the ace is low in "
                    "A 2 3 or high in Q K A; K A 2 does not wrap round)")


def check_set(cards: Sequence[int], rules: RuleSet) -> MeldCheck:
    """Check ``cards`` as a set: 3 or 4 cards of one rank, each natural of a different suit."""
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if len(cards) > MAX_SET:
        return _invalid(f"a set has at most {MAX_SET} cards")
    if not naturals:
        return _invalid("a set needs at least one natural card")
    if len({rank_of(c) for c in naturals}) > 1:
        return _invalid("a set's cards must all be of one rank")
    suits = [suit_of(c) for c in naturals]
    if len(set(suits)) < len(suits):
        return _invalid("a set may not hold two cards of the same suit")
    if jokers > rules.max_jokers_in_set:
        most = rules.max_jokers_in_set
        return _invalid(f"a set may hold at most {most} joker{'' if most == 1 else 's'}")
    why = _joker_limits(cards, rules)
    if why:
        return _invalid(f"too many jokers: {why}")
    rank = rank_of(naturals[0])
    missing = iter(s for s in range(NUM_SUITS) if s not in suits)
    represents = tuple(c if c != JOKER else kind_of(next(missing), rank) for c in cards)
    return MeldCheck(True, "set", set_card_value(rank, rules) * len(cards), "", represents)


def require_rules(rules: object) -> None:
    """Raise ``ValueError`` unless ``rules`` is a ``RuleSet`` (a preset name is not)."""
    if not isinstance(rules, RuleSet):
        hint = f"preset({rules!r})" if isinstance(rules, str) else "preset('cz')"
        raise ValueError(f"rules must be a RuleSet, got {rules!r}: pass {hint} "
                         f"(zolik_env.rummy.rules.preset)")


def check_meld(meld: str | Iterable[str | int], rules: RuleSet) -> MeldCheck:
    """Check a meld given in table order (a card string or a sequence of cards or kinds).

    Raises:
        ValueError: quoting a token that is not a card.
    """
    require_rules(rules)
    cards = parse_cards(meld)
    if len(cards) < MIN_MELD:
        return _invalid(f"a meld needs at least {MIN_MELD} cards, got {len(cards)}")
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        return _invalid("a meld needs at least one natural card")
    if len({rank_of(c) for c in naturals}) > 1:
        return check_run(cards, rules)
    if len(naturals) > 1:
        return check_set(cards, rules)
    return _one_natural(cards, rules)


def _one_natural(cards: Sequence[int], rules: RuleSet) -> MeldCheck:
    """A meld of one natural card and jokers reads as a run or as a set: valid if either
    reading is, else with the reason each reading fails (once when they agree)."""
    run, as_set = check_run(cards, rules), check_set(cards, rules)
    if run.valid or as_set.valid:
        return run if run.valid else as_set
    if run.reason == as_set.reason:
        return run
    return _invalid(f"neither a run ({run.reason}) nor a set ({as_set.reason})")


def describe(check: MeldCheck) -> str:
    """One line: ``valid run, 18 points, 5H 6H 7H`` or ``invalid: <reason>``."""
    if not check.valid:
        return f"invalid: {check.reason}"
    cards = " ".join(card_to_str(k) for k in check.represents)
    return f"valid {check.kind}, {check.points} points, standing for {cards}"
