"""The State over one buffer: the kernels' views, copies that share nothing, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from zolik_env.rummy import game, options
from zolik_env.rummy.state import (
    FIELD_NAMES,
    State,
    concatenate,
    fields_in_kernel,
    from_fields,
    layout,
)


def _played(preset: str = "jolly", players: int = 3, batch: int = 5, moves: int = 40) -> State:
    """A batch some moves into its deals, so that most fields hold something."""
    rules = options.preset(preset, num_players=players)
    state = game.init(rules, np.arange(batch) + 7)
    rng = np.random.default_rng(3)
    for _ in range(moves):
        state, _ = game.step(rules, state, game.sample_legal(game.legal_action_mask(rules, state),
                                                             rng))
    return state


@pytest.mark.parametrize(("preset", "players", "batch"),
                         [("cz", 2, 1), ("sk", 4, 3), ("jolly", 3, 8)])
def test_kernel_views__are_the_python_fields(preset, players, batch):
    state = _played(preset, players, batch)
    inside = fields_in_kernel(state.buffer, state.layout.table)
    assert inside._fields == FIELD_NAMES
    for name, array in zip(FIELD_NAMES, inside, strict=True):
        field = getattr(state, name)
        assert array.dtype == field.dtype, name
        assert array.shape == field.shape, name
        assert array.__array_interface__["data"][0] == field.__array_interface__["data"][0], name


def test_layout__fields_aligned_and_disjoint():
    lay = layout(5, 3, 162)
    ends = [start + 5 * size for start, size in zip(lay.offsets, lay.row_bytes, strict=True)]
    assert all(start % 8 == 0 for start in lay.offsets)
    assert all(end <= nxt for end, nxt in zip(ends, lay.offsets[1:], strict=False))
    assert ends[-1] <= lay.nbytes
    assert layout(1024, 4, 108).nbytes <= 64 * 2**20  # the memory budget per 1,024 deals


def test_built_from_fields__round_trips_and_copies():
    state = _played()
    values = state.fields()
    rebuilt = from_fields(values)
    assert all(np.array_equal(a, b) for a, b in zip(rebuilt.fields(), values, strict=True))
    rebuilt.hands[0, 0, 0] += 1  # a new buffer: the source does not change
    assert state.hands[0, 0, 0] == values[0][0, 0, 0] == rebuilt.hands[0, 0, 0] - 1


def test_missing_or_unknown_fields__are_named():
    fields = _played().to_dict()
    del fields["winner"]
    with pytest.raises(TypeError, match="winner"):
        State(**fields)
    with pytest.raises(TypeError, match="colour"):
        _played().replace(colour=np.zeros(5))


def test_replace_take_put_concatenate__copy_rows():
    state = _played()
    before = state.to_dict()
    hands = state.hands.copy()
    hands[1] = 0
    changed = state.replace(hands=hands)
    assert np.array_equal(changed.hands, hands)
    assert np.array_equal(state.hands, before["hands"])  # the source is untouched
    part = state.take(np.array([3, 1]))
    for name in FIELD_NAMES:
        assert np.array_equal(getattr(part, name), before[name][[3, 1]]), name
    assert np.array_equal(state.take(np.array([False, True, False, True, False])).turn,
                          before["turn"][[1, 3]])
    both = concatenate([part, state.take(slice(0, 1))])
    for name in FIELD_NAMES:
        assert np.array_equal(getattr(both, name), before[name][[3, 1, 0]]), name
    target = state.copy()
    target.put(np.array([0, 4]), part)
    for name in FIELD_NAMES:
        expected = before[name].copy()
        expected[[0, 4]] = before[name][[3, 1]]
        assert np.array_equal(getattr(target, name), expected), name
    assert all(np.array_equal(getattr(state, n), before[n]) for n in FIELD_NAMES)


def test_fields__are_read_only_attributes():
    state = _played()
    with pytest.raises(AttributeError, match="hands"):
        state.hands = np.zeros(3)


def test_pickle__round_trips():
    state = _played()
    back = pickle.loads(pickle.dumps(state))
    assert back.layout == state.layout
    assert back.buffer.tobytes() == state.buffer.tobytes()


def test_pickle_of_an_older_kit__loads():
    """A State pickled when its fields were separate arrays (resume files of older runs)."""
    state = _played()

    class Older:  # pickles as the slotted dataclass did: class, then (None, slots)
        def __reduce_ex__(self, protocol):
            return object.__new__, (State,), (None, state.to_dict())

    old = pickle.loads(pickle.dumps(Older()))
    assert isinstance(old, State)
    assert old.buffer.tobytes() == state.buffer.tobytes()


def test_put__refuses_other_shapes_and_rows_out_of_range():
    state = _played()
    with pytest.raises(ValueError, match="cannot put"):
        state.put(np.array([0, 1]), state.take(np.array([0])))  # two rows, one deal
    with pytest.raises(ValueError, match="cannot put"):
        state.put(np.array([0]), _played("cz", 2, 1))  # other seats and pack
    with pytest.raises(IndexError):
        state.put(np.array([5]), state.take(np.array([0])))  # the batch holds rows 0..4
    before = state.buffer.copy()
    state.put(np.array([False, False, True, False, False]), state.take(np.array([2])))
    assert state.buffer.tobytes() == before.tobytes()  # a bool mask; row 2 onto itself


def test_over__refuses_a_buffer_the_layout_does_not_fit():
    state = _played()
    assert State.over(state.buffer, state.layout).buffer is state.buffer
    for bad in (state.buffer[:-8], state.buffer.view(np.int8), state.buffer[::2],
                np.zeros(3)):
        with pytest.raises(ValueError, match="uint8 buffer"):
            State.over(bad, state.layout)


def test_an_empty_batch__takes_and_concatenates():
    state = _played()
    none = state.take(np.array([], np.int64))
    assert none.batch_size == 0 and none.hands.shape == (0, 3, 53)
    assert concatenate([none, state]).buffer.tobytes() == state.buffer.tobytes()
