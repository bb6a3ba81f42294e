"""Shuffling, cutting (sk) and dealing: the start of a deal (docs/rules-spec.md §1.2, §2.1,
§3.1-3.2, §4.1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zolik_env.rummy.actions import MAX_MELDS, MELD_CELLS
from zolik_env.rummy.cards import JOKER, NUM_KINDS, cards_of, deck_counts
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.shuffle import deal_keys, shuffle_order
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State
from zolik_env.rummy.turns import begin_turns


def _cut(rules: RuleSet, stock: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sk cutting: jokers among the bottom ``cut_cards`` go to the cutter, the first
    non-joker becomes the face-up bottom card, the rest stay at the bottom of the stock.

    Returns (stock with those cards removed, -1 padded at the top; cutter's jokers (B,);
    bottom card (B,), -1 if all cut cards were jokers).
    """
    b, size = stock.shape
    cut = stock[:, : rules.cut_cards]
    is_joker = cut == JOKER
    first = np.argmax(~is_joker, axis=1)
    has_bottom = (~is_joker).any(1)
    bottom = np.where(has_bottom, cut[np.arange(b), first], -1).astype(np.int8)
    removed = np.zeros(stock.shape, bool)
    removed[:, : rules.cut_cards] = is_joker
    removed[np.arange(b)[has_bottom], first[has_bottom]] = True
    order = np.argsort(removed, axis=1, kind="stable")
    kept = np.take_along_axis(stock, order, 1)
    kept_len = size - removed.sum(1)
    kept = np.where(np.arange(size)[None, :] < kept_len[:, None], kept, -1)
    return kept, is_joker.sum(1), bottom


def _empty_state(rules: RuleSet, b: int, size: int) -> dict[str, np.ndarray]:
    p, m, c = rules.num_players, MAX_MELDS, MELD_CELLS

    def zeros(*shape: int, dtype: type = np.int8) -> np.ndarray:
        return np.zeros((b, *shape), dtype)

    return {
        "hands": zeros(p, NUM_KINDS), "stock": zeros(size), "stock_len": zeros(dtype=np.int16),
        "discard": np.full((b, size), -1, np.int8), "discard_len": zeros(dtype=np.int16),
        "bottom": np.full(b, -1, np.int8), "meld_kind": zeros(m), "meld_key": zeros(m),
        "cells": zeros(m, c), "cell_owner": np.full((b, m, c), -1, np.int8),
        "num_melds": zeros(), "current": zeros(), "phase": zeros(),
        "turn": zeros(dtype=np.int16), "starter": zeros(), "opened": zeros(p, dtype=bool),
        "known_taken": zeros(p, NUM_KINDS), "table_counts": zeros(NUM_KINDS),
        "discard_counts": zeros(NUM_KINDS), "rebuilds": zeros(),
        "rng_key": zeros(dtype=np.uint64), "opened_before": zeros(dtype=bool),
        "drawn": zeros(), "took_pile": zeros(dtype=bool), "taken_unlaid": zeros(NUM_KINDS),
        "must_use": zeros(), "freed_jokers": zeros(), "laid": zeros(dtype=bool),
        "undone": zeros(dtype=bool), "snap_hand": zeros(NUM_KINDS),
        "snap_known": zeros(NUM_KINDS), "snap_discard_len": zeros(dtype=np.int16),
        "snap_bottom": zeros(), "snap_num_melds": zeros(), "snap_kind": zeros(m),
        "snap_key": zeros(m), "snap_cells": zeros(m, c), "snap_owner": zeros(m, c),
        "snap_table_counts": zeros(NUM_KINDS), "snap_discard_counts": zeros(NUM_KINDS),
        "terminated": zeros(dtype=bool), "truncated": zeros(dtype=bool),
        "winner": np.full(b, -1, np.int8), "closed_from_hand": zeros(dtype=bool),
        "scores": zeros(p, dtype=np.int16),
    }


