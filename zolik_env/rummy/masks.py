"""Legal-action masks of the batched core: bool (B, NUM_ACTIONS), exact per docs/rules-spec.md.

Convention: a finished deal (terminated or truncated) has an all-False row.
"""

from __future__ import annotations

import numpy as np

from zolik_env.arrays import BoolArray
from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import MAX_MELDS, MAX_PICKUP, RUN, SET
from zolik_env.rummy.cards import JOKER, NUM_NATURALS, NUM_RANKS
from zolik_env.rummy.fits import edges, natural_fits, without_swaps
from zolik_env.rummy.fits import joker_fits as lay_joker_fits
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State


def melding_allowed(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B,): this turn may lay cards (past the no-meld rounds; not the starter's
    discard-only first turn)."""
    return melding_allowed_in_turn(rules, state.turn)


def melding_allowed_in_turn(rules: RuleSet, turn: np.ndarray) -> np.ndarray:
    """bool (B,): turn number ``turn`` may lay cards (see ``melding_allowed``)."""
    allowed = turn >= rules.no_meld_rounds * rules.num_players  # round > no_meld_rounds
    if rules.starter_discards_first:
        allowed &= turn != 0
    return allowed


def _draw_mask(rules: RuleSet, state: State, drawing: np.ndarray, hand_size: np.ndarray,
               opened: np.ndarray, may_meld: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` bool (B, 1 + MAX_PICKUP + 1): draw stock, take discard
    1..MAX_PICKUP, take bottom."""
    out[:, 0] = drawing & ((state.stock_len > 0) | can_rebuild(rules, state.discard_len))
    draw_alternatives(rules, state.discard_len, state.bottom, state.turn, drawing, hand_size,
                      opened, may_meld, out[:, 1:])


def can_rebuild(rules: RuleSet, discard_len: np.ndarray) -> np.ndarray:
    """bool (B,): an empty stock can be rebuilt from the discard pile, which keeps its
    newest ``rebuild_keeps`` cards (docs/rules-spec.md §1.10)."""
    return discard_len > rules.rebuild_keeps


