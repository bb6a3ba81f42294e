"""The batched state of B independent Žolík deals: named arrays over one byte buffer.

Every field has a leading batch axis ``B``. ``P`` is the number of seats, ``K =
NUM_KINDS`` card kinds, ``M = MAX_MELDS`` meld slots, ``C = MELD_CELLS`` cells per slot
and ``S`` the pack size. Hands and the table are counts over card kinds, so two decks
and any number of jokers need no special case. Piles are arrays of card kinds with a
length; the top of a pile is its last filled entry.

A meld slot holds a run (cells 0..13 = positions 1..14: low ace, 2..K, high ace) or a
set (cells 0..3 = suits S H D C, cell 4 = its joker, which stands for the first
missing suit). A cell is EMPTY, NATURAL or JOKER_CELL; ``cell_owner`` is the seat that
put the card there (jolly scores cards for whoever put them on the table).

**One buffer.** All fields of a State live in one contiguous byte array, field after
field (each field's block holds its B rows; ``Layout`` gives the offsets). A field is a
view of its block, made the first time it is read. So a pure ``step`` copies one buffer
and a compiled kernel takes the buffer and its layout table (``fields_of`` makes the
views inside the kernel): with one deal in the batch, copying forty-five small arrays and
passing them one by one to compiled code cost more than the move itself. This module
imports only numpy, numba (through ``jit``) and its siblings.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from zolik_env.arrays import BoolArray
from zolik_env.rummy.actions import MAX_MELDS, MELD_CELLS
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.jit import borrowed, inline_kernel, kernel

PHASE_DRAW, PHASE_PLAY, PHASE_OVER = 0, 1, 2

# name, dtype, shape after the batch axis (P seats, S pack size, K kinds, M melds, C
# cells), meaning. The order is the kernels' ``Fields`` order.
_SPEC: tuple[tuple[str, type, str, str], ...] = (
    ("hands", np.int8, "PK", "copies of kind k held by seat p"),
    ("stock", np.int8, "S", "stock cards, top at stock_len - 1"),
    ("stock_len", np.int16, "", ""),
    ("discard", np.int8, "S", "discard pile, oldest first"),
    ("discard_len", np.int16, "", ""),
    ("bottom", np.int8, "", "sk bottom card kind, -1 if none or taken"),
    ("meld_kind", np.int8, "M", "0 empty, RUN, SET"),
    ("meld_key", np.int8, "M", "suit of a run, rank of a set"),
    ("cells", np.int8, "MC", "EMPTY / NATURAL / JOKER_CELL"),
    ("cell_owner", np.int8, "MC", "seat that put the card there, -1 if empty"),
    ("num_melds", np.int8, "", "slots in use (filled from slot 0)"),
    ("current", np.int8, "", "seat to act"),
    ("phase", np.int8, "", "PHASE_DRAW / PHASE_PLAY / PHASE_OVER (exactly when done)"),
    ("turn", np.int16, "", "turns played before this one; round = turn // P + 1"),
    ("starter", np.int8, "", "seat that started the deal"),
    ("opened", np.bool_, "P", "seat has opened (current seat: maybe this turn)"),
    ("known_taken", np.int8, "PK", "discards a seat took and has not laid (public)"),
    ("table_counts", np.int8, "K", "cards on the table by kind (kept up by each move)"),
    ("discard_counts", np.int8, "K", "cards in the discard pile by kind (likewise)"),
    ("rebuilds", np.int8, "", "times the stock was rebuilt"),
    ("rng_key", np.uint64, "", "per-deal key for jolly's stock shuffles"),
    # --- this turn (reset when a turn starts)
    ("opened_before", np.bool_, "", "current seat had opened before this turn"),
    ("drawn", np.int8, "", "card drawn from the stock this turn, -1 if none"),
    ("took_pile", np.bool_, "", "took from the discard pile or the bottom card"),
    ("taken_unlaid", np.int8, "K", "cards taken this turn and not laid again"),
    ("must_use", np.int8, "", "cz/sk: taken top discard still to lay, -1 if none"),
    ("freed_jokers", np.int8, "", "jokers swapped off the table, not laid again"),
    ("laid", np.bool_, "", "laid anything this turn"),
    ("undone", np.bool_, "", "used UNDO this turn: only a discard may follow"),
    ("snap_hand", np.int8, "K", "current seat's hand when the turn started"),
    ("snap_known", np.int8, "K", "its known_taken row then"),
    ("snap_discard_len", np.int16, "", ""),
    ("snap_bottom", np.int8, "", ""),
    ("snap_num_melds", np.int8, "", ""),
    ("snap_kind", np.int8, "M", ""),
    ("snap_key", np.int8, "M", ""),
    ("snap_cells", np.int8, "MC", ""),
    ("snap_owner", np.int8, "MC", ""),
    ("snap_table_counts", np.int8, "K", ""),
    ("snap_discard_counts", np.int8, "K", ""),
    # --- outcome
    ("terminated", np.bool_, "", "the deal ended by the rules"),
    ("truncated", np.bool_, "", "cut off by max_stock_rebuilds"),
    ("winner", np.int8, "", "seat that went out, -1 if none"),
    ("closed_from_hand", np.bool_, "", ""),
    ("scores", np.int16, "P", "deal scores as the preset writes them (at the end)"),
)
FIELD_NAMES = tuple(name for name, _, _, _ in _SPEC)
_FIELD_INDEX = {name: i for i, name in enumerate(FIELD_NAMES)}
_LAYOUT_HEAD = 3  # a layout table starts with B, P, S; the field offsets follow

# The State's arrays under their field names, as the compiled moves take them (``s.hands``
# ...; ``fields_of`` builds one from a buffer). Built from ``FIELD_NAMES`` so the two
# cannot drift apart; to mypy it is ``Any``.
if TYPE_CHECKING:
    Fields = Any
else:
    Fields = namedtuple("Fields", FIELD_NAMES)


@dataclass(frozen=True)
class Layout:
    """Where each field of a ``(batch, players, pack_size)`` State lies in its buffer."""

    batch: int
    players: int
    pack_size: int
    shapes: tuple[tuple[int, ...], ...]  # each field's full shape, batch axis first
    offsets: tuple[int, ...]  # byte offset of each field's block (8-aligned)
    row_bytes: np.ndarray  # int64 (F,) bytes of one deal's entry of each field
    table: np.ndarray  # int64 (3 + F,): B, P, S, then the offsets (what kernels take)
    nbytes: int

    def view(self, buffer: np.ndarray, i: int) -> np.ndarray:
        """Field ``i`` of the State held in ``buffer`` (a view: writes go to the buffer)."""
        return np.ndarray(self.shapes[i], _SPEC[i][1], buffer, self.offsets[i])


@functools.lru_cache(maxsize=512)
def layout(batch: int, players: int, pack_size: int) -> Layout:
    dims = {"P": players, "S": pack_size, "K": NUM_KINDS, "M": MAX_MELDS, "C": MELD_CELLS}
    shapes, offsets, row_bytes, end = [], [], [], 0
    for _, dtype, axes, _ in _SPEC:
        shape = (batch, *(dims[axis] for axis in axes))
        per_row = int(np.prod(shape[1:], dtype=np.int64)) * np.dtype(dtype).itemsize
        start = -(-end // 8) * 8
        shapes.append(shape)
        offsets.append(start)
        row_bytes.append(per_row)
        end = start + batch * per_row
    table = np.array([batch, players, pack_size, *offsets], np.int64)
    table.flags.writeable = False
    rows = np.array(row_bytes, np.int64)
    rows.flags.writeable = False
    return Layout(batch, players, pack_size, tuple(shapes), tuple(offsets), rows, table,
                  -(-end // 8) * 8)


class State:
    """B deals; see the module docstring for the axes. Each field of ``_SPEC`` is an
    attribute (a view into ``buffer``); a State is built from its fields by keyword
    (``State(hands=..., ...)``, copied into a new buffer) or over a buffer (``over``)."""

    __slots__ = ("_views", "buffer", "layout")
    buffer: np.ndarray  # uint8 (layout.nbytes,)
    layout: Layout
    _views: list[np.ndarray | None]  # each field's view, once made

    def __init__(self, **fields: np.ndarray) -> None:
        missing = [name for name in FIELD_NAMES if name not in fields]
        unknown = sorted(fields.keys() - _FIELD_INDEX.keys())
        if missing or unknown:
            raise TypeError(f"State needs every field: missing {missing}, unknown {unknown}")
        hands, stock = fields["hands"], fields["stock"]
        lay = layout(len(hands), hands.shape[1], stock.shape[1])
        _attach(self, np.zeros(lay.nbytes, np.uint8), lay)
        for i, name in enumerate(FIELD_NAMES):
            self._field(i)[...] = fields[name]

    @staticmethod
    def over(buffer: np.ndarray, lay: Layout) -> State:
        """The State held in ``buffer`` (not copied): a C-contiguous uint8 array of
        ``lay.nbytes`` bytes, else ``ValueError`` (the kernels write where ``lay`` says)."""
        if not (isinstance(buffer, np.ndarray) and buffer.dtype == np.uint8
                and buffer.shape == (lay.nbytes,) and buffer.flags.c_contiguous
                and buffer.flags.writeable):
            raise ValueError(f"a State of {lay.batch} deals needs a writable uint8 buffer of "
                             f"{lay.nbytes} bytes, got {getattr(buffer, 'shape', buffer)!r}")
        return _attach(object.__new__(State), buffer, lay)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"State is immutable: cannot set {name!r} (use replace)")

    def _field(self, i: int) -> np.ndarray:
        """Field ``i``, its view made on first use."""
        view = self._views[i]
        if view is None:
            view = self._views[i] = self.layout.view(self.buffer, i)
        return view

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> np.ndarray: ...  # the fields, to mypy

    @property
    def batch_size(self) -> int:
        return self.layout.batch

    @property
    def done(self) -> np.ndarray:
        """bool (B,): the deal is over (terminated or truncated)."""
        done: BoolArray = self.terminated | self.truncated
        return done

    def copy(self) -> State:
        return _attach(object.__new__(State), self.buffer.copy(), self.layout)

    def replace(self, **changes: Any) -> State:
        """A new State (a copy) with ``changes`` (field name -> array)."""
        unknown = changes.keys() - _FIELD_INDEX.keys()
        if unknown:
            raise TypeError(f"State has no field(s) {sorted(unknown)}")
        new = self.copy()
        for name, value in changes.items():
            new._field(_FIELD_INDEX[name])[...] = value
        return new

    def fields(self) -> list[np.ndarray]:
        """Every field's array (views, not copies), in ``FIELD_NAMES`` order."""
        return [self._field(i) for i in range(len(FIELD_NAMES))]

    def to_dict(self) -> dict[str, np.ndarray]:
        """Copies of every field, by name."""
        return {name: self._field(i).copy() for i, name in enumerate(FIELD_NAMES)}

    def take(self, rows: np.ndarray | slice) -> State:
        """The sub-batch of the given rows (indices, a slice or a bool mask), copied."""
        picked = np.arange(self.batch_size)[rows].astype(np.int64, copy=False)
        lay = layout(len(picked), self.layout.players, self.layout.pack_size)
        new = State.over(np.zeros(lay.nbytes, np.uint8), lay)
        copy_rows(self.buffer, self.layout.table, picked, new.buffer, lay.table,
                  np.arange(len(picked)), lay.row_bytes)
        return new

    def put(self, rows: np.ndarray, source: State) -> None:
        """Overwrite deals ``rows`` of this State (indices or a bool mask), in place, with
        the deals of ``source``: one per row, the same players and pack, else
        ``ValueError``; a row out of range is an ``IndexError``."""
        rows = np.arange(self.batch_size)[rows].astype(np.int64, copy=False)  # checks them
        ours, theirs = self.layout, source.layout
        if (len(rows), ours.players, ours.pack_size) != (theirs.batch, theirs.players,
                                                         theirs.pack_size):
            raise ValueError(f"cannot put {source!r} into {len(rows)} rows of {self!r}")
        copy_rows(source.buffer, theirs.table, np.arange(len(rows)), self.buffer, ours.table,
                  rows, ours.row_bytes)

    def nbytes(self) -> int:
        return int(self.buffer.nbytes)

    def __repr__(self) -> str:
        lay = self.layout
        return f"State(batch={lay.batch}, players={lay.players}, pack_size={lay.pack_size})"

    def __reduce__(self) -> tuple[Any, ...]:
        lay = self.layout
        return _unpickle, (self.buffer, lay.batch, lay.players, lay.pack_size)

    def __setstate__(self, state: tuple[None, dict[str, np.ndarray]]) -> None:
        """A State pickled by an older kit (its fields as separate arrays)."""
        State.__init__(self, **state[1])


