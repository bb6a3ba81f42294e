"""The stock and the discard pile: taking discards or the bottom card, drawing the top
card, rebuilding the stock; and counting a pile's cards by kind.

The moves are compiled kernels on one deal ``b`` of ``s`` (a ``state.Fields``), called
by ``moves.apply``; the deal's end when the stock cannot be rebuilt is ``turns``'s
business (``turns.refill_stock``). The moves keep ``discard_counts`` up to date as they
go; ``count_pile`` recounts it for a set-up position and for the property tests.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.jit import (
    R_BOTTOM_MUST_LAY,
    R_DEEP_PICKUP,
    R_MAX_REBUILDS,
    R_REBUILD_KEEPS,
    R_SHUFFLE_REBUILD,
    inline_kernel,
    kernel,
)
from zolik_env.rummy.shuffle import row_order
from zolik_env.rummy.state import PHASE_PLAY, Fields

REBUILT, EXHAUSTED, CUT_OFF = 0, 1, 2  # what ``rebuild_stock`` did


def count_cards(kinds: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """int8 (R, K): how many of each kind row r of ``kinds`` (R, n) holds where ``valid``."""
    r = len(kinds)
    row_start = np.arange(0, r * (NUM_KINDS + 1), NUM_KINDS + 1)[:, None]
    flat = np.where(valid, kinds, NUM_KINDS) + row_start  # kind K: not a card
    counts = np.bincount(flat.ravel(), minlength=r * (NUM_KINDS + 1))
    return counts.reshape(r, NUM_KINDS + 1)[:, :NUM_KINDS].astype(np.int8)


def count_pile(pile: np.ndarray, length: np.ndarray) -> np.ndarray:
    """int8 (B, K): cards by kind among the first ``length`` entries of each pile row."""
    return count_cards(pile, np.arange(pile.shape[1]) < length[:, None])


@inline_kernel
def _take_card(s: Fields, b: int, card: int) -> None:
    """A card from the discard pile or the bottom card goes to the current seat's hand:
    publicly known to be held, and not to be discarded this turn."""
    cur = s.current[b]
    s.hands[b, cur, card] += 1
    s.taken_unlaid[b, card] += 1
    s.known_taken[b, cur, card] += 1
    s.took_pile[b] = True
    s.phase[b] = PHASE_PLAY


@inline_kernel
def take_discards(p: np.ndarray, s: Fields, b: int, count: int) -> None:
    """Take the newest ``count`` discards: cz/sk the top one, which must then be laid this
    turn; jolly any depth, no obligation (docs/rules-spec.md §2.3, §4.3)."""
    length = s.discard_len[b]
    for depth in range(count):
        card = s.discard[b, length - 1 - depth]
        _take_card(s, b, card)
        s.discard_counts[b, card] -= 1
    s.discard_len[b] = length - count
    if not p[R_DEEP_PICKUP]:
        s.must_use[b] = s.discard[b, length - 1]


@inline_kernel
def take_bottom(p: np.ndarray, s: Fields, b: int) -> None:
    """sk: take the face-up bottom card (once per deal; it may not be discarded this turn,
    and with ``bottom_card_must_lay`` it must be laid this turn, docs/rules-spec.md §3.3)."""
    _take_card(s, b, s.bottom[b])
    if p[R_BOTTOM_MUST_LAY]:
        s.must_use[b] = s.bottom[b]
    s.bottom[b] = -1


@inline_kernel
def pop_stock(s: Fields, b: int) -> int:
    """Remove and return the top card of the (non-empty) stock."""
    top = s.stock_len[b] - 1
    card = s.stock[b, top]
    s.stock[b, top] = -1
    s.stock_len[b] = top
    return int(card)


@kernel
def rebuild_stock(p: np.ndarray, s: Fields, b: int) -> int:
    """Rebuild the empty stock from the discard pile when a player draws from it
    (docs/rules-spec.md §1.10, §2.6, §4.7): cz/sk turn the discards except the newest
    over, unshuffled (the oldest discard becomes the top); jolly shuffles all but the
    newest three, by the deal's key and the rebuild count. Returns ``REBUILT``, or why
    the deal ends instead: ``EXHAUSTED`` (nothing to rebuild from; this wins over the
    rebuild limit) or ``CUT_OFF`` (the ``max_stock_rebuilds``-th rebuild)."""
    keep = p[R_REBUILD_KEEPS]
    n = s.discard_len[b] - keep
    if n <= 0:
        return EXHAUSTED
    if s.rebuilds[b] + 1 >= p[R_MAX_REBUILDS]:
        return CUT_OFF
    size = s.stock.shape[1]
    if p[R_SHUFFLE_REBUILD]:
        order = np.empty(size, np.int64)
        row_order(s.rng_key[b], np.uint64(s.rebuilds[b] + 1), np.arange(size) < n, order)
        for j in range(n):
            s.stock[b, j] = s.discard[b, order[j]]
    else:
        for j in range(n):
            s.stock[b, j] = s.discard[b, n - 1 - j]
    s.stock[b, n:] = -1
    s.stock_len[b] = n
    kept = s.discard[b, n: n + keep].copy()
    s.discard[b] = -1
    s.discard[b, :keep] = kept
    s.discard_len[b] = keep
    s.discard_counts[b] = 0
    for card in kept:
        s.discard_counts[b, card] += 1
    s.rebuilds[b] += 1
    return REBUILT
