"""Turn bookkeeping: starting a turn, UNDO, the discard that ends it, and deal scores.

Functions edit a dict of mutable state arrays in place, on the given rows only.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import MAX_PICKUP
from zolik_env.rummy.masks import can_rebuild, draw_alternatives, melding_allowed_in_turn
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import draw_stock, rebuild_stock
from zolik_env.rummy.state import PHASE_DRAW, PHASE_OVER, peek
from zolik_env.rummy.values import cell_values, hand_values

Arrays = dict[str, np.ndarray]

# (snapshot field, live field) pairs that UNDO restores, besides the acting seat's hand
_SNAPSHOT = (("snap_discard_len", "discard_len"), ("snap_bottom", "bottom"),
             ("snap_num_melds", "num_melds"), ("snap_kind", "meld_kind"),
             ("snap_key", "meld_key"), ("snap_cells", "cells"), ("snap_owner", "cell_owner"),
             ("snap_table_counts", "table_counts"), ("snap_discard_counts", "discard_counts"))


def _all_rows(d: Arrays, rows: np.ndarray) -> bool:
    """Whether ``rows`` (unique) are every deal, as always with a batch of one. Whole-array
    writes then replace fancy indexing, which costs the most at that size."""
    return len(rows) == len(peek(d, "phase"))


def _set_rows(d: Arrays, name: str, rows: np.ndarray, values: np.ndarray) -> None:
    """``d[name][rows] = values`` (a new array of the field's dtype)."""
    if _all_rows(d, rows):
        d[name] = values
    else:
        d[name][rows] = values


def _copy_fields(d: Arrays, pairs: tuple[tuple[str, str], ...], rows: np.ndarray) -> None:
    """``d[target][rows] = d[source][rows]`` for each (target, source) pair."""
    if _all_rows(d, rows):
        for target, source in pairs:
            d[target] = peek(d, source).copy()
    else:
        for target, source in pairs:
            d[target][rows] = d[source][rows]


def _fill_fields(d: Arrays, values: tuple[tuple[str, int], ...], rows: np.ndarray) -> None:
    """``d[name][rows] = value`` for each (name, value) pair."""
    if _all_rows(d, rows):
        for name, value in values:
            like = peek(d, name)
            d[name] = np.empty(like.shape, like.dtype)
            d[name].fill(value)
    else:
        for name, value in values:
            d[name][rows] = value


# Nothing taken, laid or freed this turn; with a flag for whether UNDO was used.
_CLEARED = (("took_pile", False), ("taken_unlaid", 0), ("must_use", -1), ("freed_jokers", 0),
            ("laid", False))
_TURN_START = (*_CLEARED, ("drawn", -1), ("undone", False))
_UNDONE = (*_CLEARED, ("undone", True))
_RESTORE = tuple((live, snap) for snap, live in _SNAPSHOT)
_PILE_SNAPSHOT = (("snap_discard_len", "discard_len"), ("snap_discard_counts", "discard_counts"))


def begin_turn(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """Reset the per-turn fields of ``rows`` and snapshot what UNDO restores; end the deal
    of a player who must draw and has no legal draw at all."""
    cur = d["current"][rows]
    _set_rows(d, "opened_before", rows, peek(d, "opened")[rows, cur])
    _fill_fields(d, _TURN_START, rows)
    _set_rows(d, "snap_hand", rows, peek(d, "hands")[rows, cur])
    _set_rows(d, "snap_known", rows, peek(d, "known_taken")[rows, cur])
    _copy_fields(d, _SNAPSHOT, rows)
    if (peek(d, "stock_len")[rows] == 0).any():
        _end_without_draw(rules, d, rows)


def _end_without_draw(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """docs/rules-spec.md §1.10: the deal ends with no winner (terminated) when the
    player to move faces an empty stock that cannot be rebuilt and may take nothing else
    (no discard pick-up, no bottom card). An empty stock that can be rebuilt waits for
    the draw that needs it (``draw``)."""
    stuck = rows[(peek(d, "stock_len")[rows] == 0) & (peek(d, "phase")[rows] == PHASE_DRAW)
                 & ~can_rebuild(rules, peek(d, "discard_len")[rows])]
    if not stuck.size:
        return
    cur = peek(d, "current")[stuck]
    turn = peek(d, "turn")[stuck]
    alternatives = np.zeros((len(stuck), MAX_PICKUP + 1), bool)
    draw_alternatives(rules, peek(d, "discard_len")[stuck], peek(d, "bottom")[stuck], turn,
                      np.ones(len(stuck), bool),
                      peek(d, "hands")[stuck, cur].sum(-1, dtype=np.int32),
                      peek(d, "opened")[stuck, cur], melding_allowed_in_turn(rules, turn),
                      alternatives)
    ended = stuck[~alternatives.any(1)]
    d["terminated"][ended] = True
    end_deal(rules, d, ended)


def refill_stock(rules: RuleSet, d: Arrays, rows: np.ndarray) -> np.ndarray:
    """Before ``rows`` draw from the stock, rebuild it where it is empty; where it cannot
    be rebuilt the deal ends (terminated when the pile leaves nothing to rebuild from,
    truncated at the ``max_stock_rebuilds``-th rebuild). Returns the rows that may draw."""
    empty = peek(d, "stock_len")[rows] == 0
    if not empty.any():
        return rows
    exhausted, cut_off = rebuild_stock(rules, d, rows[empty])
    d["terminated"][exhausted] = True
    d["truncated"][cut_off] = True
    ended = np.concatenate([exhausted, cut_off])
    end_deal(rules, d, ended)
    live = ~np.isin(rows, ended)
    _copy_fields(d, _PILE_SNAPSHOT, rows[empty & live])  # an UNDO later keeps the new pile
    return rows[live]


def draw(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """Draw the top card of the stock, rebuilding an empty stock first."""
    draw_stock(d, refill_stock(rules, d, rows))


def undo(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """UNDO (docs/rules-spec.md §1.9): everything laid this turn returns to hand, the table is as it
    was, taken discards or the bottom card go back and a stock card is drawn instead
    (rebuilding an empty stock, or ending the deal if none can be drawn); only a discard
    may follow."""
    cur = d["current"][rows]
    d["hands"][rows, cur] = d["snap_hand"][rows]
    d["known_taken"][rows, cur] = d["snap_known"][rows]
    _copy_fields(d, _RESTORE, rows)
    d["opened"][rows, cur] = d["opened_before"][rows]
    redraw = rows[d["took_pile"][rows]]
    if redraw.size:
        redraw = refill_stock(rules, d, redraw)
        top = d["stock_len"][redraw] - 1
        d["drawn"][redraw] = d["stock"][redraw, top]
        d["stock"][redraw, top] = -1
        d["stock_len"][redraw] = top
    drew = rows[d["drawn"][rows] >= 0]
    d["hands"][drew, d["current"][drew], d["drawn"][drew]] += 1
    _fill_fields(d, _UNDONE, rows)


def discard(rules: RuleSet, d: Arrays, rows: np.ndarray, card: np.ndarray) -> None:
    """Discard ``card`` (R,), ending the turn; discarding the last card wins the deal."""
    cur = d["current"][rows]
    d["hands"][rows, cur, card] -= 1
    known = peek(d, "known_taken")[rows, cur, card]
    if known.any():  # a discard taken earlier goes back: no longer known to be held
        d["known_taken"][rows, cur, card] = np.maximum(known - 1, 0)
    d["discard"][rows, d["discard_len"][rows]] = card
    d["discard_len"][rows] += 1
    d["discard_counts"][rows, card] += 1
    out = d["hands"][rows, cur].sum(-1) == 0
    if out.any():
        winners = rows[out]
        d["winner"][winners] = cur[out]
        d["closed_from_hand"][winners] = ~d["opened_before"][winners]
        d["terminated"][winners] = True
        end_deal(rules, d, winners)
        rows, cur = rows[~out], cur[~out]
    d["current"][rows] = (cur + 1) % rules.num_players
    d["turn"][rows] += 1
    d["phase"][rows] = PHASE_DRAW
    if rules.max_turns:
        cut_off = d["turn"][rows] >= rules.max_turns
        if cut_off.any():
            d["truncated"][rows[cut_off]] = True
            end_deal(rules, d, rows[cut_off])
            rows = rows[~cut_off]
    begin_turn(rules, d, rows)


def deal_scores(rules: RuleSet, d: Arrays, rows: np.ndarray) -> np.ndarray:
    """int (R, P) each seat's deal score as the preset writes it (see ``scoring.py``)."""
    hands = d["hands"][rows].astype(np.int32)
    held = (hands * hand_values(rules)).sum(-1)
    opened = d["opened"][rows]
    if rules.never_opened_penalty:
        held = np.where(opened, held, rules.never_opened_penalty)
    winner = d["winner"][rows]
    has_winner = winner >= 0
    double = np.where(has_winner & d["closed_from_hand"][rows],
                      rules.closed_from_hand_multiplier, 1)[:, None]
    is_winner = np.arange(rules.num_players)[None, :] == winner[:, None]
    if rules.scoring == "penalty":
        return np.where(is_winner, 0, held * double)
    if rules.scoring == "points":
        return np.where(is_winner, rules.winner_bonus * double, -held * double)
    values = cell_values(rules, d["meld_kind"][rows], d["meld_key"][rows], d["cells"][rows])
    owner = d["cell_owner"][rows]
    laid = np.stack([(values * (owner == p)).sum((1, 2)) for p in range(rules.num_players)], 1)
    return np.where(is_winner, (laid + rules.winner_bonus) * double, laid - held * double)


def end_deal(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """Close the deal of ``rows``: no more moves, scores written."""
    if rows.size:
        d["phase"][rows] = PHASE_OVER
        d["scores"][rows] = deal_scores(rules, d, rows)
