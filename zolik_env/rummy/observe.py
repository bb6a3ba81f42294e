"""Observations of the batched core: one seat's view (imperfect information).

The observation is one flat int16 array per deal with named slices, ``obs_layout``.
Only public facts and the observer's own cards enter it; other hands and the stock
are summarised as ``unseen`` counts. A privileged full view (for critics) is opt-in.

Slices with named columns: ``phase`` is one-hot over ``PHASE_NAMES`` (column
``PHASE_DRAW``, ``PHASE_PLAY``, ``PHASE_OVER``); ``turn_flags`` holds ``TURN_FLAGS``
(column ``FLAG_TOOK_PILE`` ... ``FLAG_FREED_JOKERS``); seat axes start at ``OBSERVER``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from zolik_env.rummy.actions import MAX_MELDS, MELD_CELLS
from zolik_env.rummy.cards import NUM_KINDS, deck_counts
from zolik_env.rummy.masks import melding_allowed
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_pile
from zolik_env.rummy.state import PHASE_DRAW as PHASE_DRAW  # re-exported: "phase" columns
from zolik_env.rummy.state import PHASE_OVER as PHASE_OVER
from zolik_env.rummy.state import PHASE_PLAY as PHASE_PLAY
from zolik_env.rummy.state import State
from zolik_env.rummy.table import count_table, opening_points


def table_counts(state: State) -> np.ndarray:
    """int8 (B, K): cards on the table by kind, recounted from the meld cells."""
    return count_table(state.meld_kind, state.meld_key, state.cells)


def card_locations(state: State) -> np.ndarray:
    """int16 (B, 5, K): counts of each kind in the hands, stock, discard pile, bottom card
    and table, for the conservation invariant (recounted from the piles and meld cells,
    not read from the counts the moves keep)."""
    hands = state.hands.sum(1, dtype=np.int16)
    bottom = (state.bottom[:, None] == _KINDS).astype(np.int16)
    return np.stack([hands, count_pile(state.stock, state.stock_len),
                     count_pile(state.discard, state.discard_len), bottom,
                     table_counts(state)], axis=1).astype(np.int16)


MAX_DISCARD_SHOWN = 24  # newest discards listed in order (deep pick-ups reach 24 cards)

# Columns of the one-hot "phase" slice, in the order of the values of ``State.phase``
# (PHASE_DRAW, PHASE_PLAY, PHASE_OVER: 0, 1, 2).
PHASE_NAMES = ("draw", "play", "over")
# Columns of the "turn_flags" slice (this turn: took a discard or the bottom card, laid
# cards, undid its moves; had opened before the turn; holds freed jokers still to lay).
TURN_FLAGS = ("took_pile", "laid", "undone", "opened_before", "freed_jokers")
FLAG_TOOK_PILE, FLAG_LAID, FLAG_UNDONE, FLAG_OPENED_BEFORE, FLAG_FREED_JOKERS = range(5)
OBSERVER = 0  # index of the observing seat on every seat axis (then the seats after it)


@functools.lru_cache(maxsize=128)
def obs_layout(rules: RuleSet, privileged: bool = False) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Named slices of the flat observation, in order: ``(name, shape)``.

    Seat axes are relative to the observer: index 0 is the observing seat, 1 the next
    seat to play after it, and so on.
    """
    p, k, m, c = rules.num_players, NUM_KINDS, MAX_MELDS, MELD_CELLS
    layout: tuple[tuple[str, tuple[int, ...]], ...] = (
        ("hand", (k,)),  # own cards by kind
        ("meld_kind", (m,)),  # 0 empty, 1 run, 2 set
        ("meld_key", (m,)),  # suit of a run (S H D C = 0..3), rank of a set (A = 0)
        ("meld_cells", (m, c)),  # 0 empty, 1 natural, 2 joker; runs: positions 1..14,
        # sets: suits S H D C then the joker (standing for the first missing suit)
        ("meld_new", (m,)),  # laid or changed by the seat to act this turn
        ("table_counts", (k,)),  # cards on the table by kind
        ("discard_newest", (MAX_DISCARD_SHOWN,)),  # newest first; -1 where none
        ("discard_counts", (k,)),
        ("discard_size", (1,)),
        ("bottom_card", (k,)),  # sk: the face-up bottom card, one-hot
        ("stock_size", (1,)),
        ("hand_sizes", (p,)),
        ("opened", (p,)),
        ("known_taken", (p, k)),  # discards each seat took and has not laid again
        ("unseen", (k,)),  # cards this seat cannot see: other hands and the stock
        ("to_act", (p,)),  # one-hot: whose turn it is
        ("phase", (len(PHASE_NAMES),)),  # one-hot: draw, play, over
        ("round", (1,)),
        ("melding_allowed", (1,)),
        ("turn_flags", (len(TURN_FLAGS),)),  # TURN_FLAGS
        ("must_use", (k,)),  # cz/sk: the taken top discard still to lay, one-hot
        ("taken_unlaid", (k,)),  # cards taken this turn that may not be discarded
        ("opening_points", (1,)),  # meld value laid this turn (for the opening)
        ("rebuilds", (1,)),
        ("scores", (p,)),  # deal scores as the preset writes them, once the deal is over
    )
    if privileged:
        layout += (("all_hands", (p, k)), ("stock_order", (MAX_STOCK_SHOWN,)))
    return layout


