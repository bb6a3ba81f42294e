"""The moves of the batched core, compiled: what each action does to one deal.

``game.step`` copies the fields the moves present may write (``written_fields``), then
``step_rows`` edits those copies in place, deal by deal. Every function below works on
one deal ``b`` of ``s``, a ``Fields`` tuple holding the State's arrays under its field
names, and follows docs/rules-spec.md:

- draws: the stock's top card (an empty stock is rebuilt first, or the deal ends), the
  newest discards (cz/sk: the top one, to be laid this turn; jolly: any depth), sk's
  bottom card;
- lays: a meld pattern into the next free slot, a natural at a run's end or into a set
  (on a joker's cell it swaps the joker to hand), a joker at a run's end or into a set;
  after each lay, a seat that had not opened is judged on its provisional melds;
- UNDO, and the discard that ends the turn (going out when it is the last card);
- the turn start (snapshot for UNDO; a player who cannot draw at all ends the deal) and
  the deal's end (scores as the preset writes them).

Imports only numpy, numba and siblings.
"""

from __future__ import annotations

import bisect
from collections import namedtuple
from typing import TYPE_CHECKING, Any

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import JOKER_CELL, MAX_MELDS, MELD_CELLS, NATURAL, RUN, SET
from zolik_env.rummy.actions import SET_JOKER_CELL as SET_JOKER
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.fits import set_frees_joker
from zolik_env.rummy.jit import (
    R_CLEAN_RUN,
    R_CLOSED_MULTIPLIER,
    R_DEEP_PICKUP,
    R_MAX_REBUILDS,
    R_MAX_TURNS,
    R_NEVER_OPENED_PENALTY,
    R_OPENING_POINTS,
    R_PLAYERS,
    R_REBUILD_KEEPS,
    R_SCORING,
    R_SHUFFLE_REBUILD,
    R_WINNER_BONUS,
    SCORING_PENALTY,
    SCORING_POINTS,
    kernel,
)
from zolik_env.rummy.masks import may_draw
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.shuffle import row_order
from zolik_env.rummy.state import FIELD_NAMES, PHASE_DRAW, PHASE_OVER, PHASE_PLAY
from zolik_env.rummy.values import kernel_tables

# The State's arrays under their field names, as kernels take them (``s.hands`` ...).
# Built from ``FIELD_NAMES`` so the two cannot drift apart; to mypy it is ``Any``.
if TYPE_CHECKING:
    Fields = Any
else:
    Fields = namedtuple("Fields", FIELD_NAMES)

HIGH_CELL = MELD_CELLS - 1
PATTERN_KIND = A.MELD_PATTERN_KIND
PATTERN_KEY = A.MELD_PATTERN_KEY
PATTERN_CELLS = A.MELD_PATTERN_CELLS
PATTERN_NATURALS = A.MELD_PATTERN_NATURALS
PATTERN_JOKERS = A.MELD_PATTERN_JOKERS
REBUILT, EXHAUSTED, CUT_OFF = 0, 1, 2  # what ``rebuild_stock`` did


# --- the deal's end and the turn's start


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


@kernel
def begin_turn(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
               b: int) -> None:
    """Reset the per-turn fields and snapshot what UNDO restores; end the deal (no winner,
    terminated) when the player must draw and has no legal draw at all: an empty stock
    that cannot be rebuilt and no pick-up or bottom card (docs/rules-spec.md §1.10). An
    empty stock that can be rebuilt waits for the draw that needs it."""
    cur = s.current[b]
    s.opened_before[b] = s.opened[b, cur]
    s.took_pile[b] = False
    s.taken_unlaid[b] = 0
    s.must_use[b] = -1
    s.freed_jokers[b] = 0
    s.laid[b] = False
    s.drawn[b] = -1
    s.undone[b] = False
    s.snap_hand[b] = s.hands[b, cur]
    s.snap_known[b] = s.known_taken[b, cur]
    s.snap_discard_len[b] = s.discard_len[b]
    s.snap_bottom[b] = s.bottom[b]
    s.snap_num_melds[b] = s.num_melds[b]
    s.snap_kind[b] = s.meld_kind[b]
    s.snap_key[b] = s.meld_key[b]
    s.snap_cells[b] = s.cells[b]
    s.snap_owner[b] = s.cell_owner[b]
    s.snap_table_counts[b] = s.table_counts[b]
    s.snap_discard_counts[b] = s.discard_counts[b]
    if s.phase[b] == PHASE_DRAW and not may_draw(
            p, s.stock_len[b], s.discard_len[b], s.bottom[b], s.turn[b],
            s.hands[b, cur].sum(), s.opened[b, cur]):
        s.terminated[b] = True
        end_deal(p, hand_value, cell_value, s, b)