def draw_alternatives(rules: RuleSet, discard_len: np.ndarray, bottom: np.ndarray,
                      turn: np.ndarray, drawing: np.ndarray, hand_size: np.ndarray,
                      opened: np.ndarray, may_meld: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` bool (R, MAX_PICKUP + 1) the draws other than the stock: take
    discard 1..MAX_PICKUP, take the bottom card. Reads plain arrays (not a State) so that
    the turn start can ask whether a player facing an empty stock may draw at all."""
    may_take = drawing & opened if rules.pickup_needs_opened else drawing
    take = out[:, :MAX_PICKUP]
    if rules.discard_pickup == "top_must_use":  # the top discard only, to be laid this turn
        take[:, 0] = may_take & may_meld & (discard_len >= 1)
    else:
        np.less_equal(_DEPTH, discard_len[:, None], out=take)
        take &= may_take[:, None]
    if rules.max_hand_cards:
        take &= hand_size[:, None] + _DEPTH <= rules.max_hand_cards
    if rules.bottom_card:
        bottom_round = turn >= (rules.bottom_card_from_round - 1) * rules.num_players
        out[:, MAX_PICKUP] = drawing & (bottom >= 0) & bottom_round


_DEPTH = np.arange(1, MAX_PICKUP + 1)


def _presence_bits(counts: np.ndarray) -> np.ndarray:
    """uint64 (N,): bit k set where ``counts[:, k] > 0`` (k < 64)."""
    packed = np.packbits(counts > 0, axis=1, bitorder="little")
    padded = np.zeros((len(counts), 8), np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)[:, 0]


PATTERN_BITS = _presence_bits(A.MELD_PATTERN_COUNTS[:, :NUM_NATURALS])


def _meld_mask(rules: RuleSet, hand: np.ndarray, hand_size: np.ndarray,
               room: np.ndarray) -> np.ndarray:
    """bool (R, NUM_MELD_PATTERNS) for rows that may lay cards: the pattern is a valid meld,
    the hand holds its naturals and jokers and keeps a card to discard, and a slot is free."""
    bits = _presence_bits(hand[:, :NUM_NATURALS])
    melds: BoolArray = (bits[:, None] & PATTERN_BITS) == PATTERN_BITS
    melds &= hand[:, JOKER, None] >= A.MELD_PATTERN_JOKERS
    melds &= hand_size[:, None] > A.MELD_PATTERN_SIZE
    melds &= A.meld_pattern_valid(rules) & room[:, None]
    return melds


def _lay_masks(rules: RuleSet, state: State, rows: np.ndarray | slice, hand: np.ndarray,
               hand_size: np.ndarray,
               opened: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the R ``rows`` (indices, or a slice of them) that may lay cards: bool meld
    (R, patterns), and lay-offs on the first ``used`` slots (the only ones holding melds in
    these rows): natural (R, used * 52), ace-high (R, used * 4), joker (R, used * 2).
    ``hand``, ``hand_size`` and ``opened`` are those rows' already."""
    r = len(hand)
    num_melds = state.num_melds[rows]
    melds = _meld_mask(rules, hand, hand_size, num_melds < MAX_MELDS)
    used = int(num_melds.max())
    slots = np.arange(used)
    may = (opened[:, None] | (slots >= state.snap_num_melds[rows, None])) & (
        slots < num_melds[:, None])
    if not may.any():  # nothing on the table this seat may touch yet
        empty = np.zeros((r, 0), bool)
        return melds, empty, empty, empty
    kind = state.meld_kind[rows, :used]
    is_run, is_set = kind == RUN, kind == SET  # (empty slots are neither; ``may`` drops them)
    key = state.meld_key[rows, :used]
    occupied, joker, before, after = edges(state.cells[rows, :used])
    for_naturals = occupied, joker
    if not opened.all() and joker.any():
        for_naturals = without_swaps(opened, is_set, occupied, joker)
    fits, ace_high = natural_fits(is_run, key, *for_naturals, before, after)
    has = hand[:, None, :NUM_NATURALS] > 0
    may = may[..., None]
    natural = fits & has & may
    high = ace_high & has[..., 0::NUM_RANKS] & may
    has_joker = hand[:, JOKER] > 0
    if has_joker.any():
        joker_fits = lay_joker_fits(rules, is_run, is_set, occupied, joker, before, after)
        joker_fits &= has_joker[:, None, None] & may
    else:
        joker_fits = np.zeros((r, used, 2), bool)
    return melds, natural.reshape(r, -1), high.reshape(r, -1), joker_fits.reshape(r, -1)


def legal_action_mask(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B, NUM_ACTIONS): the moves the seat to act may make now."""
    b = state.batch_size
    seat = (np.arange(b), state.current)
    hand = state.hands[seat]
    hand_size = hand.sum(-1, dtype=np.int32)
    opened = state.opened[seat]
    mask = np.zeros((b, A.NUM_ACTIONS), bool)
    may_meld = melding_allowed(rules, state)
    # Each phase's moves are built only when some deal is in that phase: with a batch of
    # one deal, that halves the work. (A finished deal is in neither: its phase is over.)
    drawing = state.phase == PHASE_DRAW
    if drawing.any():
        _draw_mask(rules, state, drawing, hand_size, opened, may_meld, mask[:, : A.MELD_BASE])
    playing = state.phase == PHASE_PLAY
    if playing.any():
        _play_mask(rules, state, playing, hand, hand_size, opened, may_meld, mask)
    return mask


def _play_mask(rules: RuleSet, state: State, playing: np.ndarray, hand: np.ndarray,
               hand_size: np.ndarray, opened: np.ndarray, may_meld: np.ndarray,
               out: np.ndarray) -> None:
    """Write into the mask ``out`` bool (B, NUM_ACTIONS) the moves of the play phase:
    melds, lay-offs, joker lay-offs, UNDO and discards."""
    fresh = playing & ~state.undone
    rows = (fresh & may_meld & (hand_size >= 2)).nonzero()[0]
    if rows.size:
        target = slice(None) if rows.size == len(out) else rows  # all rows: no fancy index
        melds, natural, high, joker = _lay_masks(rules, state, target, hand[target],
                                                 hand_size[target], opened[target])
        out[target, A.MELD_BASE : A.LAYOFF_BASE] = melds
        if natural.size:
            out[target, A.LAYOFF_BASE : A.LAYOFF_BASE + natural.shape[1]] = natural
            out[target, A.ACE_HIGH_BASE : A.ACE_HIGH_BASE + high.shape[1]] = high
            out[target, A.JOKER_BASE : A.JOKER_BASE + joker.shape[1]] = joker
    out[:, A.UNDO] = fresh & (state.laid | state.took_pile)
    discard = out[:, A.DISCARD_BASE :]
    np.greater(hand, state.taken_unlaid, out=discard)
    obligations_met = (state.must_use < 0) & (state.freed_jokers == 0) & (opened | ~state.laid)
    discard &= (playing & obligations_met)[:, None]
