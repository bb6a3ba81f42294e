"""``agents.learned.ppo.pick_moves``: the inverse-CDF draw over the legal moves only is the draw
over every column, to the bit, for the same generator; ``sharpen``, the play temperature."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned.ppo import pick_moves, sharpen


def _over_every_column(probs: np.ndarray, mask: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
    cdf = np.cumsum(probs, 1)
    u = rng.random(len(probs))[:, None] * cdf[:, -1:]
    last = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], 1)
    return np.minimum((cdf <= u).sum(1), last)


def _distributions(rng: np.random.Generator, rows: int, width: int):
    density = rng.random((rows, 1)) ** 3
    mask = rng.random((rows, width)) < density
    mask[np.arange(rows), rng.integers(0, width, rows)] = True  # a move in every row
    probs = rng.random((rows, width)) ** 4 * mask
    probs[mask & (rng.random((rows, width)) < 0.2)] = 0.0  # legal, yet never drawn
    empty = probs.sum(1) == 0
    probs[empty] = mask[empty]
    return probs / probs.sum(1, keepdims=True), mask


@pytest.mark.parametrize("width", [2658, 40, 3])
def test_pick_moves__equals_the_draw_over_every_column(width):
    probs, mask = _distributions(np.random.default_rng(width), 300, width)
    got = pick_moves(probs, mask, np.random.default_rng(9), deterministic=False)
    want = _over_every_column(probs, mask, np.random.default_rng(9))
    np.testing.assert_array_equal(got, want)
    assert mask[np.arange(len(got)), got].all()
    assert (probs[np.arange(len(got)), got] > 0).all()


def test_pick_moves__a_uniform_at_the_top_of_the_cdf_takes_the_last_drawable_move():
    probs = np.zeros((1, 10))
    probs[0, [2, 5]] = [0.5, 0.5]
    mask = np.zeros((1, 10), bool)
    mask[0, [2, 5, 7]] = True

    class Top:  # a generator whose uniform rounds up to the whole mass
        def random(self, n):
            return np.ones(n)

    assert pick_moves(probs, mask, Top(), deterministic=False).tolist() == [7]
    assert _over_every_column(probs, mask, Top()).tolist() == [7]


def test_pick_moves__follows_the_distribution_and_argmax_is_the_likeliest():
    probs = np.zeros((20_000, 6))
    probs[:, [1, 3, 4]] = [0.2, 0.5, 0.3]
    mask = probs > 0
    got = pick_moves(probs, mask, np.random.default_rng(0), deterministic=False)
    share = np.bincount(got, minlength=6) / len(got)
    np.testing.assert_allclose(share[[1, 3, 4]], [0.2, 0.5, 0.3], atol=0.015)
    assert share[[0, 2, 5]].sum() == 0
    assert pick_moves(probs[:2], mask[:2], np.random.default_rng(0), True).tolist() == [3, 3]


def test_pick_moves__a_row_without_legal_moves_gets_move_0_and_uses_its_uniform():
    probs = np.zeros((3, 8))
    probs[[0, 2], [4, 6]] = 1.0
    mask = probs > 0
    rng = np.random.default_rng(2)
    assert pick_moves(probs, mask, rng, deterministic=False).tolist() == [4, 0, 6]
    spent = np.random.default_rng(2)
    spent.random(3)
    assert rng.random() == spent.random()  # one uniform per row, the empty one included


def test_sharpen__powers_each_row_and_keeps_the_zeros():
    probs, _ = _distributions(np.random.default_rng(4), 200, 40)
    half = sharpen(probs, 0.5)
    want = probs**2 / (probs**2).sum(1, keepdims=True)
    np.testing.assert_allclose(half, want, rtol=1e-12, atol=1e-300)
    assert not half[probs == 0].any()
    np.testing.assert_allclose(sharpen(probs, 1.0), probs, rtol=1e-12)
    np.testing.assert_allclose(sharpen(probs, 2.0).sum(1), 1.0)
    cold = sharpen(probs, 1e-4)  # no underflow: the likeliest move keeps the whole mass
    top_two = np.sort(probs, 1)[:, -2:]
    alone = top_two[:, 1] > top_two[:, 0] * 1.001  # rows whose likeliest move has no tie
    assert alone.sum() > 100
    np.testing.assert_array_equal(cold[alone].argmax(1), probs[alone].argmax(1))
    assert (cold[alone].max(1) > 0.99).all()
    empty = np.zeros((1, 40))
    assert not sharpen(empty, 0.5).any()


def test_sharpen__a_cold_draw_favours_the_likely_moves_as_the_power_says():
    probs = np.zeros((20_000, 5))
    probs[:, [0, 2, 4]] = [0.2, 0.5, 0.3]
    got = pick_moves(sharpen(probs, 0.5), probs > 0, np.random.default_rng(1), False)
    share = np.bincount(got, minlength=5)[[0, 2, 4]] / len(got)
    np.testing.assert_allclose(share, np.array([4, 25, 9]) / 38, atol=0.015)
