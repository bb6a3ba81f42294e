"""Cards of Žolík: card kinds, the text codec and the glossary.

Glossary (docs/rules-spec.md §1):
    run       >= 3 cards of one suit in consecutive rank (ace low ``A 2 3`` or high
              ``Q K A``, never ``K A 2``).
    set       3 or 4 cards of one rank, every card a different suit.
    meld      a run or a set on the table.
    lay-off   adding a card to a meld already on the table.
    stock     the face-down pile players draw from.
    discard pile  the face-up pile; each turn ends by discarding onto it.
    joker     a wild card (``JK``); on the table it carries the identity of the
              card it stands for.

A *card kind* is an integer ``k`` in ``[0, NUM_KINDS)``: ``k = suit * 13 + rank``
for the 52 naturals (rank 0 is the ace, 12 the king) and ``JOKER = 52``. Two decks
mean every natural kind exists twice, so hands are count vectors over kinds.

This module imports only the standard library and numpy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
NUM_SUITS = 4
NUM_RANKS = 13
NUM_NATURALS = NUM_SUITS * NUM_RANKS
JOKER = NUM_NATURALS
NUM_KINDS = NUM_NATURALS + 1
_KIND_IDS = np.arange(NUM_KINDS)
JOKER_TEXT = "JK"


def kind_of(suit: int, rank: int) -> int:
    """The card kind of a natural card (suit 0..3 in ``S H D C`` order, rank 0 = ace)."""
    return suit * NUM_RANKS + rank


def suit_of(kind: int) -> int:
    """Suit index 0..3 of a natural kind."""
    return kind // NUM_RANKS


def rank_of(kind: int) -> int:
    """Rank index 0..12 (0 = ace, 12 = king) of a natural kind."""
    return kind % NUM_RANKS


def is_joker(kind: int) -> bool:
    return kind == JOKER


def _parse_rank(text: str) -> int | None:
    text = "10" if text == "T" else text
    return RANKS.index(text) if text in RANKS else None


def parse_card(token: str) -> int:
    """Parse one card in the kit's notation (``10H``, ``TH``, ``A♠``, ``JK``;
    docs/rules-spec.md §0.2) into its kind.

    Raises:
        ValueError: quoting the token when it is not a card.
    """
    if not isinstance(token, str):
        raise ValueError(f"bad card {token!r}: expected a card like 10H, TH, A♠ or JK")
    text = token.strip().upper()
    if text == JOKER_TEXT:
        return JOKER
    if len(text) >= 2:
        suit_char = text[-1]
        suit = SUITS.find(suit_char)
        if suit < 0:
            suit = SUIT_SYMBOLS.find(token.strip()[-1])
        rank = _parse_rank(text[:-1])
        if suit >= 0 and rank is not None:
            return kind_of(suit, rank)
    raise ValueError(
        f"bad card {token!r}: expected rank A 2-10 J Q K (T for 10) and suit S H D C "
        f"(or ♠ ♥ ♦ ♣), e.g. '10H', or 'JK' for a joker"
    )


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Parse a whitespace- or comma-separated card string (or a sequence of tokens or kinds)."""
    tokens: Iterable[str | int] = text.replace(",", " ").split() if isinstance(text, str) else text
    kinds = []
    for token in tokens:
        if isinstance(token, (int, np.integer)):
            kind = int(token)
            if not 0 <= kind < NUM_KINDS:
                raise ValueError(f"bad card kind {kind!r}: expected 0..{NUM_KINDS - 1}")
            kinds.append(kind)
        else:
            kinds.append(parse_card(token))
    return kinds


def card_to_str(kind: int) -> str:
    """Format one card kind in the notation of docs/rules-spec.md §0.2 (``10H``, ``AS``, ``JK``)."""
    if kind == JOKER:
        return JOKER_TEXT
    if not 0 <= kind < NUM_NATURALS:
        raise ValueError(f"bad card kind {kind!r}: expected 0..{NUM_KINDS - 1}")
    return RANKS[rank_of(kind)] + SUITS[suit_of(kind)]


def format_cards(kinds: Iterable[int]) -> str:
    """Format card kinds as a space-separated string, in the given order."""
    return " ".join(card_to_str(int(k)) for k in kinds)


def counts_of(kinds: Iterable[int]) -> np.ndarray:
    """Count vector (NUM_KINDS,) int16 of a sequence of card kinds."""
    counts = np.zeros(NUM_KINDS, dtype=np.int16)
    for kind in kinds:
        counts[int(kind)] += 1
    return counts


def cards_of(counts: Sequence[int] | np.ndarray) -> list[int]:
    """Sorted list of card kinds (suit then rank, jokers last) held in a count vector
    (one ``np.repeat``: the web table's views call it for every hand and pile)."""
    held = np.maximum(np.asarray(counts, np.int64)[:NUM_KINDS], 0)
    return np.repeat(_KIND_IDS, held).tolist()


def deck_counts(num_jokers: int) -> np.ndarray:
    """Count vector of the full two-deck pack with ``num_jokers`` jokers."""
    counts = np.full(NUM_KINDS, 2, dtype=np.int16)
    counts[JOKER] = num_jokers
    return counts
