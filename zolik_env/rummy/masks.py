"""Legal-action masks of the batched core: bool (B, NUM_ACTIONS), exact per docs/rules-spec.md.

Convention: a finished deal (terminated or truncated) has an all-False row.

The mask is one compiled kernel over the deals (``zolik_env.rummy.jit``); what fits on
the table comes from ``fits``, the lay-off rules' one home. The turn start asks the same
kernels whether a player facing an empty stock may draw at all (``may_draw``).
"""

from __future__ import annotations

import functools

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import MAX_MELDS, MAX_PICKUP
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_SUITS, deck_counts
from zolik_env.rummy.fits import joker_fits, natural_fits
from zolik_env.rummy.jit import (
    R_BOTTOM_CARD,
    R_BOTTOM_FROM_ROUND,
    R_DEEP_PICKUP,
    R_MAX_HAND_CARDS,
    R_NO_MELD_ROUNDS,
    R_NO_PICKUP,
    R_PICKUP_NEEDS_OPENED,
    R_PLAYERS,
    R_REBUILD_KEEPS,
    R_STARTER_DISCARDS_FIRST,
    borrowed,
    kernel,
    params,
)
from zolik_env.rummy.melds import require_rules
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State, fields_of
from zolik_env.rummy.values import kernel_tables


def melding_allowed(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B,): this turn may lay cards (past the no-meld rounds; not the starter's
    discard-only first turn)."""
    return melding_allowed_in_turn(rules, state.turn)


def melding_allowed_in_turn(rules: RuleSet, turn: np.ndarray) -> np.ndarray:
    """bool (B,): turn number ``turn`` may lay cards (see ``melding_allowed``)."""
    turns = np.ascontiguousarray(turn, np.int64).reshape(-1)
    out = np.zeros(len(turns), np.bool_)
    _may_meld_rows(params(rules), turns, out)
    return out.reshape(np.shape(turn))


@kernel
def _may_meld_rows(p: np.ndarray, turns: np.ndarray, out: np.ndarray) -> None:
    for i in range(len(turns)):
        out[i] = may_meld_in_turn(p, turns[i])


@kernel
def may_meld_in_turn(p: np.ndarray, turn: int) -> bool:
    """Turn number ``turn`` may lay cards: past the no-meld rounds, and not the starter's
    discard-only first turn (cz/sk)."""
    if turn < p[R_NO_MELD_ROUNDS] * p[R_PLAYERS]:
        return False
    return not (p[R_STARTER_DISCARDS_FIRST] and turn == 0)


@kernel
def can_rebuild(p: np.ndarray, discard_len: int) -> bool:
    """An empty stock can be rebuilt from the discard pile, which keeps its newest
    ``rebuild_keeps`` cards (docs/rules-spec.md §1.10)."""
    return bool(discard_len > p[R_REBUILD_KEEPS])


@kernel
def draw_alternatives(p: np.ndarray, discard_len: int, bottom: int, turn: int,
                      hand_size: int, opened: bool, out: np.ndarray) -> None:
    """Write into ``out`` bool (MAX_PICKUP + 1,) the draws other than the stock: take
    discard 1..MAX_PICKUP, take the bottom card. Reads plain values (not a State) so that
    the turn start can ask whether a player facing an empty stock may draw at all."""
    may_take = opened or not p[R_PICKUP_NEEDS_OPENED]
    limit = p[R_MAX_HAND_CARDS]
    if p[R_NO_PICKUP]:  # discard_pickup="none": the discard pile is never taken
        out[0] = False
    elif not p[R_DEEP_PICKUP]:  # cz/sk: the top discard only, to be laid this turn
        out[0] = (may_take and may_meld_in_turn(p, turn) and discard_len >= 1
                  and (limit == 0 or hand_size + 1 <= limit))
    else:
        for depth in range(1, MAX_PICKUP + 1):
            out[depth - 1] = (may_take and depth <= discard_len
                              and (limit == 0 or hand_size + depth <= limit))
    if p[R_BOTTOM_CARD]:
        out[MAX_PICKUP] = bottom >= 0 and turn >= (p[R_BOTTOM_FROM_ROUND] - 1) * p[R_PLAYERS]


@kernel
def may_draw(p: np.ndarray, stock_len: int, discard_len: int, bottom: int, turn: int,
             hand_size: int, opened: bool) -> bool:
    """A player in the draw phase has some legal draw: the stock (or its rebuild), a
    discard pick-up or the bottom card."""
    if stock_len > 0 or can_rebuild(p, discard_len):
        return True
    alternatives = np.zeros(MAX_PICKUP + 1, np.bool_)
    draw_alternatives(p, discard_len, bottom, turn, hand_size, opened, alternatives)
    return bool(alternatives.any())


PATTERN_SIZE = A.MELD_PATTERN_SIZE
PATTERN_JOKERS = A.MELD_PATTERN_JOKERS
PATTERN_NATURALS = A.MELD_PATTERN_NATURALS  # padded with NUM_KINDS


@kernel
def _meld_mask(valid: np.ndarray, hand: np.ndarray, hand_size: int, out: np.ndarray) -> None:
    """Set ``out`` (NUM_MELD_PATTERNS,) where the pattern is a valid meld, the hand holds
    its naturals and jokers and keeps a card to discard."""
    for pattern in range(A.NUM_MELD_PATTERNS):
        if not valid[pattern] or hand_size <= PATTERN_SIZE[pattern]:
            continue
        if hand[JOKER] < PATTERN_JOKERS[pattern]:
            continue
        held = True
        for i in range(A.MAX_PATTERN_NATURALS):
            kind = PATTERN_NATURALS[pattern, i]
            if kind < NUM_KINDS and hand[kind] == 0:
                held = False
                break
        out[pattern] = held


@kernel
def _lay_off_mask(p: np.ndarray, meld_kind: np.ndarray, meld_key: np.ndarray,
                  cells: np.ndarray, first_touchable: int, num_melds: int, hand: np.ndarray,
                  opened: bool, out: np.ndarray) -> None:
    """Set the lay-offs in ``out`` (one mask row, all False there before) on the slots the
    seat may touch: all if it has opened, else only its own melds of this turn (from
    ``first_touchable``)."""
    for m in range(first_touchable, num_melds):
        natural_fits(meld_kind[m], meld_key[m], cells[m], opened, hand,
                     out[A.LAYOFF_BASE + m * NUM_NATURALS: A.LAYOFF_BASE + (m + 1) * NUM_NATURALS],
                     out[A.ACE_HIGH_BASE + m * NUM_SUITS: A.ACE_HIGH_BASE + (m + 1) * NUM_SUITS])
        if hand[JOKER] > 0:
            jokers = A.JOKER_BASE + 2 * m
            joker_fits(p, meld_kind[m], cells[m], out[jokers: jokers + 2])


@kernel
def _mask_rows(p: np.ndarray, valid_patterns: np.ndarray, buffer: np.ndarray,
               table: np.ndarray, out: np.ndarray) -> None:
    s = fields_of(buffer, table)
    p, valid_patterns, out = borrowed(p), borrowed(valid_patterns), borrowed(out)
    for b in range(out.shape[0]):
        row = out[b]
        seat = s.current[b]
        hand = s.hands[b, seat]
        hand_size = 0
        for kind in range(NUM_KINDS):
            hand_size += hand[kind]
        is_open = s.opened[b, seat]
        if s.phase[b] == PHASE_DRAW:
            row[A.DRAW_STOCK] = s.stock_len[b] > 0 or can_rebuild(p, s.discard_len[b])
            draw_alternatives(p, s.discard_len[b], s.bottom[b], s.turn[b], hand_size, is_open,
                              row[A.TAKE_DISCARD_BASE: A.MELD_BASE])
        elif s.phase[b] == PHASE_PLAY:
            fresh = not s.undone[b]
            if fresh and hand_size >= 2 and may_meld_in_turn(p, s.turn[b]):
                if s.num_melds[b] < MAX_MELDS:
                    _meld_mask(valid_patterns, hand, hand_size, row[A.MELD_BASE: A.LAYOFF_BASE])
                first = 0 if is_open else s.snap_num_melds[b]
                _lay_off_mask(p, s.meld_kind[b], s.meld_key[b], s.cells[b], first, s.num_melds[b],
                              hand, is_open, row)
            row[A.UNDO] = fresh and (s.laid[b] or s.took_pile[b])
            if s.must_use[b] < 0 and s.freed_jokers[b] == 0 and (is_open or not s.laid[b]):
                for kind in range(NUM_KINDS):
                    row[A.DISCARD_BASE + kind] = hand[kind] > s.taken_unlaid[b, kind]


def check_pair(rules: object, state: object) -> None:
    """Raise ``ValueError`` unless ``rules`` is a ``RuleSet`` and ``state`` a ``State``
    of its shape: its players and its pack (the rules' fingerprint a state carries; two
    rule sets with the same players and pack are not told apart). O(1): on the hot path."""
    require_rules(rules)
    assert isinstance(rules, RuleSet)  # for mypy: require_rules raised otherwise
    if not isinstance(state, State):
        raise ValueError(f"state must be a State (game.init), got {type(state).__name__}")
    lay = state.layout
    if lay.players != rules.num_players or lay.pack_size != pack_size(rules):
        raise ValueError(f"a state of {lay.players} players and a pack of {lay.pack_size} "
                         f"cards is not a state of {rules.name} with {rules.num_players} "
                         f"players and {pack_size(rules)} cards")


def pack_size(rules: RuleSet) -> int:
    """The number of cards in the pack of ``rules``."""
    return _pack_size(rules.num_jokers)


@functools.cache
def _pack_size(num_jokers: int) -> int:
    return int(deck_counts(num_jokers).sum())


def legal_action_mask(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B, NUM_ACTIONS): the moves the seat to act may make now (``check_pair``)."""
    check_pair(rules, state)
    mask = np.zeros((state.batch_size, A.NUM_ACTIONS), np.bool_)
    tables = kernel_tables(rules)
    _mask_rows(tables.params, tables.pattern_valid, state.buffer, state.layout.table, mask)
    return mask

