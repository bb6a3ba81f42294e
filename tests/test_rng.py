"""The shared SplitMix64 hash: reference values and wrapping."""

import numpy as np

from zolik_env.rng import GOLDEN_GAMMA, splitmix64


def test_splitmix64__matches_the_reference_sequence():
    # SplitMix64 seeded with 0 (Vigna's splitmix64.c): its first outputs hash the states
    # 0, G, 2G with G = GOLDEN_GAMMA.
    with np.errstate(over="ignore"):
        states = np.arange(3, dtype=np.uint64) * GOLDEN_GAMMA
    assert splitmix64(states).tolist() == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F,
    ]


def test_splitmix64__wraps_and_keeps_shape_without_warnings():
    x = np.array([[0, 2**64 - 1], [int(GOLDEN_GAMMA), 1]], np.uint64)
    with np.errstate(over="raise"):
        out = splitmix64(x)
    assert out.dtype == np.uint64 and out.shape == (2, 2)
    assert splitmix64(np.uint64(7)) == splitmix64(np.array([7]))[0]
    assert splitmix64(np.array([3], np.int64))[0] == splitmix64(np.array([3], np.uint64))[0]


def test_splitmix64__the_kernels_copy_gives_the_same_numbers():
    """The shuffle kernels hash with their own compiled SplitMix64; it must be the kit's."""
    from zolik_env.rummy.shuffle import _splitmix64

    values = np.random.default_rng(0).integers(0, 2**63, 200, dtype=np.uint64)
    values = np.concatenate([values, np.array([0, 1, 2**64 - 1], np.uint64)])
    expected = splitmix64(values)
    assert [int(_splitmix64(v)) for v in values] == [int(x) for x in expected]
