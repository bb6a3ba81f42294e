"""zolik_common.opponent_actions: policies with an equal ``obs_transform_key`` share one
transform of all their rows per pass, and play exactly as they would alone."""

from typing import ClassVar

import numpy as np

from zolik_env.envs.zolik_common import opponent_actions
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import observe


class Transforming:
    """A policy whose move depends on its transformed rows (``offset`` tells policies of
    one key apart) and which counts the rows it transformed."""

    def __init__(self, key, offset):
        self.obs_transform_key = key
        self.offset = offset
        self.transformed = []

    def obs_transform(self, obs):
        self.transformed.append(len(obs))
        return obs.astype(np.int64) * 3 + 1

    def act_transformed(self, obs, mask, rng):
        legal = [np.flatnonzero(m) for m in mask]
        return np.array([ls[(int(o.sum()) + self.offset) % len(ls)] for o, ls in zip(obs, legal,
                                                                                      strict=True)])

    def act_batch(self, obs, mask, rng):
        return self.act_transformed(self.obs_transform(obs), mask, rng)


def test_shared_transform__same_moves_and_one_transform_per_key():
    r = rules.preset("cz", num_players=4)
    state = game.init(r, np.arange(40) * 31)
    rng = np.random.default_rng(0)
    for _ in range(30):  # some deals in each phase
        state, _ = game.step(r, state, game.sample_legal(game.legal_action_mask(r, state), rng))
    slot = np.random.default_rng(1).integers(0, 3, state.batch_size)
    opponents = [Transforming("a", 0), Transforming("a", 1), Transforming("b", 2)]
    got = opponent_actions(r, state, slot, opponents, np.random.default_rng(2))
    mask = game.legal_action_mask(r, state)
    for j, policy in enumerate(opponents):
        idx = np.flatnonzero(slot == j)
        part = state.take(idx)
        alone = Transforming("solo", policy.offset)
        want = alone.act_batch(observe(r, part, part.current), mask[idx], None)
        assert np.array_equal(got[idx], want), j
    # key "a": one transform of both policies' rows; key "b": its own
    assert opponents[0].transformed + opponents[1].transformed == [int((slot < 2).sum())]
    assert opponents[2].transformed == [int((slot == 2).sum())]


class Joint(Transforming):
    """A Transforming policy that may also compute its distributions jointly with others
    of its ``joint_key``; the joint calls are counted on the class."""

    calls: ClassVar[list[int]] = []

    def __init__(self, key, offset, joint="j"):
        super().__init__(key, offset)
        self.joint_key = joint

    def probabilities(self, obs, mask):
        probs = np.zeros(mask.shape)
        for row, (o, m) in enumerate(zip(obs, mask, strict=True)):
            legal = np.flatnonzero(m)
            probs[row, legal[(int(o.sum()) + self.offset) % len(legal)]] = 1.0
        return probs

    @staticmethod
    def joint_probabilities(policies, obs, owner, mask):
        Joint.calls.append(len(obs))
        return np.concatenate([policies[k].probabilities(obs[owner == k], mask[owner == k])
                               for k in range(len(policies))])

    def act_probabilities(self, probs, mask, rng):
        return probs.argmax(1)


def test_joint_policies__one_call_per_joint_key_and_the_same_moves():
    r = rules.preset("cz", num_players=4)
    state = game.init(r, np.arange(40) * 17)
    rng = np.random.default_rng(3)
    for _ in range(25):
        state, _ = game.step(r, state, game.sample_legal(game.legal_action_mask(r, state), rng))
    slot = np.random.default_rng(4).integers(0, 3, state.batch_size)
    Joint.calls.clear()
    opponents = [Joint("a", 0), Joint("a", 1), Joint("a", 2, joint="other")]
    got = opponent_actions(r, state, slot, opponents, np.random.default_rng(5))
    mask = game.legal_action_mask(r, state)
    for j, policy in enumerate(opponents):
        idx = np.flatnonzero(slot == j)
        part = state.take(idx)
        want = Transforming("solo", policy.offset).act_batch(
            observe(r, part, part.current), mask[idx], None)
        assert np.array_equal(got[idx], want), j
    # the two policies of key "j" in one call; "other" is alone, so it plays by itself
    assert Joint.calls == [int((slot < 2).sum())]