def _attach(state: State, buffer: np.ndarray, lay: Layout) -> State:
    _set_buffer(state, buffer)  # the slots' own setters: State.__setattr__ refuses
    _set_layout(state, lay)
    _set_views(state, [None] * len(FIELD_NAMES))
    return state


_set_buffer, _set_layout, _set_views = (State.__dict__[name].__set__
                                        for name in ("buffer", "layout", "_views"))


def _unpickle(buffer: np.ndarray, batch: int, players: int, pack_size: int) -> State:
    return State.over(np.require(buffer, np.uint8, ["C", "W"]), layout(batch, players, pack_size))


def _field_property(i: int, name: str, doc: str) -> property:
    def get(self: State) -> np.ndarray:
        return self._field(i)

    dtype, axes = _SPEC[i][1], _SPEC[i][2]
    get.__name__ = name
    return property(get, doc=f"{np.dtype(dtype).name} (B{', ' if axes else ''}"
                             f"{', '.join(axes)}) {doc}".rstrip())


for _i, _spec in enumerate(_SPEC):
    setattr(State, _spec[0], _field_property(_i, _spec[0], _spec[3]))


def from_fields(values: list[np.ndarray]) -> State:
    """A State of the arrays ``values`` in ``FIELD_NAMES`` order (copied)."""
    return State(**dict(zip(FIELD_NAMES, values, strict=True)))


