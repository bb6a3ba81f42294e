"""Turn bookkeeping: starting a turn, UNDO, the discard that ends it, and deal scores.

Functions edit a dict of mutable state arrays in place, on the given rows only.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import rebuild_stock
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


def begin_turn(rules: RuleSet, d: Arrays, rows: np.ndarray) -> None:
    """Reset the per-turn fields of ``rows``, snapshot what UNDO restores, and rebuild an
    empty stock before the draw (ending the deal if it cannot be rebuilt)."""
    ran_out = d["stock_len"][rows] == 0
    if ran_out.any():
        empty = rows[ran_out & (d["phase"][rows] == PHASE_DRAW)]
        if empty.size:
            exhausted, cut_off = rebuild_stock(rules, d, empty)
            d["terminated"][exhausted] = True
            d["truncated"][cut_off] = True
            end_deal(rules, d, np.concatenate([exhausted, cut_off]))
    cur = d["current"][rows]
    _set_rows(d, "opened_before", rows, peek(d, "opened")[rows, cur])
    _fill_fields(d, _TURN_START, rows)
    _set_rows(d, "snap_hand", rows, peek(d, "hands")[rows, cur])
    _set_rows(d, "snap_known", rows, peek(d, "known_taken")[rows, cur])
    _copy_fields(d, _SNAPSHOT, rows)


def undo(d: Arrays, rows: np.ndarray) -> None:
    """UNDO (RULES.md §1): everything laid this turn returns to hand, the table is as it
    was, taken discards or the bottom card go back and a stock card is drawn instead; only
    a discard may follow."""
    cur = d["current"][rows]
    d["hands"][rows, cur] = d["snap_hand"][rows]
    d["known_taken"][rows, cur] = d["snap_known"][rows]
    _copy_fields(d, _RESTORE, rows)
    d["opened"][rows, cur] = d["opened_before"][rows]
    redraw = rows[d["took_pile"][rows]]
    if redraw.size:
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