def _deal_hands(rules: RuleSet, d: dict[str, np.ndarray], starter: np.ndarray) -> None:
    """Deal from the top of the stock, one card at a time from the starter round the table;
    the starter's extra card (cz/sk) comes last."""
    b = len(starter)
    p, h = rules.num_players, rules.hand_size
    count = p * h + int(rules.starter_discards_first)
    j = np.arange(count)
    seat = np.where(j < p * h, (starter[:, None] + j[None, :]) % p, starter[:, None])
    top = d["stock_len"].astype(np.int64)[:, None] - 1 - j[None, :]
    cards = d["stock"][np.arange(b)[:, None], top]
    np.add.at(d["hands"], (np.repeat(np.arange(b), count), seat.ravel(), cards.ravel()), 1)
    d["stock"][np.arange(b)[:, None], top] = -1
    d["stock_len"] -= count


def deal(rules: RuleSet, seeds: Sequence[int] | np.ndarray,
         deal_index: Sequence[int] | np.ndarray | int = 0) -> State:
    """B fresh deals (see ``game.init``)."""
    keys = deal_keys(np.asarray(seeds))
    pack = np.array(cards_of(deck_counts(rules.num_jokers)), np.int8)
    return _deal_from(rules, pack[shuffle_order(keys, 0, len(pack))], keys, deal_index)


def deal_stock(rules: RuleSet, stock: np.ndarray, keys: np.ndarray,
               deal_index: Sequence[int] | np.ndarray | int = 0) -> State:
    """B fresh deals from shuffled packs given by the caller, not from seeds: ``stock``
    (B, pack size), each row a permutation of the pack, dealt from its end as ``deal``
    deals; ``keys`` uint64 (B,) the deals' keys for jolly's later reshuffles. For a table
    whose deals must not be a function of a short seed (the web table shuffles with a
    cryptographic generator).

    Raises:
        ValueError: when a row is not the pack of ``rules`` or the shapes disagree.
    """
    pack = np.array(cards_of(deck_counts(rules.num_jokers)), np.int8)
    stock = np.asarray(stock)
    keys = np.asarray(keys)
    if stock.ndim != 2 or stock.shape[1] != len(pack) or keys.shape != (len(stock),):
        raise ValueError(f"stock must be (B, {len(pack)}) with one key per deal, got "
                         f"stock {stock.shape} and keys {keys.shape}")
    if not np.issubdtype(stock.dtype, np.integer) or keys.dtype != np.uint64:
        raise ValueError(f"stock must hold card ids and keys be uint64, got {stock.dtype} "
                         f"and {keys.dtype}")
    if not (np.sort(stock, axis=1) == np.sort(pack)[None, :]).all():
        raise ValueError("each stock row must be a permutation of the pack")
    return _deal_from(rules, stock.astype(np.int8), keys.copy(), deal_index)


def _deal_from(rules: RuleSet, stock: np.ndarray, keys: np.ndarray,
               deal_index: Sequence[int] | np.ndarray | int) -> State:
    b, size = stock.shape
    d = _empty_state(rules, b, size)
    d["rng_key"] = keys
    d["stock"] = stock
    d["stock_len"][:] = size
    starter = (np.broadcast_to(np.asarray(deal_index), (b,)) % rules.num_players).astype(np.int8)
    if rules.bottom_card:
        d["stock"], cutter_jokers, d["bottom"] = _cut(rules, d["stock"])
        d["stock_len"][:] = (d["stock"] >= 0).sum(1)
        cutter = (starter.astype(np.int64) - 2) % rules.num_players
        d["hands"][np.arange(b), cutter, JOKER] += cutter_jokers.astype(np.int8)
    _deal_hands(rules, d, starter)
    d["starter"] = starter.copy()
    d["current"] = starter.copy()
    d["phase"][:] = PHASE_PLAY if rules.starter_discards_first else PHASE_DRAW
    state = State(**d)
    begin_turns(rules, state, np.arange(b))
    return state