# --- the stock and the discard pile


@kernel
def rebuild_stock(p: np.ndarray, s: Fields, b: int) -> int:
    """Rebuild the empty stock from the discard pile when a player draws from it
    (docs/rules-spec.md §1.10, §2.6, §4.7): cz/sk turn the discards except the newest
    over, unshuffled (the oldest discard becomes the top); jolly shuffles all but the
    newest three, by the deal's key and the rebuild count. Returns ``REBUILT``, or why
    the deal ends instead: ``EXHAUSTED`` (nothing to rebuild from; this wins over the
    rebuild limit) or ``CUT_OFF`` (the ``max_stock_rebuilds``-th rebuild)."""
    keep = p[R_REBUILD_KEEPS]
    n = s.discard_len[b] - keep
    if n <= 0:
        return EXHAUSTED
    if s.rebuilds[b] + 1 >= p[R_MAX_REBUILDS]:
        return CUT_OFF
    size = s.stock.shape[1]
    if p[R_SHUFFLE_REBUILD]:
        order = np.empty(size, np.int64)
        row_order(s.rng_key[b], np.uint64(s.rebuilds[b] + 1), np.arange(size) < n, order)
        for j in range(n):
            s.stock[b, j] = s.discard[b, order[j]]
    else:
        for j in range(n):
            s.stock[b, j] = s.discard[b, n - 1 - j]
    s.stock[b, n:] = -1
    s.stock_len[b] = n
    kept = s.discard[b, n: n + keep].copy()
    s.discard[b] = -1
    s.discard[b, :keep] = kept
    s.discard_len[b] = keep
    s.discard_counts[b] = 0
    for card in kept:
        s.discard_counts[b, card] += 1
    s.rebuilds[b] += 1
    return REBUILT


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
    s.snap_discard_counts[b] = s.discard_counts[b]
    return True


@kernel
def _pop_stock(s: Fields, b: int) -> int:
    """Remove and return the top card of the (non-empty) stock."""
    top = s.stock_len[b] - 1
    card = s.stock[b, top]
    s.stock[b, top] = -1
    s.stock_len[b] = top
    return int(card)


@kernel
def draw(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
         b: int) -> None:
    """Draw the top card of the stock, rebuilding an empty stock first."""
    if not refill_stock(p, hand_value, cell_value, s, b):
        return
    card = _pop_stock(s, b)
    s.hands[b, s.current[b], card] += 1
    s.drawn[b] = card
    s.phase[b] = PHASE_PLAY


@kernel
def _take_card(s: Fields, b: int, card: int) -> None:
    """A card from the discard pile or the bottom card goes to the current seat's hand:
    publicly known to be held, and not to be discarded this turn."""
    cur = s.current[b]
    s.hands[b, cur, card] += 1
    s.taken_unlaid[b, card] += 1
    s.known_taken[b, cur, card] += 1
    s.took_pile[b] = True
    s.phase[b] = PHASE_PLAY


@kernel
def take_discards(p: np.ndarray, s: Fields, b: int, count: int) -> None:
    """Take the newest ``count`` discards: cz/sk the top one, which must then be laid this
    turn; jolly any depth, no obligation (docs/rules-spec.md §2.3, §4.3)."""
    length = s.discard_len[b]
    for depth in range(count):
        card = s.discard[b, length - 1 - depth]
        _take_card(s, b, card)
        s.discard_counts[b, card] -= 1
    s.discard_len[b] = length - count
    if not p[R_DEEP_PICKUP]:
        s.must_use[b] = s.discard[b, length - 1]