MAX_STOCK_SHOWN = 112


@functools.lru_cache(maxsize=128)
def obs_slices(rules: RuleSet, privileged: bool = False) -> tuple[tuple[str, int, int], ...]:
    """``(name, start, stop)`` of every slice of the flat observation."""
    out, start = [], 0
    for name, shape in obs_layout(rules, privileged):
        size = math.prod(shape)
        out.append((name, start, start + size))
        start += size
    return tuple(out)


def obs_size(rules: RuleSet, privileged: bool = False) -> int:
    return obs_slices(rules, privileged)[-1][2]


@functools.lru_cache(maxsize=128)
def _part_names(rules: RuleSet, privileged: bool) -> tuple[int, tuple[str, ...]]:
    """The observation size and the names of its parts, in order."""
    return obs_size(rules, privileged), tuple(name for name, _ in obs_layout(rules, privileged))


def _opening_points(rules: RuleSet, state: State) -> np.ndarray:
    """int (B,) meld value laid this turn by a seat that had not opened before it."""
    points = np.zeros(state.batch_size, np.int64)
    rows = (state.laid & ~state.opened_before).nonzero()[0]
    if rows.size:
        fields = {name: getattr(state, name) for name in _OPENING_FIELDS}
        every = rows.size == state.batch_size  # then whole columns, not fancy indexing
        points[rows] = opening_points(rules, fields, slice(None) if every else rows)
    return points


_OPENING_FIELDS = ("num_melds", "snap_num_melds", "meld_kind", "meld_key", "cells")
_DEPTH = np.arange(1, MAX_DISCARD_SHOWN + 1)  # 1 = the newest discard
_KINDS = np.arange(NUM_KINDS)
_PHASES = np.arange(len(PHASE_NAMES))


@functools.cache
def _pack(num_jokers: int) -> np.ndarray:
    """The full pack's counts, shared between calls (so read-only)."""
    pack = deck_counts(num_jokers)
    pack.flags.writeable = False
    return pack


# _SEAT_ORDER[p - 1, s, i]: with p players, the seat i places after seat s
_SEAT_ORDER = np.array([[[(s + i) % p for i in range(4)] for s in range(4)] for p in range(1, 5)])


def _newest_discards(state: State) -> np.ndarray:
    """int (B, MAX_DISCARD_SHOWN): the discard pile newest first, -1 past its end."""
    index = state.discard_len[:, None] - _DEPTH
    rows = np.arange(state.batch_size)[:, None]
    return np.where(index >= 0, state.discard[rows, np.maximum(index, 0)], -1)


def _meld_new(state: State) -> np.ndarray:
    """bool (B, M): slots laid or changed this turn: their cells differ from the turn's
    start (a slot laid this turn was empty then)."""
    used = int(state.num_melds.max(initial=0))
    new = np.zeros((state.batch_size, MAX_MELDS), bool)
    new[:, :used] = (state.cells[:, :used] != state.snap_cells[:, :used]).any(-1)
    return new