def concatenate(states: list[State]) -> State:
    """Stack several batches into one."""
    first = states[0].layout
    lay = layout(sum(s.batch_size for s in states), first.players, first.pack_size)
    new = State.over(np.zeros(lay.nbytes, np.uint8), lay)
    start = 0
    for s in states:
        new.put(np.arange(start, start + s.batch_size), s)
        start += s.batch_size
    return new


@kernel
def copy_rows(source: np.ndarray, source_table: np.ndarray, source_rows: np.ndarray,
              target: np.ndarray, target_table: np.ndarray, target_rows: np.ndarray,
              row_bytes: np.ndarray) -> None:
    """Copy deal ``source_rows[j]`` of buffer ``source`` to ``target_rows[j]`` of ``target``."""
    for f in range(len(row_bytes)):
        size = row_bytes[f]
        for j in range(len(source_rows)):
            src = source_table[_LAYOUT_HEAD + f] + source_rows[j] * size
            dst = target_table[_LAYOUT_HEAD + f] + target_rows[j] * size
            if size > 16:  # a slice; small fields byte by byte, which is faster for them
                target[dst:dst + size] = source[src:src + size]
                continue
            for k in range(size):
                target[dst + k] = source[src + k]


# The fields inside a kernel: views of the buffer the kernel's caller holds, without
# reference counts of their own (``jit.borrowed``).
@inline_kernel
def _int8(buffer: np.ndarray, start: int, size: int) -> np.ndarray:
    return borrowed(buffer[start:start + size].view(np.int8))