@kernel
def take_bottom(s: Fields, b: int) -> None:
    """sk: take the face-up bottom card (once per deal; it may not be discarded this turn)."""
    _take_card(s, b, s.bottom[b])
    s.bottom[b] = -1


# --- the table


@kernel
def meets_opening(p: np.ndarray, cell_value: np.ndarray, meld_kind: np.ndarray,
                  meld_key: np.ndarray, cells: np.ndarray, counted: np.ndarray) -> bool:
    """The melds in the slots where ``counted`` (M,) holds meet the opening requirement:
    a joker-free run where the preset needs one, and at least ``opening_points`` meld
    points. It agrees with ``rules.check_opening`` on the same melds (a test checks it)."""
    if p[R_CLEAN_RUN]:
        clean = False
        for m in range(len(counted)):
            if counted[m] and meld_kind[m] == RUN and not (cells[m] == JOKER_CELL).any():
                clean = True
                break
        if not clean:
            return False
    return bool(melds_value(cell_value, meld_kind, meld_key, cells, counted)
                >= p[R_OPENING_POINTS])


@kernel
def melds_value(cell_value: np.ndarray, meld_kind: np.ndarray, meld_key: np.ndarray,
                cells: np.ndarray, counted: np.ndarray) -> int:
    """The meld value of the slots where ``counted`` (M,) holds (a joker counts as the card
    it stands for)."""
    points = 0
    for m in range(len(counted)):
        if counted[m]:
            for c in range(MELD_CELLS):
                if cells[m, c] != 0:
                    points += cell_value[meld_kind[m], meld_key[m], c]
    return points


@kernel
def new_melds(s: Fields, b: int) -> np.ndarray:
    """bool (M,): the slots laid this turn."""
    new = np.zeros(MAX_MELDS, np.bool_)
    new[s.snap_num_melds[b]: s.num_melds[b]] = True
    return new


@kernel
def update_opening(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int) -> None:
    """Judge the opening of the current seat, if it had not opened before this turn, on
    its provisional melds as they stand now (docs/rules-spec.md §1.5): ``opened`` holds
    exactly while they meet the requirement, so a later move that spoils it (a joker on
    the only clean run) takes it back, and any order of moves reaching a table gives the
    same answer."""
    if s.opened_before[b]:
        return
    s.opened[b, s.current[b]] = meets_opening(p, cell_value, s.meld_kind[b], s.meld_key[b],
                                              s.cells[b], new_melds(s, b))


@kernel
def _lay_card(s: Fields, b: int, card: int) -> None:
    """The current seat puts ``card`` from hand on the table. A laid copy counts as a taken
    one (copies are interchangeable): it fulfils cz/sk's must-use and public knowledge of
    taken cards, and a laid joker pays back a freed one."""
    cur = s.current[b]
    s.hands[b, cur, card] -= 1
    s.table_counts[b, card] += 1
    s.known_taken[b, cur, card] = max(s.known_taken[b, cur, card] - 1, 0)
    s.taken_unlaid[b, card] = max(s.taken_unlaid[b, card] - 1, 0)
    if s.must_use[b] == card:
        s.must_use[b] = -1
    if card == JOKER:
        s.freed_jokers[b] = max(s.freed_jokers[b] - 1, 0)
    s.laid[b] = True


