"""Legal-action masks of the batched core: bool (B, NUM_ACTIONS), exact per RULES.md.

Convention: a finished deal (terminated or truncated) has an all-False row.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import JOKER_CELL, MAX_MELDS, MAX_PICKUP, RUN, SET, SET_JOKER_CELL
from zolik_env.rummy.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State
from zolik_env.rummy.table import run_ends


def current_hands(state: State) -> np.ndarray:
    """int8 (B, K): the hand of the seat to act."""
    return state.hands[np.arange(state.batch_size), state.current]


def melding_allowed(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B,): this turn may lay cards (past the no-meld rounds; not the starter's
    discard-only first turn)."""
    round_ = state.turn // rules.num_players + 1
    first = (state.turn == 0) if rules.starter_discards_first else np.zeros_like(state.turn, bool)
    return (round_ > rules.no_meld_rounds) & ~first


def _draw_mask(rules: RuleSet, state: State, hand_size: np.ndarray,
               opened: np.ndarray) -> np.ndarray:
    """bool (B, 1 + MAX_PICKUP + 1): draw stock, take discard 1..MAX_PICKUP, take bottom."""
    drawing = (state.phase == PHASE_DRAW) & ~state.done
    may_take = drawing & (opened | (not rules.pickup_needs_opened))
    depth = np.arange(1, MAX_PICKUP + 1)[None, :]
    take = may_take[:, None] & (depth <= state.discard_len[:, None])
    if rules.discard_pickup == "top_must_use":
        take &= (depth == 1) & melding_allowed(rules, state)[:, None]
    if rules.max_hand_cards:
        take &= hand_size[:, None] + depth <= rules.max_hand_cards
    round_ = state.turn // rules.num_players + 1
    bottom = drawing & (state.bottom >= 0) & (round_ >= rules.bottom_card_from_round)
    return np.concatenate([drawing[:, None], take, bottom[:, None]], axis=1)


def _meld_mask(rules: RuleSet, state: State, hand: np.ndarray, hand_size: np.ndarray,
               can_lay: np.ndarray) -> np.ndarray:
    """bool (B, NUM_MELD_PATTERNS)."""
    padded = np.concatenate([hand, np.ones((len(hand), 1), hand.dtype)], axis=1)
    has_naturals = (padded[:, A.MELD_PATTERN_NATURALS] > 0).all(-1)
    has_jokers = hand[:, JOKER, None] >= A.MELD_PATTERN_JOKERS[None, :]
    keeps_one = hand_size[:, None] - A.MELD_PATTERN_SIZE[None, :] >= 1
    room = state.num_melds < MAX_MELDS
    return ((can_lay & room)[:, None] & A.meld_pattern_valid(rules)[None, :] & has_naturals
            & has_jokers & keeps_one)


def _joker_fits(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B, M, 2): a joker may go on meld m at the low (0) / high (1) end (sets: 0)."""
    cells = state.cells
    naturals = (cells == 1).sum(-1)
    jokers = (cells == JOKER_CELL).sum(-1)
    fewer_ok = (jokers + 1 < naturals) if rules.jokers_fewer_than_naturals else True
    low, high = run_ends(cells)
    low_neighbour = np.take_along_axis(cells, low[..., None], -1)[..., 0]
    high_neighbour = np.take_along_axis(cells, high[..., None], -1)[..., 0]
    apart = rules.jokers_adjacent_in_run
    is_run = state.meld_kind == RUN
    run_low = is_run & (low >= 1) & (apart | (low_neighbour != JOKER_CELL)) & fewer_ok
    run_high = is_run & (high <= A.MELD_CELLS - 2) & (apart | (high_neighbour != JOKER_CELL))
    run_high &= fewer_ok
    set_ok = (state.meld_kind == SET) & (cells[..., SET_JOKER_CELL] == 0) & (
        naturals + jokers < 4) & (rules.max_jokers_in_set >= 1) & fewer_ok
    return np.stack([run_low | set_ok, run_high], axis=-1)


def _natural_fits(state: State) -> tuple[np.ndarray, np.ndarray]:
    """bool (B, M, 4, 13) natural (suit, rank) fits meld m (aces at the low end), and
    bool (B, M, 4) the ace of a suit fits at the high end."""
    cells = state.cells
    low, high = run_ends(cells)
    c = np.arange(A.MELD_CELLS)
    run_cell = (state.meld_kind == RUN)[..., None] & (
        (c == (low - 1)[..., None]) | (c == (high + 1)[..., None]) | (cells == JOKER_CELL))
    suit_hot = state.meld_key[..., None] == np.arange(NUM_SUITS)
    rank_hot = state.meld_key[..., None] == np.arange(NUM_RANKS)
    run_fit = suit_hot[..., :, None] & run_cell[..., None, :NUM_RANKS]
    set_cell = (state.meld_kind == SET)[..., None] & (cells[..., :NUM_SUITS] == 0)
    set_fit = set_cell[..., :, None] & rank_hot[..., None, :]
    return run_fit | set_fit, suit_hot & run_cell[..., A.MELD_CELLS - 1, None]


def _layoff_masks(rules: RuleSet, state: State, hand: np.ndarray,
                  can_lay: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """bool (B, M*52), (B, M*4), (B, M*2): natural, ace-high and joker lay-offs."""
    b = state.batch_size
    own_new = np.arange(MAX_MELDS)[None, :] >= state.snap_num_melds[:, None]
    opened = state.opened[np.arange(b), state.current]
    may = can_lay[:, None] & (opened[:, None] | own_new) & (
        np.arange(MAX_MELDS)[None, :] < state.num_melds[:, None])
    fits, ace_high = _natural_fits(state)
    has = hand[:, :NUM_NATURALS] > 0
    natural = fits.reshape(b, MAX_MELDS, NUM_NATURALS) & has[:, None, :] & may[..., None]
    aces = has[:, 0::NUM_RANKS]
    high = ace_high & aces[:, None, :] & may[..., None]
    joker = _joker_fits(rules, state) & (hand[:, JOKER] > 0)[:, None, None] & may[..., None]
    return natural.reshape(b, -1), high.reshape(b, -1), joker.reshape(b, -1)


def legal_action_mask(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B, NUM_ACTIONS): the moves the seat to act may make now."""
    b = state.batch_size
    hand = current_hands(state)
    hand_size = hand.sum(-1, dtype=np.int32)
    opened = state.opened[np.arange(b), state.current]
    playing = (state.phase == PHASE_PLAY) & ~state.done
    can_lay = playing & melding_allowed(rules, state) & ~state.undone & (hand_size >= 2)
    natural, high, joker = _layoff_masks(rules, state, hand, can_lay)
    undo = playing & ~state.undone & (state.laid | state.took_pile)
    obligations_met = (state.must_use < 0) & (state.freed_jokers == 0) & (opened | ~state.laid)
    discard = (playing & obligations_met)[:, None] & (hand - state.taken_unlaid >= 1)
    mask = np.concatenate([
        _draw_mask(rules, state, hand_size, opened),
        _meld_mask(rules, state, hand, hand_size, can_lay),
        natural, high, joker, undo[:, None], discard], axis=1)
    assert mask.shape[1] == A.NUM_ACTIONS
    return mask


