"""Turn bookkeeping, compiled: the turn's start, drawing from the stock, UNDO, the
discard that ends a turn, and the deal's end with its scores.

Kernels on one deal ``b`` of ``s`` (a ``state.Fields``), called by ``moves.apply``;
``begin_turns`` starts the turns of a set-up position from Python (``dealing``,
``scenario``).
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import MAX_MELDS, MELD_CELLS
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.jit import (
    R_CLOSED_MULTIPLIER,
    R_MAX_TURNS,
    R_NEVER_OPENED_PENALTY,
    R_PLAYERS,
    R_SCORING,
    R_WINNER_BONUS,
    SCORING_PENALTY,
    SCORING_POINTS,
    copy_into,
    copy_prefix,
    inline_kernel,
    kernel,
)
from zolik_env.rummy.masks import may_draw
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import EXHAUSTED, REBUILT, pop_stock, rebuild_stock
from zolik_env.rummy.state import PHASE_DRAW, PHASE_OVER, PHASE_PLAY, Fields, State, fields_of
from zolik_env.rummy.values import kernel_tables


@kernel
def deal_scores(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
                b: int) -> None:
    """Write each seat's deal score as the preset writes it (see ``scoring.py``)."""
    winner = s.winner[b]
    double = p[R_CLOSED_MULTIPLIER] if winner >= 0 and s.closed_from_hand[b] else 1
    bonus = p[R_WINNER_BONUS]
    for seat in range(p[R_PLAYERS]):
        held = 0
        for k in range(NUM_KINDS):
            held += s.hands[b, seat, k] * hand_value[k]
        if p[R_NEVER_OPENED_PENALTY] and not s.opened[b, seat]:
            held = p[R_NEVER_OPENED_PENALTY]
        won = seat == winner
        if p[R_SCORING] == SCORING_PENALTY:
            score = 0 if won else held * double
        elif p[R_SCORING] == SCORING_POINTS:
            score = bonus * double if won else -held * double
        else:  # laid: the meld value of the cards this seat put on the table
            laid = _laid_value(cell_value, s, b, seat)
            score = (laid + bonus) * double if won else laid - held * double
        s.scores[b, seat] = score


@kernel
def _laid_value(cell_value: np.ndarray, s: Fields, b: int, seat: int) -> int:
    """The meld value of the cards ``seat`` put on the table (jolly scores them)."""
    laid = 0
    for m in range(s.num_melds[b]):
        for c in range(MELD_CELLS):
            if s.cells[b, m, c] != 0 and s.cell_owner[b, m, c] == seat:
                laid += int(cell_value[s.meld_kind[b, m], s.meld_key[b, m], c])
    return laid


@kernel
def end_deal(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
             b: int) -> None:
    """Close the deal: no more moves, scores written."""
    s.phase[b] = PHASE_OVER
    deal_scores(p, hand_value, cell_value, s, b)


@inline_kernel
def _snapshot(s: Fields, b: int, save: bool, slots: int) -> None:
    """Copy what UNDO restores into the turn's snapshot (``save``) or back from it: the
    acting seat's hand and publicly known cards, the discard pile's length and counts, the
    bottom card and the first ``slots`` meld slots of the table.

    Slots are filled in order and only an UNDO empties them, so the table's melds never
    get fewer from one turn's start to the next: once a deal's first turn has copied the
    whole (empty) table, the slots past the ``num_melds`` of a turn's start are empty in
    the snapshot already, and copying the used ones (``slots = num_melds`` both ways:
    an UNDO restores the slots laid this turn to those empty values) leaves every byte
    as a whole copy would."""
    cur = s.current[b]
    one = slice(b, b + 1)  # a scalar field's entry, as an array
    _sync(s.snap_hand[b], s.hands[b, cur], save, NUM_KINDS)
    _sync(s.snap_known[b], s.known_taken[b, cur], save, NUM_KINDS)
    _sync(s.snap_discard_len[one], s.discard_len[one], save, 1)
    _sync(s.snap_bottom[one], s.bottom[one], save, 1)
    _sync(s.snap_num_melds[one], s.num_melds[one], save, 1)
    _sync(s.snap_kind[b], s.meld_kind[b], save, slots)
    _sync(s.snap_key[b], s.meld_key[b], save, slots)
    _sync(s.snap_cells[b], s.cells[b], save, slots * MELD_CELLS)
    _sync(s.snap_owner[b], s.cell_owner[b], save, slots * MELD_CELLS)
    _sync(s.snap_table_counts[b], s.table_counts[b], save, NUM_KINDS)
    _sync(s.snap_discard_counts[b], s.discard_counts[b], save, NUM_KINDS)


@inline_kernel
def _sync(snapshot: np.ndarray, live: np.ndarray, save: bool, count: int) -> None:
    if save:
        copy_prefix(snapshot, live, count)
    else:
        copy_prefix(live, snapshot, count)