@kernel
def lay_meld(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, pattern: int) -> None:
    """Lay meld pattern ``pattern`` from hand into the next free slot."""
    slot = s.num_melds[b]
    cur = s.current[b]
    s.meld_kind[b, slot] = PATTERN_KIND[pattern]
    s.meld_key[b, slot] = PATTERN_KEY[pattern]
    for c in range(MELD_CELLS):
        s.cells[b, slot, c] = PATTERN_CELLS[pattern, c]
        s.cell_owner[b, slot, c] = cur if PATTERN_CELLS[pattern, c] != 0 else -1
    s.num_melds[b] = slot + 1
    for card in PATTERN_NATURALS[pattern]:
        if card < NUM_KINDS:
            _lay_card(s, b, card)
    for _ in range(PATTERN_JOKERS[pattern]):
        _lay_card(s, b, JOKER)
    update_opening(p, cell_value, s, b)


@kernel
def lay_off_natural(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, slot: int,
                    card: int, ace_high: bool) -> None:
    """Put natural ``card`` on meld ``slot``: at a run's end it extends the run, in a set
    it fills its suit; on a run's joker it swaps it (the joker goes to hand, to be laid
    again this turn), and a set's last missing suit replaces the set's joker. An ace goes
    to the low end of a run unless ``ace_high``."""
    cur = s.current[b]
    kind = s.meld_kind[b, slot]
    run_cell = HIGH_CELL if ace_high else card % NUM_RANKS
    cell = card // NUM_RANKS if kind == SET else run_cell
    swap_cell = SET_JOKER if set_frees_joker(kind, s.cells[b, slot]) else cell
    if s.cells[b, slot, swap_cell] == JOKER_CELL:
        s.cells[b, slot, swap_cell] = 0
        s.cell_owner[b, slot, swap_cell] = -1
        s.hands[b, cur, JOKER] += 1
        s.table_counts[b, JOKER] -= 1
        s.freed_jokers[b] += 1
    s.cells[b, slot, cell] = NATURAL
    s.cell_owner[b, slot, cell] = cur
    _lay_card(s, b, card)
    update_opening(p, cell_value, s, b)


@kernel
def lay_off_joker(p: np.ndarray, cell_value: np.ndarray, s: Fields, b: int, slot: int,
                  high: bool) -> None:
    """Put a joker at the low/high end of run ``slot``, or into set ``slot``."""
    cell = SET_JOKER
    if s.meld_kind[b, slot] == RUN:  # next to the run's last or first card
        step = -1 if high else 1
        cell = HIGH_CELL if high else 0
        while s.cells[b, slot, cell] == 0:
            cell += step
        cell -= step
    s.cells[b, slot, cell] = JOKER_CELL
    s.cell_owner[b, slot, cell] = s.current[b]
    _lay_card(s, b, JOKER)
    update_opening(p, cell_value, s, b)


# --- the end of a turn


@kernel
def _clear_turn(s: Fields, b: int) -> None:
    """Nothing taken, laid or freed this turn."""
    s.took_pile[b] = False
    s.taken_unlaid[b] = 0
    s.must_use[b] = -1
    s.freed_jokers[b] = 0
    s.laid[b] = False


@kernel
def undo(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields,
         b: int) -> None:
    """UNDO (docs/rules-spec.md §1.9): everything laid this turn returns to hand, the table
    is as it was, taken discards or the bottom card go back and a stock card is drawn
    instead (rebuilding an empty stock, or ending the deal if none can be drawn); only a
    discard may follow."""
    cur = s.current[b]
    s.hands[b, cur] = s.snap_hand[b]
    s.known_taken[b, cur] = s.snap_known[b]
    s.discard_len[b] = s.snap_discard_len[b]
    s.bottom[b] = s.snap_bottom[b]
    s.num_melds[b] = s.snap_num_melds[b]
    s.meld_kind[b] = s.snap_kind[b]
    s.meld_key[b] = s.snap_key[b]
    s.cells[b] = s.snap_cells[b]
    s.cell_owner[b] = s.snap_owner[b]
    s.table_counts[b] = s.snap_table_counts[b]
    s.discard_counts[b] = s.snap_discard_counts[b]
    s.opened[b, cur] = s.opened_before[b]
    if s.took_pile[b] and refill_stock(p, hand_value, cell_value, s, b):
        s.drawn[b] = _pop_stock(s, b)
    if s.drawn[b] >= 0:
        s.hands[b, cur, s.drawn[b]] += 1
    _clear_turn(s, b)
    s.undone[b] = True


