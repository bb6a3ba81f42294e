"""Stock and discard pile moves: drawing, taking discards, rebuilding the stock.

Functions here edit a dict of mutable state arrays (``State.to_dict()``) in place, on
the given rows only; ``game.step`` copies the state first, so the public API stays pure.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import MAX_PICKUP
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.shuffle import shuffle_order
from zolik_env.rummy.state import PHASE_PLAY, peek

Arrays = dict[str, np.ndarray]


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


def draw_stock(d: Arrays, rows: np.ndarray) -> None:
    """Take the top card of the stock (``turns.draw`` rebuilds an empty one first)."""
    top = d["stock_len"][rows] - 1
    card = d["stock"][rows, top]
    d["stock"][rows, top] = -1
    d["stock_len"][rows] = top
    d["hands"][rows, peek(d, "current")[rows], card] += 1
    d["drawn"][rows] = card
    d["phase"][rows] = PHASE_PLAY


def take_discards(rules: RuleSet, d: Arrays, rows: np.ndarray, count: np.ndarray) -> None:
    """Take the newest ``count`` (R,) discards: cz/sk the top one, which must then be laid
    this turn; jolly any depth, no obligation (docs/rules-spec.md §2.3, §4.3)."""
    cur = peek(d, "current")[rows]
    length = d["discard_len"][rows]
    depth = np.arange(MAX_PICKUP)
    index = length[:, None] - 1 - depth
    cards = d["discard"][rows[:, None], np.maximum(index, 0)]
    taken = count_cards(cards, depth < count[:, None])
    d["hands"][rows, cur] += taken
    d["taken_unlaid"][rows] += taken
    d["known_taken"][rows, cur] += taken
    d["discard_counts"][rows] -= taken
    d["discard_len"][rows] = length - count
    d["took_pile"][rows] = True
    if rules.discard_pickup == "top_must_use":
        d["must_use"][rows] = cards[:, 0]
    d["phase"][rows] = PHASE_PLAY


def take_bottom(d: Arrays, rows: np.ndarray) -> None:
    """sk: take the face-up bottom card (once per deal; it may not be discarded this turn)."""
    cur = peek(d, "current")[rows]
    card = d["bottom"][rows]
    d["hands"][rows, cur, card] += 1
    d["taken_unlaid"][rows, card] += 1
    d["known_taken"][rows, cur, card] += 1
    d["bottom"][rows] = -1
    d["took_pile"][rows] = True
    d["phase"][rows] = PHASE_PLAY


def rebuild_stock(rules: RuleSet, d: Arrays, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rebuild the empty stock of ``rows`` from the discard pile when a player draws from
    it (docs/rules-spec.md §1.10, §2.6, §4.7).

    cz/sk turn the discards except the newest over, unshuffled (the oldest discard becomes
    the top); jolly shuffles all but the newest three. Returns the rows whose deal ends
    instead: (no cards to rebuild from -> terminated, the ``max_stock_rebuilds``-th
    rebuild -> truncated). With nothing to rebuild from, the deal ends by the rules even
    when the rebuild limit is reached too: no rebuild was cut off.
    """
    available = d["discard_len"][rows].astype(np.int32) - rules.rebuild_keeps
    exhausted = available <= 0
    cut_off = ~exhausted & (d["rebuilds"][rows] + 1 >= rules.max_stock_rebuilds)
    ok = ~exhausted & ~cut_off
    r, n = rows[ok], available[ok]
    if r.size:
        size = d["stock"].shape[1]
        j = np.arange(size)
        inside = j[None, :] < n[:, None]
        if rules.stock_rebuild == "shuffle":
            source = shuffle_order(d["rng_key"][r], d["rebuilds"][r] + 1, size, inside)
        else:
            source = np.clip(n[:, None] - 1 - j[None, :], 0, None)
        d["stock"][r] = np.where(inside, d["discard"][r[:, None], source], -1)
        d["stock_len"][r] = n
        keep = rules.rebuild_keeps
        kept = d["discard"][r[:, None], n[:, None] + np.arange(keep)[None, :]]
        d["discard"][r] = -1
        d["discard"][r, :keep] = kept
        d["discard_len"][r] = keep
        d["discard_counts"][r] = count_cards(kept, np.ones(kept.shape, bool))
        d["rebuilds"][r] += 1
    return rows[exhausted], rows[cut_off]
