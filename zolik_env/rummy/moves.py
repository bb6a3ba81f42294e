"""One action per deal, compiled: ``game.step``'s kernel.

``game.step`` copies the State's buffer, then ``step_rows`` edits the copy in place, deal
by deal: ``apply`` sends each action to its move (docs/rules-spec.md):

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

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.jit import (
    R_PLAYERS,
    R_SCORING,
    SCORING_PENALTY,
    borrowed,
    inline_kernel,
    kernel,
)
from zolik_env.rummy.piles import take_bottom, take_discards
from zolik_env.rummy.state import Fields, fields_of
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
        take_bottom(p, s, b)
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
              rows: np.ndarray, actions: np.ndarray, rewards: np.ndarray, ended: np.ndarray,
              buffer: np.ndarray, table: np.ndarray) -> None:
    """Apply ``actions[j]`` to deal ``rows[j]`` (distinct rows; all of them for a whole
    step) of the State held in ``buffer`` (its layout ``table``), if not yet over, editing
    it in place. Writes into ``rewards`` (R, P) the deal scores of the deals this step
    ends, higher = better (cz penalties negated), and into ``ended`` (2, R) each deal's
    ``terminated`` and ``truncated`` after it."""
    s = fields_of(buffer, table)
    p, hand_value, cell_value = borrowed(p), borrowed(hand_value), borrowed(cell_value)
    rows, actions = borrowed(rows), borrowed(actions)
    rewards, ended = borrowed(rewards), borrowed(ended)
    sign = -1 if p[R_SCORING] == SCORING_PENALTY else 1
    for j in range(len(rows)):
        b = rows[j]
        if not (s.terminated[b] or s.truncated[b]):
            apply(p, hand_value, cell_value, s, b, actions[j])
            if s.terminated[b] or s.truncated[b]:
                for seat in range(p[R_PLAYERS]):
                    rewards[j, seat] = sign * s.scores[b, seat]
        ended[0, j] = s.terminated[b]
        ended[1, j] = s.truncated[b]