@kernel
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
    begin_turn(p, hand_value, cell_value, s, b)


# --- one action per deal


@kernel
def apply(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields, b: int,
          action: int) -> None:
    """Apply ``action`` (assumed legal) to deal ``b``."""
    if action == A.DRAW_STOCK:
        draw(p, hand_value, cell_value, s, b)
    elif action < A.TAKE_BOTTOM:
        take_discards(p, s, b, action - A.TAKE_DISCARD_BASE + 1)
    elif action == A.TAKE_BOTTOM:
        take_bottom(s, b)
    elif action < A.LAYOFF_BASE:
        lay_meld(p, cell_value, s, b, action - A.MELD_BASE)
    elif action < A.ACE_HIGH_BASE:
        slot, card = divmod(action - A.LAYOFF_BASE, NUM_NATURALS)
        lay_off_natural(p, cell_value, s, b, slot, card, False)
    elif action < A.JOKER_BASE:
        slot, suit = divmod(action - A.ACE_HIGH_BASE, NUM_SUITS)
        lay_off_natural(p, cell_value, s, b, slot, suit * NUM_RANKS, True)
    elif action < A.UNDO:
        slot, end = divmod(action - A.JOKER_BASE, 2)
        lay_off_joker(p, cell_value, s, b, slot, end == 1)
    elif action == A.UNDO:
        undo(p, hand_value, cell_value, s, b)
    else:
        discard(p, hand_value, cell_value, s, b, action - A.DISCARD_BASE)


@kernel
def step_rows(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray,
              actions: np.ndarray, rewards: np.ndarray, hands: np.ndarray, stock: np.ndarray,
              stock_len: np.ndarray, discard: np.ndarray, discard_len: np.ndarray,
              bottom: np.ndarray, meld_kind: np.ndarray, meld_key: np.ndarray,
              cells: np.ndarray, cell_owner: np.ndarray, num_melds: np.ndarray,
              current: np.ndarray, phase: np.ndarray, turn: np.ndarray, starter: np.ndarray,
              opened: np.ndarray, known_taken: np.ndarray, table_counts: np.ndarray,
              discard_counts: np.ndarray, rebuilds: np.ndarray, rng_key: np.ndarray,
              opened_before: np.ndarray, drawn: np.ndarray, took_pile: np.ndarray,
              taken_unlaid: np.ndarray, must_use: np.ndarray, freed_jokers: np.ndarray,
              laid: np.ndarray, undone: np.ndarray, snap_hand: np.ndarray,
              snap_known: np.ndarray, snap_discard_len: np.ndarray, snap_bottom: np.ndarray,
              snap_num_melds: np.ndarray, snap_kind: np.ndarray, snap_key: np.ndarray,
              snap_cells: np.ndarray, snap_owner: np.ndarray, snap_table_counts: np.ndarray,
              snap_discard_counts: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
              winner: np.ndarray, closed_from_hand: np.ndarray, scores: np.ndarray) -> None:
    """Apply ``actions[b]`` to every deal ``b`` not yet over, editing the arrays in place,
    and write into ``rewards`` (B, P) the deal scores of the deals this step ends, higher
    = better (cz penalties negated). The arrays after ``rewards`` are the State's fields
    in ``FIELD_NAMES`` order, passed one by one: numba reads plain array arguments faster
    than one tuple of them."""
    s = Fields(hands, stock, stock_len, discard, discard_len, bottom, meld_kind, meld_key,
               cells, cell_owner, num_melds, current, phase, turn, starter, opened,
               known_taken, table_counts, discard_counts, rebuilds, rng_key, opened_before,
               drawn, took_pile, taken_unlaid, must_use, freed_jokers, laid, undone,
               snap_hand, snap_known, snap_discard_len, snap_bottom, snap_num_melds,
               snap_kind, snap_key, snap_cells, snap_owner, snap_table_counts,
               snap_discard_counts, terminated, truncated, winner, closed_from_hand, scores)
    sign = -1 if p[R_SCORING] == SCORING_PENALTY else 1
    for b in range(len(actions)):
        if terminated[b] or truncated[b]:
            continue
        apply(p, hand_value, cell_value, s, b, actions[b])
        if terminated[b] or truncated[b]:
            for seat in range(p[R_PLAYERS]):
                rewards[b, seat] = sign * scores[b, seat]


