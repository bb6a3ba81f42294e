"""Corrections in renamed suits (``train.suit_copies``): each repeat is a renaming of its
label, the same seed gives the same bytes, and the held-out tail is never repeated."""

import numpy as np
import pytest

from train.imitation import collect
from train.suit_copies import renamed, renamed_repeats
from zolik_env.rummy import rules
from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.rummy.cards import JOKER, NUM_SUITS
from zolik_env.rummy.observe import obs_slices
from zolik_env.rummy.symmetry import SUIT_PERMUTATIONS, action_map

HOLDOUT = 0.1


@pytest.fixture(scope="module")
def labels():
    r = rules.preset("cz", num_players=2)
    return r, collect(r, "planner", decisions=300, seed=3, num_deals=4)


def _hand(r, obs):
    start, stop = next((a, b) for name, a, b in obs_slices(r) if name == "hand")
    return obs[:, start:stop]


def _by_rank(hand):
    """(N, 13): naturals of each rank, whatever their suit, and the jokers apart."""
    return np.concatenate([hand[:, :JOKER].reshape(len(hand), NUM_SUITS, -1).sum(1),
                           hand[:, JOKER:]], axis=1)


def test_renamed__moves_masks_and_observations_are_renamed_together(labels):
    r, data = labels
    perm = SUIT_PERMUTATIONS[7]
    copy = renamed(data, r, perm)
    legal = np.unpackbits(copy.mask, axis=1, count=NUM_ACTIONS).astype(bool)
    assert legal[np.arange(len(copy)), copy.action].all()  # the renamed move is legal there
    assert np.array_equal(copy.action, action_map(perm)[data.action])
    assert np.array_equal(_by_rank(_hand(r, copy.obs)), _by_rank(_hand(r, data.obs)))
    assert not np.array_equal(copy.obs, data.obs)
    assert np.array_equal(copy.ret, data.ret)


def _overruled(data):
    return np.arange(len(data)) % 5 == 0  # stands in for the labels the search overruled


def test_renamed_repeats__each_overruled_label_repeats_in_other_suits_in_front(labels):
    r, data = labels
    over = _overruled(data)
    out = renamed_repeats(data, over, weight=4, rules=r, seed=5, holdout=HOLDOUT)
    rows = np.flatnonzero(over[:int(len(data) * (1 - HOLDOUT))])  # the tail is not repeated
    assert len(out) == len(data) + 3 * len(rows)
    assert np.array_equal(out.obs[-len(data):], data.obs)  # the labels themselves, last
    repeats = out.obs[:3 * len(rows)].reshape(3, len(rows), -1)
    for repeat in repeats:  # a renaming of each overruled label, not the label again
        assert np.array_equal(_by_rank(_hand(r, repeat)), _by_rank(_hand(r, data.obs[rows])))
        assert (repeat != data.obs[rows]).any(1).all()
    legal = np.unpackbits(out.mask, axis=1, count=NUM_ACTIONS).astype(bool)
    assert legal[np.arange(len(out)), out.action].all()


def test_renamed_repeats__a_seed_gives_the_same_bytes_another_seed_other_suits(labels):
    r, data = labels
    first, again, other = (renamed_repeats(data, _overruled(data), 3, r, seed, HOLDOUT)
                           for seed in (1, 1, 2))
    assert first.obs.tobytes() == again.obs.tobytes()
    assert first.action.tobytes() == again.action.tobytes()
    assert first.obs.tobytes() != other.obs.tobytes()


def test_renamed_repeats__weight_one_adds_nothing_and_less_is_an_error(labels):
    r, data = labels
    assert renamed_repeats(data, _overruled(data), 1, r, 1, HOLDOUT).obs.tobytes() == \
        data.obs.tobytes()
    with pytest.raises(ValueError, match="deviation weight 0"):
        renamed_repeats(data, _overruled(data), 0, r, 1, HOLDOUT)
