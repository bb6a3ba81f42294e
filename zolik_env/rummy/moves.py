"""One action per deal, compiled: ``game.step``'s kernel.

``game.step`` copies the fields the moves present may write (``written_fields``), then
``step_rows`` edits those copies in place, deal by deal: ``apply`` sends each action to
its move (docs/rules-spec.md):

- draws (``turns.draw``, ``piles``): the stock's top card (an empty stock is rebuilt
  first, or the deal ends), the newest discards (cz/sk: the top one, to be laid this
  turn; jolly: any depth), sk's bottom card;
- lays (``table``): a meld pattern into the next free slot, a natural at a run's end or
  into a set (on a joker's cell it swaps the joker to hand), a joker at a run's end or
  into a set; after each lay, a seat that had not opened is judged on its provisional
  melds;
- UNDO, and the discard that ends the turn (``turns``), going out when it is the last
  card; the next turn's start and the deal's end with its scores.

Imports only numpy, numba and siblings.
"""

from __future__ import annotations

import bisect

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import R_PLAYERS, R_SCORING, SCORING_PENALTY, inline_kernel, kernel
from zolik_env.rummy.piles import take_bottom, take_discards
from zolik_env.rummy.state import FIELD_NAMES, Fields
from zolik_env.rummy.table import lay_meld, lay_off_joker, lay_off_natural
from zolik_env.rummy.turns import discard, draw, undo


@inline_kernel
def apply(p: np.ndarray, hand_value: np.ndarray, cell_value: np.ndarray, s: Fields, b: int,
          action: int) -> None:
    """Apply ``action`` (assumed legal) to deal ``b``. An action id outside the table, or
    a meld with no free slot, raises rather than write outside the arrays; other illegal
    moves (``step(validate=False)``) leave the deal in an unspecified state."""
    if not 0 <= action < A.NUM_ACTIONS:
        raise ValueError("action id outside the action table")
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