@kernel
def _begin_rows(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray,
                rows: np.ndarray, s: Fields) -> None:
    for b in rows:
        begin_turn(p, hand_value, cell_value, s, b)


def begin_turns(rules: RuleSet, d: dict[str, np.ndarray], rows: np.ndarray) -> None:
    """Start the turn of the seat to act in deals ``rows`` of ``d`` (field name -> array,
    edited in place): snapshot for UNDO, and the end of a deal whose player cannot draw."""
    _begin_rows(*kernel_tables(rules)[:3], np.asarray(rows, np.int64),
                Fields(*(d[name] for name in FIELD_NAMES)))


# --- which fields each kind of move may write (``game.step`` copies only these)

_END = ("phase", "scores", "terminated", "truncated")
_BEGIN = ("opened_before", "took_pile", "taken_unlaid", "must_use", "freed_jokers", "laid",
          "drawn", "undone", "snap_hand", "snap_known", "snap_discard_len", "snap_bottom",
          "snap_num_melds", "snap_kind", "snap_key", "snap_cells", "snap_owner",
          "snap_table_counts", "snap_discard_counts", *_END)
_REFILL = ("stock", "stock_len", "discard", "discard_len", "discard_counts", "rebuilds",
           "snap_discard_len", "snap_discard_counts", *_END)
_TAKE = ("hands", "taken_unlaid", "known_taken", "took_pile", "must_use", "phase")
_LAY = ("hands", "table_counts", "known_taken", "taken_unlaid", "must_use", "freed_jokers",
        "laid", "opened", "cells", "cell_owner")
_WRITES = {  # first action of a family: the fields its moves may write
    A.DRAW_STOCK: (*_REFILL, "hands", "drawn"),
    A.TAKE_DISCARD_BASE: (*_TAKE, "discard_counts", "discard_len"),
    A.TAKE_BOTTOM: (*_TAKE, "bottom"),
    A.MELD_BASE: (*_LAY, "meld_kind", "meld_key", "num_melds"),
    A.LAYOFF_BASE: _LAY,
    A.UNDO: (*_LAY, *_REFILL, "discard_len", "bottom", "num_melds", "meld_kind", "meld_key",
             "discard_counts", "drawn", "took_pile", "undone"),
    A.DISCARD_BASE: ("hands", "known_taken", "discard", "discard_len", "discard_counts",
                     "winner", "closed_from_hand", "current", "turn", *_BEGIN),
}
_STARTS = sorted(_WRITES)
_FAMILY_STARTS = np.array(_STARTS)
_FIELD_INDEX = {name: i for i, name in enumerate(FIELD_NAMES)}
_FAMILY_FIELDS = [tuple(sorted({_FIELD_INDEX[n] for n in _WRITES[start]}))
                  for start in _FAMILY_STARTS]


def written_fields(actions: np.ndarray) -> tuple[int, ...]:
    """Indices into ``FIELD_NAMES`` of the fields the (non-negative) ``actions`` may write."""
    if len(actions) == 1:  # one deal: no array operations
        action = int(actions[0])
        return _FAMILY_FIELDS[bisect.bisect_right(_STARTS, action) - 1] if action >= 0 else ()
    family = np.searchsorted(_FAMILY_STARTS, actions[actions >= 0], side="right") - 1
    if len(family) == 1:
        return _FAMILY_FIELDS[int(family[0])]
    present = np.flatnonzero(np.bincount(family, minlength=len(_FAMILY_STARTS)))
    return tuple(sorted({i for f in present for i in _FAMILY_FIELDS[f]}))
