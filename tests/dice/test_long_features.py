"""``features: long``: the long-horizon features of a Pět kostek observation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import yaml

from agents.dice.dice_net import extractor_kwargs, features_per_column
from agents.dice.players import PPOAgent
from train.dice import ppo as dice_ppo
from train.dice.vec import KostkyVecEnv
from zolik_env.dice import DiceRules, game, observe
from zolik_env.dice.observe import obs_layout, obs_size, obs_slices
from zolik_env.dice.rules import NUM_BOXES


def _features(rules: DiceRules, obs: np.ndarray) -> np.ndarray:
    from gymnasium.spaces import Box

    kwargs = extractor_kwargs(rules)
    space = Box(-np.inf, np.inf, (obs.shape[1],), np.float32)
    extractor = kwargs["features_extractor_class"](space, **kwargs["features_extractor_kwargs"])
    with torch.no_grad():
        out = extractor(torch.as_tensor(obs)).numpy()
    np.testing.assert_array_equal(out[:, :obs.shape[1]], obs)  # the observation comes first
    return out[:, obs.shape[1]:]


def test_features__on_a_scored_card():
    """Ones 2 and Fives 10 filled (par 3 and 15): 12 of 63, five short of pace, 51 still
    needed; Yahtzee filled; dice 1 1 3 5 5."""
    rules = DiceRules(joker="forced")
    state = game.init(rules, [3])
    boxes = state.boxes.copy()
    boxes[0, 0, 0], boxes[0, 0, 4], boxes[0, 0, 11] = 2, 10, 50
    dice = np.array([[1, 1, 3, 5, 5]], np.int8)
    state = game.replace(state, boxes=boxes, dice=dice)
    got = _features(rules, observe(rules, state, 0))[0]
    assert got.size == features_per_column()
    np.testing.assert_allclose(got[:6], np.array([2, 0, 1, 0, 2, 0]) / 5)
    needed, surplus, reachable, upper_open, boxes_open, yahtzee = got[6:]
    assert needed == pytest.approx(51 / 63)
    assert surplus == pytest.approx((12 - 18) / 30)
    assert reachable == 1.0  # 12 + 5 * (2 + 3 + 4 + 6) = 87 >= 63
    assert upper_open == pytest.approx(4 / 6)
    assert boxes_open == pytest.approx(10 / NUM_BOXES)
    assert yahtzee == 1.0


def test_features__bonus_out_of_reach_is_zero():
    rules = DiceRules(joker="forced")
    state = game.init(rules, [4])
    boxes = state.boxes.copy()
    boxes[0, 0, :5] = 0  # Ones..Fives scratched: at most 30 from the Sixes
    got = _features(rules, observe(rules, game.replace(state, boxes=boxes), 0))[0]
    assert got[8] == 0.0 and got[6] == 1.0


def test_features__triple_table_has_one_set_per_column():
    rules = DiceRules(table="triple", joker="forced")
    env = KostkyVecEnv(2, rules, seed=0)
    obs = env.reset()
    assert _features(rules, obs).shape == (2, 3 * features_per_column())


def test_config__unknown_feature_set_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("features: deep\n")
    with pytest.raises(ValueError, match="features"):
        dice_ppo.load_config(path)


def test_run_with_long_features__the_checkpoint_plays_from_plain_observations(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "total_timesteps": 256, "num_envs": 16, "n_steps": 16, "batch_size": 64, "n_epochs": 1,
        "checkpoint_every": 256, "net_arch": [16], "features": "long",
        "run_root": str(tmp_path / "runs"),
    }))  # fmt: skip
    run_dir = dice_ppo.run(dice_ppo.load_config(path))
    agent = PPOAgent(str(run_dir))
    env = KostkyVecEnv(4, DiceRules(joker="forced"), seed=1)
    obs, mask = env.reset(), env.action_masks()
    actions = agent.act_batch(obs, mask)
    assert mask[np.arange(4), actions].all()
    extractor = agent.model.policy.features_extractor
    assert extractor.features_dim == obs.shape[1] + features_per_column()


@pytest.mark.parametrize("joker", ["none", "forced", "free"])
def test_obs_slices__tile_the_observation_in_layout_order(joker):
    rules = DiceRules(joker=joker)
    slices = obs_slices(rules)
    assert list(slices) == [name for name, _ in obs_layout(rules)]
    stops = [0] + [stop for _, stop, _ in slices.values()]
    assert [start for start, _, _ in slices.values()] == stops[:-1]
    assert stops[-1] == obs_size(rules)
    assert extractor_kwargs(rules)["features_extractor_kwargs"]["slices"] == {
        name: (start, stop) for name, (start, stop, _) in slices.items()}