@inline_kernel
def _int16(buffer: np.ndarray, start: int, size: int) -> np.ndarray:
    return borrowed(buffer[start:start + 2 * size].view(np.int16))


@inline_kernel
def _bool(buffer: np.ndarray, start: int, size: int) -> np.ndarray:
    return borrowed(buffer[start:start + size].view(np.bool_))


@inline_kernel
def _uint64(buffer: np.ndarray, start: int, size: int) -> np.ndarray:
    return borrowed(buffer[start:start + 8 * size].view(np.uint64))


@kernel
def fields_of(buffer: np.ndarray, table: np.ndarray) -> Fields:
    """The State in ``buffer`` as ``Fields`` of views, for the layout ``table``. Written
    out field by field (numba needs each view's type); ``tests/rummy/test_state.py``
    holds it to ``Layout.view``."""
    b, p, s = table[0], table[1], table[2]
    at = table[_LAYOUT_HEAD:]
    k, m, c = NUM_KINDS, MAX_MELDS, MELD_CELLS
    return Fields(
        _int8(buffer, at[0], b * p * k).reshape((b, p, k)),  # hands
        _int8(buffer, at[1], b * s).reshape((b, s)),  # stock
        _int16(buffer, at[2], b),  # stock_len
        _int8(buffer, at[3], b * s).reshape((b, s)),  # discard
        _int16(buffer, at[4], b),  # discard_len
        _int8(buffer, at[5], b),  # bottom
        _int8(buffer, at[6], b * m).reshape((b, m)),  # meld_kind
        _int8(buffer, at[7], b * m).reshape((b, m)),  # meld_key
        _int8(buffer, at[8], b * m * c).reshape((b, m, c)),  # cells
        _int8(buffer, at[9], b * m * c).reshape((b, m, c)),  # cell_owner
        _int8(buffer, at[10], b),  # num_melds
        _int8(buffer, at[11], b),  # current
        _int8(buffer, at[12], b),  # phase
        _int16(buffer, at[13], b),  # turn
        _int8(buffer, at[14], b),  # starter
        _bool(buffer, at[15], b * p).reshape((b, p)),  # opened
        _int8(buffer, at[16], b * p * k).reshape((b, p, k)),  # known_taken
        _int8(buffer, at[17], b * k).reshape((b, k)),  # table_counts
        _int8(buffer, at[18], b * k).reshape((b, k)),  # discard_counts
        _int8(buffer, at[19], b),  # rebuilds
        _uint64(buffer, at[20], b),  # rng_key
        _bool(buffer, at[21], b),  # opened_before
        _int8(buffer, at[22], b),  # drawn
        _bool(buffer, at[23], b),  # took_pile
        _int8(buffer, at[24], b * k).reshape((b, k)),  # taken_unlaid
        _int8(buffer, at[25], b),  # must_use
        _int8(buffer, at[26], b),  # freed_jokers
        _bool(buffer, at[27], b),  # laid
        _bool(buffer, at[28], b),  # undone
        _int8(buffer, at[29], b * k).reshape((b, k)),  # snap_hand
        _int8(buffer, at[30], b * k).reshape((b, k)),  # snap_known
        _int16(buffer, at[31], b),  # snap_discard_len
        _int8(buffer, at[32], b),  # snap_bottom
        _int8(buffer, at[33], b),  # snap_num_melds
        _int8(buffer, at[34], b * m).reshape((b, m)),  # snap_kind
        _int8(buffer, at[35], b * m).reshape((b, m)),  # snap_key
        _int8(buffer, at[36], b * m * c).reshape((b, m, c)),  # snap_cells
        _int8(buffer, at[37], b * m * c).reshape((b, m, c)),  # snap_owner
        _int8(buffer, at[38], b * k).reshape((b, k)),  # snap_table_counts
        _int8(buffer, at[39], b * k).reshape((b, k)),  # snap_discard_counts
        _bool(buffer, at[40], b),  # terminated
        _bool(buffer, at[41], b),  # truncated
        _int8(buffer, at[42], b),  # winner
        _bool(buffer, at[43], b),  # closed_from_hand
        _int16(buffer, at[44], b * p).reshape((b, p)),  # scores
    )


@kernel
def fields_in_kernel(buffer: np.ndarray, table: np.ndarray) -> Fields:
    """``fields_of`` called from Python: the views a kernel sees (for the tests). They do
    not hold ``buffer`` (``jit.borrowed``): keep it alive while they are used."""
    return fields_of(buffer, table)
