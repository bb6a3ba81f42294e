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


def _presence_bits(counts: np.ndarray) -> np.ndarray:
    """uint64 (N,): bit k set where ``counts[:, k] > 0`` (k < 64)."""
    packed = np.packbits(counts > 0, axis=1, bitorder="little")
    padded = np.zeros((len(counts), 8), np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)[:, 0]


PATTERN_BITS = _presence_bits(A.MELD_PATTERN_COUNTS[:, :NUM_NATURALS])


def _meld_mask(rules: RuleSet, hand: np.ndarray, room: np.ndarray) -> np.ndarray:
    """bool (R, NUM_MELD_PATTERNS) for rows that may lay cards."""
    bits = _presence_bits(hand[:, :NUM_NATURALS])
    has_naturals = (bits[:, None] & PATTERN_BITS[None, :]) == PATTERN_BITS[None, :]
    has_jokers = hand[:, JOKER, None] >= A.MELD_PATTERN_JOKERS[None, :]
    keeps_one = hand.sum(-1, dtype=np.int32)[:, None] - A.MELD_PATTERN_SIZE[None, :] >= 1
    return (room[:, None] & A.meld_pattern_valid(rules)[None, :] & has_naturals & has_jokers
            & keeps_one)


def _joker_fits(rules: RuleSet, kind: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """bool (R, M, 2): a joker may go on meld m at the low (0) / high (1) end (sets: 0)."""
    naturals = (cells == 1).sum(-1)
    jokers = (cells == JOKER_CELL).sum(-1)
    fewer_ok = (jokers + 1 < naturals) if rules.jokers_fewer_than_naturals else True
    low, high = run_ends(cells)
    low_neighbour = np.take_along_axis(cells, low[..., None], -1)[..., 0]
    high_neighbour = np.take_along_axis(cells, high[..., None], -1)[..., 0]
    apart = rules.jokers_adjacent_in_run
    is_run = kind == RUN
    run_low = is_run & (low >= 1) & (apart | (low_neighbour != JOKER_CELL)) & fewer_ok
    run_high = is_run & (high <= A.MELD_CELLS - 2) & (apart | (high_neighbour != JOKER_CELL))
    run_high &= fewer_ok
    set_ok = (kind == SET) & (cells[..., SET_JOKER_CELL] == 0) & (naturals + jokers < 4) & (
        rules.max_jokers_in_set >= 1) & fewer_ok
    return np.stack([run_low | set_ok, run_high], axis=-1)


# Natural kind filling cell c of a run with suit key (cells 0..12; the high ace apart) and
# of a set with rank key (cells 0..3, the last repeated so both tables have 13 columns:
# a repeated index is written with the same value).
_RUN_KIND = np.arange(NUM_SUITS)[:, None] * NUM_RANKS + np.arange(NUM_RANKS)[None, :]
_SET_COLUMNS = np.minimum(np.arange(NUM_RANKS), NUM_SUITS - 1)
_SET_KIND = _SET_COLUMNS[None, :] * NUM_RANKS + np.arange(NUM_RANKS)[:, None]


def _natural_fits(kind: np.ndarray, key: np.ndarray,
                  cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bool (R, M, 52) natural kind k fits meld m (an ace at a run's low end), and
    bool (R, M, 4) the ace of a suit fits at a run's high end."""
    low, high = run_ends(cells)
    c = np.arange(A.MELD_CELLS)
    is_run = kind == RUN
    run_cell = is_run[..., None] & (
        (c == (low - 1)[..., None]) | (c == (high + 1)[..., None]) | (cells == JOKER_CELL))
    set_cell = (kind == SET)[..., None] & (cells[..., _SET_COLUMNS] == 0)
    key = np.clip(key, 0, NUM_RANKS - 1).astype(np.int64)
    index = np.where(is_run[..., None], _RUN_KIND[np.minimum(key, NUM_SUITS - 1)],
                     _SET_KIND[key])
    fits = np.zeros((*kind.shape, NUM_NATURALS), bool)
    np.put_along_axis(fits, index, run_cell[..., :NUM_RANKS] | set_cell, -1)
    suit_hot = key[..., None] == np.arange(NUM_SUITS)
    return fits, suit_hot & run_cell[..., A.MELD_CELLS - 1, None]


def _lay_masks(rules: RuleSet, state: State, rows: np.ndarray,
               hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For rows that may lay cards: bool meld (R, patterns), and lay-offs on the first
    ``used`` slots (the only ones holding melds in these rows): natural (R, used * 52),
    ace-high (R, used * 4), joker (R, used * 2)."""
    r = len(rows)
    used = int(state.num_melds[rows].max())
    melds = _meld_mask(rules, hand, state.num_melds[rows] < MAX_MELDS)
    slots = np.arange(used)[None, :]
    opened = state.opened[rows, state.current[rows]]
    may = (opened[:, None] | (slots >= state.snap_num_melds[rows, None])) & (
        slots < state.num_melds[rows, None])
    kind = state.meld_kind[rows, :used]
    key, cells = state.meld_key[rows, :used], state.cells[rows, :used]
    fits, ace_high = _natural_fits(kind, key, cells)
    has = hand[:, :NUM_NATURALS] > 0
    natural = fits & has[:, None, :] & may[..., None]
    high = ace_high & has[:, None, 0::NUM_RANKS] & may[..., None]
    joker = _joker_fits(rules, kind, cells) & (hand[:, JOKER] > 0)[:, None, None] & may[..., None]
    return melds, natural.reshape(r, -1), high.reshape(r, -1), joker.reshape(r, -1)


def legal_action_mask(rules: RuleSet, state: State) -> np.ndarray:
    """bool (B, NUM_ACTIONS): the moves the seat to act may make now."""
    b = state.batch_size
    hand = current_hands(state)
    hand_size = hand.sum(-1, dtype=np.int32)
    opened = state.opened[np.arange(b), state.current]
    playing = (state.phase == PHASE_PLAY) & ~state.done
    can_lay = playing & melding_allowed(rules, state) & ~state.undone & (hand_size >= 2)
    undo = playing & ~state.undone & (state.laid | state.took_pile)
    obligations_met = (state.must_use < 0) & (state.freed_jokers == 0) & (opened | ~state.laid)
    discard = (playing & obligations_met)[:, None] & (hand - state.taken_unlaid >= 1)
    mask = np.zeros((b, A.NUM_ACTIONS), bool)
    mask[:, : A.MELD_BASE] = _draw_mask(rules, state, hand_size, opened)
    rows = np.flatnonzero(can_lay)
    if rows.size:
        melds, natural, high, joker = _lay_masks(rules, state, rows, hand[rows])
        mask[rows, A.MELD_BASE : A.LAYOFF_BASE] = melds
        mask[rows, A.LAYOFF_BASE : A.LAYOFF_BASE + natural.shape[1]] = natural
        mask[rows, A.ACE_HIGH_BASE : A.ACE_HIGH_BASE + high.shape[1]] = high
        mask[rows, A.JOKER_BASE : A.JOKER_BASE + joker.shape[1]] = joker
    mask[:, A.UNDO] = undo
    mask[:, A.DISCARD_BASE :] = discard
    return mask


