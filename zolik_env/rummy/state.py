"""The batched state of B independent Žolík deals, as a frozen dataclass of arrays.

Every field has a leading batch axis ``B``. ``P`` is the number of seats, ``K =
NUM_KINDS`` card kinds, ``M = MAX_MELDS`` meld slots, ``C = MELD_CELLS`` cells per slot
and ``S`` the pack size. Hands and the table are counts over card kinds, so two decks
and any number of jokers need no special case. Piles are arrays of card kinds with a
length; the top of a pile is its last filled entry.

A meld slot holds a run (cells 0..13 = positions 1..14: low ace, 2..K, high ace) or a
set (cells 0..3 = suits S H D C, cell 4 = its joker, which stands for the first
missing suit). A cell is EMPTY, NATURAL or JOKER_CELL; ``cell_owner`` is the seat that
put the card there (jolly scores cards for whoever put them on the table).

This module imports only numpy and its siblings.
"""

from __future__ import annotations

import dataclasses
import operator
from collections import namedtuple
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from zolik_env.arrays import BoolArray

PHASE_DRAW, PHASE_PLAY, PHASE_OVER = 0, 1, 2


@dataclass(frozen=True, slots=True)
class State:
    """B deals; see the module docstring for the axes."""

    hands: np.ndarray  # int8 (B, P, K) copies of kind k held by seat p
    stock: np.ndarray  # int8 (B, S) stock cards, top at stock_len - 1
    stock_len: np.ndarray  # int16 (B,)
    discard: np.ndarray  # int8 (B, S) discard pile, oldest first
    discard_len: np.ndarray  # int16 (B,)
    bottom: np.ndarray  # int8 (B,) sk bottom card kind, -1 if none or taken
    meld_kind: np.ndarray  # int8 (B, M) 0 empty, RUN, SET
    meld_key: np.ndarray  # int8 (B, M) suit of a run, rank of a set
    cells: np.ndarray  # int8 (B, M, C) EMPTY / NATURAL / JOKER_CELL
    cell_owner: np.ndarray  # int8 (B, M, C) seat that put the card there, -1 if empty
    num_melds: np.ndarray  # int8 (B,) slots in use (filled from slot 0)
    current: np.ndarray  # int8 (B,) seat to act
    phase: np.ndarray  # int8 (B,) PHASE_DRAW / PHASE_PLAY / PHASE_OVER (exactly when done)
    turn: np.ndarray  # int16 (B,) turns played before this one; round = turn // P + 1
    starter: np.ndarray  # int8 (B,) seat that started the deal
    opened: np.ndarray  # bool (B, P) seat has opened (current seat: maybe this turn)
    known_taken: np.ndarray  # int8 (B, P, K) discards a seat took and has not laid (public)
    table_counts: np.ndarray  # int8 (B, K) cards on the table by kind (kept up by each move)
    discard_counts: np.ndarray  # int8 (B, K) cards in the discard pile by kind (likewise)
    rebuilds: np.ndarray  # int8 (B,) times the stock was rebuilt
    rng_key: np.ndarray  # uint64 (B,) per-deal key for jolly's stock shuffles
    # --- this turn (reset when a turn starts)
    opened_before: np.ndarray  # bool (B,) current seat had opened before this turn
    drawn: np.ndarray  # int8 (B,) card drawn from the stock this turn, -1 if none
    took_pile: np.ndarray  # bool (B,) took from the discard pile or the bottom card
    taken_unlaid: np.ndarray  # int8 (B, K) cards taken this turn and not laid again
    must_use: np.ndarray  # int8 (B,) cz/sk: taken top discard still to lay, -1 if none
    freed_jokers: np.ndarray  # int8 (B,) jokers swapped off the table, not laid again
    laid: np.ndarray  # bool (B,) laid anything this turn
    undone: np.ndarray  # bool (B,) used UNDO this turn: only a discard may follow
    snap_hand: np.ndarray  # int8 (B, K) current seat's hand when the turn started
    snap_known: np.ndarray  # int8 (B, K) its known_taken row then
    snap_discard_len: np.ndarray  # int16 (B,)
    snap_bottom: np.ndarray  # int8 (B,)
    snap_num_melds: np.ndarray  # int8 (B,)
    snap_kind: np.ndarray  # int8 (B, M)
    snap_key: np.ndarray  # int8 (B, M)
    snap_cells: np.ndarray  # int8 (B, M, C)
    snap_owner: np.ndarray  # int8 (B, M, C)
    snap_table_counts: np.ndarray  # int8 (B, K)
    snap_discard_counts: np.ndarray  # int8 (B, K)
    # --- outcome
    terminated: np.ndarray  # bool (B,) the deal ended by the rules
    truncated: np.ndarray  # bool (B,) cut off by max_stock_rebuilds
    winner: np.ndarray  # int8 (B,) seat that went out, -1 if none
    closed_from_hand: np.ndarray  # bool (B,)
    scores: np.ndarray  # int16 (B, P) deal scores as the preset writes them (at the end)

    @property
    def batch_size(self) -> int:
        return int(self.hands.shape[0])

    @property
    def done(self) -> np.ndarray:
        """bool (B,): the deal is over (terminated or truncated)."""
        done: BoolArray = self.terminated | self.truncated
        return done

    def replace(self, **changes: Any) -> State:
        """A new State with ``changes`` (field name -> array); other fields shared."""
        unknown = changes.keys() - _FIELD_INDEX.keys()
        if unknown:
            raise TypeError(f"State has no field(s) {sorted(unknown)}")
        values = list(_all_fields(self))
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return from_fields(values)

    def fields(self) -> list[np.ndarray]:
        """Every field's array (not copied), in ``FIELD_NAMES`` order."""
        return list(_all_fields(self))

    def to_dict(self) -> dict[str, np.ndarray]:
        """Mutable copies of every field (the step functions edit these, then rebuild)."""
        return {f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)}

    def take(self, rows: np.ndarray | slice) -> State:
        """The sub-batch of the given rows."""
        return State(**{f.name: getattr(self, f.name)[rows] for f in dataclasses.fields(self)})

    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


FIELD_NAMES = tuple(f.name for f in dataclasses.fields(State))
_all_fields = operator.attrgetter(*FIELD_NAMES)

# The State's arrays under their field names, as the compiled moves take them (``s.hands``
# ...; ``moves.step_rows`` builds one). Built from ``FIELD_NAMES`` so the two cannot drift
# apart; to mypy it is ``Any``.
if TYPE_CHECKING:
    Fields = Any
else:
    Fields = namedtuple("Fields", FIELD_NAMES)
_FIELD_INDEX = {name: i for i, name in enumerate(FIELD_NAMES)}
_FIELD_SETTERS = tuple(State.__dict__[name].__set__ for name in FIELD_NAMES)  # slot setters


def from_fields(values: list[np.ndarray]) -> State:
    """A State of the arrays ``values`` in ``FIELD_NAMES`` order (not copied or checked).

    Fills the slots directly: the frozen ``__init__`` costs more than the step that builds
    the State when a batch holds one deal."""
    new = object.__new__(State)
    for set_field, value in zip(_FIELD_SETTERS, values, strict=True):
        set_field(new, value)
    return new


def concatenate(states: list[State]) -> State:
    """Stack several batches into one."""
    return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states])
                    for f in dataclasses.fields(State)})
