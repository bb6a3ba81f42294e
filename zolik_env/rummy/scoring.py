"""Deal scores and match bookkeeping for each preset (docs/rules-spec.md §2.7-2.8, §3.5-3.6,
§4.8-4.9).

Scores are written as each preset writes them:

- ``penalty`` (cz): lower is better. The winner 0; others pay their cards in hand, or a
  flat ``never_opened_penalty`` if they never opened; all doubled if the winner closed
  from hand.
- ``points`` (sk): the same penalties with a minus sign (ace 20), the winner
  ``+winner_bonus``; closing from hand doubles every penalty and the bonus.
- ``laid`` (jolly): the meld value of the cards a player put on the table minus the cards
  left in hand, ``+winner_bonus`` for going out; closing from hand doubles the other
  players' hand penalties and the closer's points and bonus.

A deal cut off without a winner (``winner=None``) scores as if no one had gone out: no
bonus, no doubling.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from zolik_env.rummy.cards import NUM_KINDS, deck_counts, format_cards, parse_cards
from zolik_env.rummy.melds import check_meld, hand_card_value, require_rules
from zolik_env.rummy.options import RuleSet

Cards = str | Iterable[str | int]


def hand_penalty(hand: Cards, rules: RuleSet) -> int:
    """Total value of the cards left in one hand (positive)."""
    return sum(hand_card_value(k, rules) for k in parse_cards(hand))


def _laid_points(laid: int | Sequence[Cards], rules: RuleSet) -> int:
    if isinstance(laid, int):
        return laid
    total = 0
    for meld in laid:
        check = check_meld(meld, rules)
        if not check.valid:
            raise ValueError(f"laid meld {meld!r} is not valid: {check.reason}")
        total += check.points
    return total


def _check_seats(rules: RuleSet, hands: Sequence[Cards], opened: Sequence[bool],
                 winner: int | None, laid: Sequence[object] | None) -> None:
    require_rules(rules)
    n = rules.num_players
    if len(hands) != n or len(opened) != n:
        raise ValueError(f"expected {n} hands and opened flags for num_players={n}, got "
                         f"{len(hands)} and {len(opened)}")
    if laid is not None and len(laid) != n:
        raise ValueError(f"expected {n} laid entries, got {len(laid)}")
    if winner is not None and (isinstance(winner, bool)
                               or not isinstance(winner, int | np.integer)):
        raise ValueError(f"winner={winner!r} is not a seat number (an int, or None)")
    if winner is not None and not 0 <= winner < n:
        raise ValueError(f"winner={winner!r} is not a seat in 0..{n - 1}")
    if winner is not None and parse_cards(hands[winner]):
        raise ValueError(f"the winner (seat {winner}) must hold no cards")
    bad_flags = [f for f in opened if not isinstance(f, bool | np.bool_)]
    if bad_flags:
        raise ValueError(f"opened flags must be True or False, got {bad_flags[0]!r}")
    if winner is not None and not opened[winner]:
        raise ValueError(f"the winner (seat {winner}) never opened (opened[{winner}]=False): "
                         f"a seat goes out only by melding")
    negative = [x for x in laid or () if isinstance(x, int | np.integer) and x < 0]
    if negative:
        raise ValueError(f"laid meld values must be >= 0, got {negative[0]}")
    _check_pack(rules, hands, laid)


def _check_pack(rules: RuleSet, hands: Sequence[Cards],
                laid: Sequence[object] | None) -> None:
    """Raise ``ValueError`` naming a card that appears more often than the pack holds."""
    counts = np.zeros(NUM_KINDS, np.int64)
    for hand in hands:
        np.add.at(counts, parse_cards(hand), 1)
    for melds in laid or ():
        if not isinstance(melds, int | np.integer):
            for meld in melds:  # type: ignore[attr-defined]
                np.add.at(counts, parse_cards(meld), 1)
    excess = np.flatnonzero(counts > deck_counts(rules.num_jokers))
    if excess.size:
        kind = int(excess[0])
        raise ValueError(f"{counts[kind]} x {format_cards([kind])} in the hands and melds: "
                         f"the pack of {rules.name} holds {deck_counts(rules.num_jokers)[kind]}")


def score_deal(rules: RuleSet, *, hands: Sequence[Cards], opened: Sequence[bool],
               winner: int | None, closed_from_hand: bool = False,
               laid: Sequence[int | Sequence[Cards]] | None = None) -> list[int]:
    """Each seat's score for one deal, as the preset writes it.

    Args:
        hands: the cards each seat holds at the end of the deal (winner: none).
        opened: whether each seat opened (melded) during the deal.
        winner: the seat that went out, or None for a deal cut off without a winner.
        closed_from_hand: the winner went out in the turn of their first melding.
        laid: jolly only: per seat, the meld value of the cards it put on the table
            (an int) or the melds it laid (card strings, table order). Default: none.
    """
    _check_seats(rules, hands, opened, winner, laid)
    double = rules.closed_from_hand_multiplier if (closed_from_hand and winner is not None) else 1
    scores = []
    for seat, hand in enumerate(hands):
        held = hand_penalty(hand, rules)
        if rules.never_opened_penalty and not opened[seat]:
            held = rules.never_opened_penalty
        if rules.scoring == "penalty":
            scores.append(0 if seat == winner else held * double)
        elif rules.scoring == "points":
            scores.append(rules.winner_bonus * double if seat == winner else -held * double)
        else:
            gained = _laid_points(laid[seat], rules) if laid is not None else 0
            if seat == winner:
                scores.append((gained + rules.winner_bonus) * double)
            else:
                scores.append(gained - held * double)
    return scores


def match_totals(deal_scores: Iterable[Sequence[int]]) -> list[int]:
    """Running totals: the sum of each seat's deal scores."""
    totals: list[int] = []
    for scores in deal_scores:
        totals = list(scores) if not totals else [t + s for t, s in zip(totals, scores,
                                                                        strict=True)]
    return totals


def is_match_over(rules: RuleSet, totals: Sequence[int], deals_played: int) -> bool:
    """Whether the match has ended: a target reached (sk: -target, jolly: +target) or, with
    no target, ``match_deals`` deals played."""
    if rules.match_target and totals:
        if rules.scoring == "points":
            return min(totals) <= -rules.match_target
        return max(totals) >= rules.match_target
    return deals_played >= rules.match_deals


def match_winners(rules: RuleSet, totals: Sequence[int]) -> list[int]:
    """Seats with the best total (lowest for cz penalties, highest otherwise); ties share."""
    best = min(totals) if rules.lower_is_better else max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