@inline_kernel
def _clear_turn(s: Fields, b: int) -> None:
    """Nothing taken, laid or freed this turn."""
    s.took_pile[b] = False
    s.taken_unlaid[b] = 0
    s.must_use[b] = -1
    s.freed_jokers[b] = 0
    s.laid[b] = False


@inline_kernel
def begin_turn(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
               b: int, whole_table: bool) -> None:
    """Reset the per-turn fields and snapshot what UNDO restores (every meld slot where
    ``whole_table``, as a set-up position needs; else the used ones, see ``_snapshot``);
    end the deal (no winner, terminated) when the player must draw and has no legal draw
    at all: an empty stock that cannot be rebuilt and no pick-up or bottom card
    (docs/rules-spec.md §1.10). An empty stock that can be rebuilt waits for the draw
    that needs it."""
    cur = s.current[b]
    s.opened_before[b] = s.opened[b, cur]
    _clear_turn(s, b)
    s.drawn[b] = -1
    s.undone[b] = False
    _snapshot(s, b, True, MAX_MELDS if whole_table else s.num_melds[b])
    if s.phase[b] == PHASE_DRAW and not may_draw(
            p, s.stock_len[b], s.discard_len[b], s.bottom[b], s.turn[b],
            s.hands[b, cur].sum(), s.opened[b, cur]):
        s.terminated[b] = True
        end_deal(p, hand_value, cell_value, s, b)


@kernel
def refill_stock(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
                 b: int) -> bool:
    """Before a draw from the stock, rebuild it if it is empty; where it cannot be
    rebuilt the deal ends (terminated or truncated, see ``rebuild_stock``). Returns
    whether the player may draw."""
    if s.stock_len[b] > 0:
        return True
    outcome = rebuild_stock(p, s, b)
    if outcome != REBUILT:
        if outcome == EXHAUSTED:
            s.terminated[b] = True
        else:
            s.truncated[b] = True
        end_deal(p, hand_value, cell_value, s, b)
        return False
    s.snap_discard_len[b] = s.discard_len[b]  # an UNDO later keeps the new pile
    copy_into(s.snap_discard_counts[b], s.discard_counts[b])
    return True


@inline_kernel
def draw(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
         b: int) -> None:
    """Draw the top card of the stock, rebuilding an empty stock first."""
    if s.stock_len[b] == 0 and not refill_stock(p, hand_value, cell_value, s, b):
        return
    card = pop_stock(s, b)
    s.hands[b, s.current[b], card] += 1
    s.drawn[b] = card
    s.phase[b] = PHASE_PLAY


@inline_kernel
def undo(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
         b: int) -> None:
    """UNDO (docs/rules-spec.md §1.9): everything laid this turn returns to hand, the table
    is as it was, taken discards or the bottom card go back and a stock card is drawn
    instead (rebuilding an empty stock, or ending the deal if none can be drawn); only a
    discard may follow."""
    cur = s.current[b]
    _snapshot(s, b, False, s.num_melds[b])  # the count before the restore
    s.opened[b, cur] = s.opened_before[b]
    if s.took_pile[b] and refill_stock(p, hand_value, cell_value, s, b):
        s.drawn[b] = pop_stock(s, b)
    if s.drawn[b] >= 0:
        s.hands[b, cur, s.drawn[b]] += 1
    _clear_turn(s, b)
    s.undone[b] = True


@inline_kernel
def discard(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
            b: int, card: int) -> None:
    """Discard ``card``, ending the turn; discarding the last card wins the deal."""
    cur = s.current[b]
    s.hands[b, cur, card] -= 1
    if s.known_taken[b, cur, card] > 0:  # a discard taken earlier goes back
        s.known_taken[b, cur, card] -= 1
    s.discard[b, s.discard_len[b]] = card
    s.discard_len[b] += 1
    s.discard_counts[b, card] += 1
    if s.hands[b, cur].sum() == 0:
        s.winner[b] = cur
        s.closed_from_hand[b] = not s.opened_before[b]
        s.terminated[b] = True
        end_deal(p, hand_value, cell_value, s, b)
        return
    s.current[b] = (cur + 1) % p[R_PLAYERS]
    s.turn[b] += 1
    s.phase[b] = PHASE_DRAW
    if p[R_MAX_TURNS] and s.turn[b] >= p[R_MAX_TURNS]:
        s.truncated[b] = True
        end_deal(p, hand_value, cell_value, s, b)
        return
    begin_turn(p, hand_value, cell_value, s, b, False)


@kernel
def _begin_rows(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray,
                rows: np.ndarray, buffer: np.ndarray, table: np.ndarray) -> None:
    s = fields_of(buffer, table)
    for b in rows:
        begin_turn(p, hand_value, cell_value, s, b, True)


def begin_turns(rules: RuleSet, state: State, rows: np.ndarray) -> None:
    """Start the turn of the seat to act in deals ``rows`` of ``state`` (edited in place):
    snapshot for UNDO, and the end of a deal whose player cannot draw."""
    _begin_rows(*kernel_tables(rules)[:3], np.asarray(rows, np.int64), state.buffer,
                state.layout.table)
