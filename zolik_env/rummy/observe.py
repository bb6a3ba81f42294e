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
from zolik_env.rummy.jit import R_PLAYERS, borrowed, by_identity, copy_into, kernel
from zolik_env.rummy.masks import check_pair, may_meld_in_turn
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_pile
from zolik_env.rummy.state import PHASE_DRAW as PHASE_DRAW  # re-exported: "phase" columns
from zolik_env.rummy.state import PHASE_OVER as PHASE_OVER
from zolik_env.rummy.state import PHASE_PLAY as PHASE_PLAY
from zolik_env.rummy.state import State, fields_of
from zolik_env.rummy.table import count_table, melds_value, new_melds
from zolik_env.rummy.values import kernel_tables


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


@by_identity
def _kernel_args(rules: RuleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """What ``observe`` passes its kernel: the options, the cell values, the full pack, and
    ``obs_size`` plain and privileged; looked up by identity (see ``jit.by_identity``)."""
    tables = kernel_tables(rules)
    return (tables.params, tables.cell_value, _pack(rules.num_jokers),
            (obs_size(rules), obs_size(rules, privileged=True)))


_KINDS = np.arange(NUM_KINDS)


@functools.cache
def _pack(num_jokers: int) -> np.ndarray:
    """The full pack's counts, shared between calls (so read-only)."""
    pack = deck_counts(num_jokers)
    pack.flags.writeable = False
    return pack


# _SEAT_ORDER[p - 1, s, i]: with p players, the seat i places after seat s
_SEAT_ORDER = np.array([[[(s + i) % p for i in range(4)] for s in range(4)] for p in range(1, 5)])


def observe(rules: RuleSet, state: State, seat: np.ndarray | int,
            privileged: bool = False) -> np.ndarray:
    """int16 (B, obs_size): what ``seat`` (one per deal, or one for all; 0..P-1) may know.

    Hidden information (other hands, the stock's order and content) enters only as the
    ``unseen`` counts, unless ``privileged`` (for critics) appends ``all_hands`` and the
    stock order.
    """
    check_pair(rules, state)
    b = state.batch_size
    if isinstance(seat, np.ndarray) and seat.ndim:  # one seat per deal
        seats = seat.astype(np.int64, copy=False)
    elif np.ndim(seat) == 0:  # one seat for all
        seats = np.empty(b, np.int64)
        seats.fill(int(seat))
    else:
        seats = np.asarray(seat, np.int64)
    params, cell_value, pack, sizes = _kernel_args(rules)
    out = np.empty((b, sizes[privileged]), np.int16)
    _observe_rows(params, cell_value, pack, seats, privileged, state.buffer,
                  state.layout.table, out)
    return out


@kernel
def _observe_rows(p: np.ndarray, cell_value: np.ndarray, pack: np.ndarray, seats: np.ndarray,
                  privileged: bool, buffer: np.ndarray, table: np.ndarray,
                  out: np.ndarray) -> None:
    """Write each deal's observation into ``out`` (B, obs_size), part by part in the order
    of ``obs_layout`` (a test checks every part against its slice's meaning)."""
    s = fields_of(buffer, table)
    p, cell_value, pack = borrowed(p), borrowed(cell_value), borrowed(pack)
    seats, out = borrowed(seats), borrowed(out)
    players = p[R_PLAYERS]
    k = NUM_KINDS
    order = np.empty(players, np.int64)
    for b in range(len(seats)):
        row = out[b]
        for i in range(players):  # the observer first, in turn order
            order[i] = (seats[b] + i) % players
        hand = s.hands[b, order[0]]
        row[:k] = hand
        at = _write_table(row, k, s.meld_kind[b], s.meld_key[b], s.cells[b], s.snap_cells[b],
                          s.num_melds[b], s.table_counts[b])
        at = _write_piles(row, at, s.discard[b], s.discard_len[b], s.discard_counts[b], s.bottom[b],
                          s.stock_len[b])
        at = _write_seats(row, at, order, s.hands[b], s.opened[b], s.known_taken[b])
        for kind in range(k):  # unseen: other hands and the stock
            row[at + kind] = (pack[kind] - hand[kind] - s.table_counts[b, kind]
                              - s.discard_counts[b, kind] - (s.bottom[b] == kind))
        at += k
        for i in range(players):
            row[at + i] = order[i] == s.current[b]
        at = _one_hot(row, at + players, s.phase[b], len(PHASE_NAMES))
        row[at] = s.turn[b] // players + 1
        row[at + 1] = may_meld_in_turn(p, s.turn[b])
        at += 2
        row[at + FLAG_TOOK_PILE] = s.took_pile[b]  # turn_flags, in TURN_FLAGS order
        row[at + FLAG_LAID] = s.laid[b]
        row[at + FLAG_UNDONE] = s.undone[b]
        row[at + FLAG_OPENED_BEFORE] = s.opened_before[b]
        row[at + FLAG_FREED_JOKERS] = s.freed_jokers[b] > 0
        at = _one_hot(row, at + len(TURN_FLAGS), s.must_use[b], k)
        row[at: at + k] = s.taken_unlaid[b]
        row[at + k] = 0  # opening_points: meld value laid this turn by a seat not yet opened
        if s.laid[b] and not s.opened_before[b]:
            row[at + k] = melds_value(cell_value, s.meld_kind[b], s.meld_key[b], s.cells[b],
                                      new_melds(s.snap_num_melds[b], s.num_melds[b]))
        row[at + k + 1] = s.rebuilds[b]
        at += k + 2
        for i in range(players):
            row[at + i] = s.scores[b, order[i]]
        if privileged:
            _write_hidden(row, at + players, order, s.hands[b], s.stock[b], s.stock_len[b])


@kernel
def _one_hot(row: np.ndarray, at: int, index: int, size: int) -> int:
    """Write a one-hot of ``index`` (none if outside 0..size-1) at ``row[at:]``; returns
    where the next part starts."""
    row[at: at + size] = 0
    if 0 <= index < size:
        row[at + index] = 1
    return at + size


@kernel
def _write_table(row: np.ndarray, at: int, meld_kind: np.ndarray, meld_key: np.ndarray,
                 cells: np.ndarray, snap_cells: np.ndarray, num_melds: int,
                 table_counts: np.ndarray) -> int:
    """meld_kind, meld_key, meld_cells, meld_new (cells that differ from the turn's start)
    and table_counts of one deal, from ``row[at]``; returns where the next part starts."""
    m = MAX_MELDS
    row[at: at + m] = meld_kind
    row[at + m: at + 2 * m] = meld_key
    at += 2 * m
    copy_into(row[at: at + m * MELD_CELLS], cells)
    at += m * MELD_CELLS
    row[at: at + m] = 0
    for slot in range(num_melds):
        for c in range(MELD_CELLS):
            if cells[slot, c] != snap_cells[slot, c]:
                row[at + slot] = 1
                break
    at += m
    row[at: at + NUM_KINDS] = table_counts
    return at + NUM_KINDS


@kernel
def _write_piles(row: np.ndarray, at: int, discard: np.ndarray, discard_len: int,
                 discard_counts: np.ndarray, bottom: int, stock_len: int) -> int:
    """discard_newest, discard_counts, discard_size, bottom_card and stock_size."""
    for depth in range(MAX_DISCARD_SHOWN):  # newest first
        index = discard_len - 1 - depth
        row[at + depth] = discard[index] if index >= 0 else -1
    at += MAX_DISCARD_SHOWN
    row[at: at + NUM_KINDS] = discard_counts
    row[at + NUM_KINDS] = discard_len
    at = _one_hot(row, at + NUM_KINDS + 1, bottom, NUM_KINDS)
    row[at] = stock_len
    return at + 1


@kernel
def _write_seats(row: np.ndarray, at: int, order: np.ndarray, hands: np.ndarray,
                 opened: np.ndarray, known_taken: np.ndarray) -> int:
    """hand_sizes, opened and known_taken, seats in ``order``."""
    players = len(order)
    for i in range(players):
        row[at + i] = hands[order[i]].sum()
        row[at + players + i] = opened[order[i]]
    at += 2 * players
    for i in range(players):
        row[at + i * NUM_KINDS: at + (i + 1) * NUM_KINDS] = known_taken[order[i]]
    return at + players * NUM_KINDS


@kernel
def _write_hidden(row: np.ndarray, at: int, order: np.ndarray, hands: np.ndarray,
                  stock: np.ndarray, stock_len: int) -> None:
    """The privileged parts: all_hands (seats in ``order``) and stock_order."""
    for i in range(len(order)):
        row[at + i * NUM_KINDS: at + (i + 1) * NUM_KINDS] = hands[order[i]]
    at += len(order) * NUM_KINDS
    row[at: at + MAX_STOCK_SHOWN] = -1
    row[at: at + stock_len] = stock[:stock_len]


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
