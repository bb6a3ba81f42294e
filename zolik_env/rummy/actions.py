"""The flat action space of Žolík: one ``Discrete(NUM_ACTIONS)`` for every decision.

=================================  =========================  ============================
ids                                string                     move
=================================  =========================  ============================
``DRAW_STOCK``                     ``draw stock``             top card of the stock
``TAKE_DISCARD_BASE + n - 1``      ``take discard n``         the newest n discards
``TAKE_BOTTOM``                    ``take bottom``            sk: the face-up bottom card
``MELD_BASE + i``                  ``meld 5H JK 7H``          meld pattern i from hand
``LAYOFF_BASE + 52 m + k``         ``layoff 8H on m``         natural k on meld slot m:
                                                              extend, fill, or swap a joker
``ACE_HIGH_BASE + 4 m + s``        ``layoff AH on m high``    ace of suit s, high end of m
``JOKER_BASE + 2 m + e``           ``layoff JK on m low``     joker at run end e (sets: 0)
``UNDO``                           ``undo``                   take back this turn's moves
``DISCARD_BASE + k``               ``discard KS``             discard kind k, ending the turn
=================================  =========================  ============================

A natural laid on a run's end extends it; on a set it fills its suit; on the cell of a
joker it swaps the joker, which goes to hand (``swap 6H in m`` names the same action).
An ace goes to the low end unless the ace-high action is used. ``docs/core.md`` has the
numeric table.

Why this is enough: every legal turn is a sequence of these. A meld pattern is a
3-card run (5 joker patterns), a 3-card set, or, for the "fewer jokers than naturals"
rule, an alternating run ``N JK N JK N ...`` (5 to 13 cards) that no sequence of valid
3-card melds and extensions can reach. Every other valid run or set loses an end card
and stays valid, so it is a 3-card pattern followed by lay-offs on one's own new meld
(which docs/rules-spec.md §1.5 lets a player do during the opening turn too). Deep
pick-ups take 1 to ``MAX_PICKUP`` cards. The count stays small for a policy head (2,658 actions).
"""

from __future__ import annotations

import functools
import re

import numpy as np

from zolik_env.rummy.cards import (
    JOKER,
    NUM_KINDS,
    NUM_NATURALS,
    NUM_SUITS,
    SUITS,
    card_to_str,
    kind_of,
    parse_card,
    rank_of,
    suit_of,
)
from zolik_env.rummy.melds import NUM_POSITIONS, check_meld, position_rank
from zolik_env.rummy.options import RuleSet

MAX_MELDS = 36  # (108 cards - one per hand) // 3: the table can never hold more melds
MAX_PICKUP = 24  # deepest jolly pick-up the action table can express
MELD_CELLS = NUM_POSITIONS  # run cells = positions 1..14; set cells 0..3 = suits, 4 = joker
MAX_PATTERN_NATURALS = 7

RUN, SET = 1, 2
EMPTY, NATURAL, JOKER_CELL = 0, 1, 2
SET_JOKER_CELL = 4


def _run_patterns() -> list[tuple[int, int, tuple[bool, ...]]]:
    """(suit, first position, joker flags) of every run pattern."""
    shapes: list[tuple[bool, ...]] = [
        (False, False, False), (True, False, False), (False, True, False),
        (False, False, True), (True, False, True),
    ]
    shapes += [tuple(i % 2 == 1 for i in range(n)) for n in (5, 7, 9, 11, 13)]
    return [(suit, start, shape) for shape in shapes for suit in range(NUM_SUITS)
            for start in range(1, NUM_POSITIONS - len(shape) + 2)]


def _set_patterns() -> list[tuple[int, tuple[int, ...], bool]]:
    """(rank, natural suits, with joker) of every 3-card set pattern."""
    out = []
    for rank in range(13):
        for missing in range(NUM_SUITS):
            out.append((rank, tuple(s for s in range(NUM_SUITS) if s != missing), False))
        for a in range(NUM_SUITS):
            out.extend((rank, (a, b), True) for b in range(a + 1, NUM_SUITS))
    return out


def _build_meld_table() -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, np.ndarray]:
    """Table-order cards, slot kind, slot key and slot cells of every meld pattern."""
    cards, kinds, keys, cells = [], [], [], []
    for suit, start, shape in _run_patterns():
        row = np.zeros(MELD_CELLS, np.int8)
        order = []
        for i, is_jk in enumerate(shape):
            position = start + i
            row[position - 1] = JOKER_CELL if is_jk else NATURAL
            order.append(JOKER if is_jk else kind_of(suit, position_rank(position)))
        cards.append(tuple(order))
        kinds.append(RUN)
        keys.append(suit)
        cells.append(row)
    for rank, suits, with_joker in _set_patterns():
        row = np.zeros(MELD_CELLS, np.int8)
        row[list(suits)] = NATURAL
        if with_joker:
            row[SET_JOKER_CELL] = JOKER_CELL
        cards.append(tuple(kind_of(s, rank) for s in suits) + ((JOKER,) if with_joker else ()))
        kinds.append(SET)
        keys.append(rank)
        cells.append(row)
    return cards, np.array(kinds, np.int8), np.array(keys, np.int8), np.stack(cells)


MELD_PATTERN_CARDS, MELD_PATTERN_KIND, MELD_PATTERN_KEY, MELD_PATTERN_CELLS = _build_meld_table()
NUM_MELD_PATTERNS = len(MELD_PATTERN_CARDS)
# naturals of each pattern, padded with NUM_KINDS (an always-available dummy kind)
MELD_PATTERN_NATURALS = np.array(
    [[c for c in cards if c != JOKER] + [NUM_KINDS] * (MAX_PATTERN_NATURALS - sum(
        c != JOKER for c in cards)) for cards in MELD_PATTERN_CARDS], np.int16)
