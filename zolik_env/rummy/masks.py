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


# Suit and rank of each natural kind, for matching a meld's key and reading its cells.
_SUIT_OF = np.arange(NUM_NATURALS) // NUM_RANKS
_RANK_OF = np.arange(NUM_NATURALS) % NUM_RANKS
_SUITS = np.arange(NUM_SUITS)


def _edges(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For cells (R, M, C): bool occupied, joker, and whether the cell before / after each
    cell is occupied (a run's cells are contiguous, so these find its two ends)."""
    occupied = cells != 0
    before = np.zeros_like(occupied)
    before[..., 1:] = occupied[..., :-1]
    after = np.zeros_like(occupied)
    after[..., :-1] = occupied[..., 1:]
    return occupied, cells == JOKER_CELL, before, after


def _natural_fits(kind: np.ndarray, key: np.ndarray, occupied: np.ndarray, joker: np.ndarray,
                  before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bool (R, M, 52) natural kind k fits meld m (an ace at a run's low end), and
    bool (R, M, 4) the ace of a suit fits at a run's high end.

    A run takes its suit's card for the empty cell just outside either end, or for a
    joker's cell (a swap); a set takes its rank in an empty suit cell."""
    run_cell = ((before | after) & ~occupied) | joker
    is_run = (kind == RUN)[..., None]
    run_fits = is_run & (key[..., None] == _SUIT_OF) & run_cell[..., _RANK_OF]
    set_fits = (kind == SET)[..., None] & (key[..., None] == _RANK_OF) & ~occupied[..., _SUIT_OF]
    ace_high = is_run & (key[..., None] == _SUITS) & run_cell[..., A.MELD_CELLS - 1, None]
    return run_fits | set_fits, ace_high


def _joker_fits(rules: RuleSet, kind: np.ndarray, occupied: np.ndarray, joker: np.ndarray,
                before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """bool (R, M, 2): a joker may go on meld m at the low (0) / high (1) end (sets: 0)."""
    size = occupied.sum(-1)
    ok = np.ones(kind.shape, bool)
    if rules.jokers_fewer_than_naturals:
        jokers = joker.sum(-1)
        ok = jokers + 1 < size - jokers
    # a run's first cell 0 / last cell C-1 occupied: no room past that end
    run_low = (kind == RUN) & ~occupied[..., 0] & ok
    run_high = (kind == RUN) & ~occupied[..., A.MELD_CELLS - 1] & ok
    if not rules.jokers_adjacent_in_run:  # the end card may not be a joker already
        run_low &= ~(joker & ~before).any(-1)
        run_high &= ~(joker & ~after).any(-1)
    set_ok = (kind == SET) & ~occupied[..., SET_JOKER_CELL] & (size < 4) & ok
    if rules.max_jokers_in_set < 1:
        set_ok[:] = False
    return np.stack([run_low | set_ok, run_high], axis=-1)


def _lay_masks(rules: RuleSet, state: State, rows: np.ndarray,
               hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For rows that may lay cards: bool meld (R, patterns), and lay-offs on the first
    ``used`` slots (the only ones holding melds in these rows): natural (R, used * 52),
    ace-high (R, used * 4), joker (R, used * 2)."""
    r = len(rows)
    num_melds = state.num_melds[rows]
    melds = _meld_mask(rules, hand, num_melds < MAX_MELDS)
    used = int(num_melds.max())
    slots = np.arange(used)
    opened = state.opened[rows, state.current[rows]]
    may = (opened[:, None] | (slots >= state.snap_num_melds[rows, None])) & (
        slots < num_melds[:, None])
    if not may.any():  # nothing on the table this seat may touch yet
        empty = np.zeros((r, 0), bool)
        return melds, empty, empty, empty
    kind = state.meld_kind[rows, :used]
    key = state.meld_key[rows, :used]
    occupied, joker, before, after = _edges(state.cells[rows, :used])
    fits, ace_high = _natural_fits(kind, key, occupied, joker, before, after)
    has = hand[:, None, :NUM_NATURALS] > 0
    may = may[..., None]
    natural = fits & has & may
    high = ace_high & has[..., 0::NUM_RANKS] & may
    joker_fits = _joker_fits(rules, kind, occupied, joker, before, after)
    joker_fits &= (hand[:, JOKER] > 0)[:, None, None] & may
    return melds, natural.reshape(r, -1), high.reshape(r, -1), joker_fits.reshape(r, -1)


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