def observe(rules: RuleSet, state: State, seat: np.ndarray | int,
            privileged: bool = False) -> np.ndarray:
    """int16 (B, obs_size): what ``seat`` (one per deal, or one for all; 0..P-1) may know.

    Hidden information (other hands, the stock's order and content) enters only as the
    ``unseen`` counts, unless ``privileged`` (for critics) appends ``all_hands`` and the
    stock order.
    """
    b, p = state.batch_size, rules.num_players
    size, names = _part_names(rules, privileged)
    seat = np.asarray(seat)
    if seat.ndim == 0:
        seat = np.full(b, seat)
    rows = np.arange(b)[:, None]
    order = _SEAT_ORDER[p - 1, seat, :p]  # the seats from the observer's on, in turn order
    hands = state.hands[rows, order]
    hand = hands[:, 0]
    table, discards = state.table_counts, state.discard_counts
    bottom = state.bottom[:, None] == _KINDS
    parts = {
        "hand": hand, "meld_kind": state.meld_kind, "meld_key": state.meld_key,
        "meld_cells": state.cells.reshape(b, -1), "meld_new": _meld_new(state),
        "table_counts": table, "discard_newest": _newest_discards(state),
        "discard_counts": discards, "discard_size": state.discard_len[:, None],
        "bottom_card": bottom, "stock_size": state.stock_len[:, None],
        "hand_sizes": hands.sum(-1, dtype=np.int16), "opened": state.opened[rows, order],
        "known_taken": state.known_taken[rows, order].reshape(b, -1),
        "unseen": _pack(rules.num_jokers) - hand - table - discards - bottom,  # int16
        "to_act": order == state.current[:, None],
        "phase": state.phase[:, None] == _PHASES, "round": (state.turn // p + 1)[:, None],
        "melding_allowed": melding_allowed(rules, state)[:, None],
        "turn_flags": np.array([state.took_pile, state.laid, state.undone,  # TURN_FLAGS
                                state.opened_before, state.freed_jokers > 0]).T,
        "must_use": state.must_use[:, None] == _KINDS, "taken_unlaid": state.taken_unlaid,
        "opening_points": _opening_points(rules, state)[:, None],
        "rebuilds": state.rebuilds[:, None], "scores": state.scores[rows, order],
    }
    if privileged:
        parts["all_hands"] = hands.reshape(b, -1)
        stock = np.full((b, MAX_STOCK_SHOWN), -1, np.int16)
        length = state.stock.shape[1]
        stock[:, :length] = np.where(np.arange(length) < state.stock_len[:, None], state.stock, -1)
        parts["stock_order"] = stock
    # one call writes every part in layout order (with a batch of one deal, numpy's
    # per-call overhead is most of the cost)
    out = np.empty((b, size), np.int16)
    return np.concatenate([parts[name] for name in names], axis=1, out=out)


STOCK_LOOKAHEAD = 8  # top stock cards the critic view counts


def critic_view_size(rules: RuleSet) -> int:
    """Entries of ``critic_view``: the other hands, then the next stock cards by kind."""
    return rules.num_players * NUM_KINDS


def critic_view(rules: RuleSet, state: State, seat: np.ndarray | int) -> np.ndarray:
    """int16 (B, critic_view_size): hidden facts for a training critic, never an actor.

    The hands of the other seats in turn order after ``seat`` ((P - 1) x 53 counts), then
    the kinds of the next ``STOCK_LOOKAHEAD`` cards of the stock (53 counts): what decides
    a deal beyond what ``seat`` sees, in the count form the observation uses. A critic
    that sees them predicts the deal's outcome with less noise than one that must average
    over the hidden cards (asymmetric actor-critic); the policy's moves must never
    depend on them.
    """
    b, p = state.batch_size, rules.num_players
    seat = np.asarray(seat)
    if seat.ndim == 0:
        seat = np.full(b, seat)
    rows = np.arange(b)[:, None]
    others = state.hands[rows, _SEAT_ORDER[p - 1, seat, 1:p]].reshape(b, -1)
    depth = state.stock_len[:, None] - 1 - np.arange(STOCK_LOOKAHEAD)  # the top first
    cards = np.where(depth >= 0, state.stock[rows, np.maximum(depth, 0)], -1)
    upcoming = (cards[:, :, None] == _KINDS).sum(1)
    return np.concatenate([others, upcoming], axis=1).astype(np.int16)
