"""``game.sample_legal``: the legal action at ``floor(u * count)`` of each row."""

from __future__ import annotations

import numpy as np
import pytest

from zolik_env.rummy import game


def _reference(mask: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    out = np.zeros(len(mask), np.int64)
    for b, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if legal.size:
            out[b] = legal[min(int(uniform[b] * legal.size), legal.size - 1)]
    return out


@pytest.mark.parametrize("width", [2658, 16, 13, 3])
def test_sample_legal__is_the_reference_pick_on_random_masks(width):
    rng = np.random.default_rng(width)
    density = rng.random((200, 1)) ** 3  # from nearly empty rows to nearly full ones
    mask = rng.random((200, width)) < density
    mask[0] = False
    mask[1] = True
    mask[2, -1] = True  # only the last column: past the eight-byte words
    mask[2, :-1] = False
    got = game.sample_legal(mask, np.random.default_rng(7))
    uniform = np.random.default_rng(7).random(len(mask))
    np.testing.assert_array_equal(got, _reference(mask, uniform))
    assert got[2] == width - 1


def test_sample_legal__draws_nothing_when_no_row_has_a_move():
    rng = np.random.default_rng(1)
    assert game.sample_legal(np.zeros((4, 2658), bool), rng).tolist() == [0, 0, 0, 0]
    assert rng.random() == np.random.default_rng(1).random()