MELD_PATTERN_COUNTS = np.zeros((NUM_MELD_PATTERNS, NUM_KINDS), np.int8)  # cards each lays
for _i, _cards in enumerate(MELD_PATTERN_CARDS):
    for _k in _cards:
        MELD_PATTERN_COUNTS[_i, _k] += 1
MELD_PATTERN_JOKERS = np.array([cards.count(JOKER) for cards in MELD_PATTERN_CARDS], np.int8)
MELD_PATTERN_SIZE = np.array([len(cards) for cards in MELD_PATTERN_CARDS], np.int8)

DRAW_STOCK = 0
TAKE_DISCARD_BASE = 1
TAKE_BOTTOM = TAKE_DISCARD_BASE + MAX_PICKUP
MELD_BASE = TAKE_BOTTOM + 1
LAYOFF_BASE = MELD_BASE + NUM_MELD_PATTERNS
ACE_HIGH_BASE = LAYOFF_BASE + MAX_MELDS * NUM_NATURALS
JOKER_BASE = ACE_HIGH_BASE + MAX_MELDS * NUM_SUITS
UNDO = JOKER_BASE + MAX_MELDS * 2
DISCARD_BASE = UNDO + 1
NUM_ACTIONS = DISCARD_BASE + NUM_KINDS


@functools.lru_cache(maxsize=64)
def meld_pattern_valid(rules: RuleSet) -> np.ndarray:
    """bool (NUM_MELD_PATTERNS,): which patterns are valid melds under ``rules``, decided by
    the readable rules API so the core and ``check_meld`` cannot disagree."""
    return np.array([check_meld(list(cards), rules).valid for cards in MELD_PATTERN_CARDS])


def action_to_string(action: int) -> str:
    """The action in card notation (state-free: slots are numbered from 0)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} out of range [0, {NUM_ACTIONS})")
    if a == DRAW_STOCK:
        return "draw stock"
    if a < TAKE_BOTTOM:
        return f"take discard {a - TAKE_DISCARD_BASE + 1}"
    if a == TAKE_BOTTOM:
        return "take bottom"
    if a < LAYOFF_BASE:
        return "meld " + " ".join(card_to_str(k) for k in MELD_PATTERN_CARDS[a - MELD_BASE])
    if a < ACE_HIGH_BASE:
        slot, kind = divmod(a - LAYOFF_BASE, NUM_NATURALS)
        end = " low" if rank_of(kind) == 0 else ""
        return f"layoff {card_to_str(kind)} on {slot}{end}"
    if a < JOKER_BASE:
        slot, suit = divmod(a - ACE_HIGH_BASE, NUM_SUITS)
        return f"layoff A{SUITS[suit]} on {slot} high"
    if a < UNDO:
        slot, side = divmod(a - JOKER_BASE, 2)
        return f"layoff JK on {slot} {('low', 'high')[side]}"
    if a == UNDO:
        return "undo"
    return f"discard {card_to_str(a - DISCARD_BASE)}"


_MELD_IDS = {" ".join(card_to_str(k) for k in cards): i
             for i, cards in enumerate(MELD_PATTERN_CARDS)}
_LAYOFF = re.compile(r"^(?:layoff|place|swap)\s+(\S+)\s+(?:on|in)\s+(\d+)(?:\s+(low|high))?$")


def _layoff_action(card: str, slot: int, end: str | None) -> int:
    kind = parse_card(card)
    if not 0 <= slot < MAX_MELDS:
        raise ValueError(f"meld slot {slot} out of range [0, {MAX_MELDS})")
    if kind == JOKER:
        return JOKER_BASE + slot * 2 + (end == "high")
    if rank_of(kind) == 0 and end == "high":
        return ACE_HIGH_BASE + slot * NUM_SUITS + suit_of(kind)
    return LAYOFF_BASE + slot * NUM_NATURALS + kind


def string_to_action(text: str) -> int:
    """Parse an action written as :func:`action_to_string` writes it (``swap 6H in 4`` and
    ``place`` are accepted for ``layoff``; ``T`` and suit symbols for cards).

    Raises:
        ValueError: quoting the text when it names no action.
    """
    words = " ".join(text.strip().split())
    low = words.lower()
    if low in ("draw stock", "draw"):
        return DRAW_STOCK
    if low == "take bottom":
        return TAKE_BOTTOM
    if low == "undo":
        return UNDO
    match = re.fullmatch(r"take discard (\d+)", low)
    if match and 1 <= int(match.group(1)) <= MAX_PICKUP:
        return TAKE_DISCARD_BASE + int(match.group(1)) - 1
    if low.startswith("discard "):
        return DISCARD_BASE + parse_card(words.split()[1])
    if low.startswith("meld "):
        cards = " ".join(card_to_str(parse_card(t)) for t in words.split()[1:])
        if cards in _MELD_IDS:
            return MELD_BASE + _MELD_IDS[cards]
        raise ValueError(f"no meld action for {text!r}: a meld action lays 3 cards (or an "
                         f"alternating N JK N ... run); extend it with layoffs")
    match = _LAYOFF.match(low)
    if match:
        return _layoff_action(match.group(1), int(match.group(2)), match.group(3))
    raise ValueError(f"unknown action {text!r}")
