"""``ZolikVecEnv``: masks, auto-reset, reward credit, reproducibility, MaskablePPO smoke."""

import numpy as np
import pytest

from train.zolik_vec import ZolikVecEnv
from zolik_env.envs.zolik_common import SCORE_SCALE, shape_rewards
from zolik_env.envs.zolik_gym import ZolikEnv
from zolik_env.rummy import actions, game, options


def run(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs, rewards, dones, infos = env.step(game.sample_legal(env.action_masks(), rng))
        out.append((obs, rewards, dones, infos))
    return out


def test_zolik_vec_env__every_row_waits_for_its_learner():
    env = ZolikVecEnv(16, "cz", 3, rule_options={"max_turns": 9}, seed=1)
    obs = env.reset()
    assert obs.shape == (16, 1192) and obs.dtype == np.int16
    assert env.action_masks().shape == (16, actions.NUM_ACTIONS)
    assert len(set(env.learner.tolist())) > 1  # seats drawn per row
    for _ in range(30):
        run(env, 1)
        assert (env.state.current == env.learner).all() and not env.state.done.any()
        assert env.action_masks().any(1).all()
        assert len(env.env_method("action_masks")) == 16


def test_zolik_vec_env__autoreset_terminal_observation_and_reward_credit():
    env = ZolikVecEnv(8, "jolly", 2, rule_options={"max_turns": 6}, seed=3)
    env.reset()
    ended = []
    for obs, rewards, dones, infos in run(env, 40):
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == obs[i].shape
            assert info["TimeLimit.truncated"]  # cut off by max_turns
            s = np.array(info["deal_scores"], float)  # jolly: higher is better already
            assert rewards[i] == pytest.approx((s[info["seat"]] - s.mean()) / SCORE_SCALE)
            ended.append(info["seat"])
        assert not rewards[~dones].any()
    assert set(ended) == {0, 1}


def test_zolik_vec_env__same_seed_same_run_and_seed_restarts():
    a = ZolikVecEnv(4, "sk", 2, seed=5)
    b = ZolikVecEnv(4, "sk", 2, seed=5)
    oa, ob = a.reset(), b.reset()
    assert np.array_equal(oa, ob)
    for (o1, r1, d1, _), (o2, r2, d2, _) in zip(run(a, 30), run(b, 30), strict=True):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2)
    a.seed(5)
    assert np.array_equal(a.reset(), oa)
    assert not np.array_equal(ZolikVecEnv(4, "sk", 2, seed=6).reset(), oa)


def test_zolik_vec_env__saved_state_is_a_copy_that_resumes_the_same_run():
    """The env steps its deals in place, so ``get_state`` must not hand out the live
    State: a saved state stays as it was, and restoring it replays the same steps."""
    env = ZolikVecEnv(8, "cz", 2, rule_options={"max_turns": 12}, seed=4)
    env.reset()
    run(env, 5)
    saved = env.get_state()
    before = saved["state"].buffer.copy()
    first = run(env, 20, seed=9)
    assert (saved["state"].buffer == before).all()
    env.set_state(saved)
    again = run(env, 20, seed=9)
    assert (saved["state"].buffer == before).all()
    for (obs, rewards, dones, _), (obs2, rewards2, dones2, _) in zip(first, again, strict=True):
        assert (obs == obs2).all() and (rewards == rewards2).all() and (dones == dones2).all()
    assert any(dones.any() for _, _, dones, _ in first)  # deals ended and restarted


def test_zolik_vec_env__illegal_learner_action_raises_naming_it():
    env = ZolikVecEnv(3, "cz", 2, seed=0)
    env.reset()
    acts = game.sample_legal(env.action_masks(), np.random.default_rng(0))
    acts[1] = actions.UNDO  # nothing laid yet
    with pytest.raises(ValueError, match=r"env 1: illegal learner action 2604 \('undo'\)"):
        env.step(acts)


def test_shape_rewards__win_loss_and_score_are_zero_sum():
    from zolik_env.rummy import options

    r = options.preset("cz", num_players=3)
    out = shape_rewards(r, np.array([[0, -20, -40], [-5, -5, -5]]), np.array([0, -1]), "win_loss")
    assert out.tolist() == [[1.0, -0.5, -0.5], [0.0, 0.0, 0.0]]
    out = shape_rewards(r, np.array([[0, -20, -40]]), np.array([0]), "score")
    assert out.tolist() == [[0.2, 0.0, -0.2]]


@pytest.mark.parametrize("vec", [True, False], ids=["vec_env", "single_env"])
def test_maskable_ppo__learns_a_few_hundred_steps(vec):
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = ZolikVecEnv(8, "cz", 2, seed=0) if vec else ZolikEnv(rules="cz", num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=32 if vec else 128, batch_size=64,
                        n_epochs=1, policy_kwargs={"net_arch": [32]}, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256


class FirstLegal:
    """An opponent hook: every opponent plays its lowest legal action id; records calls."""

    def __init__(self, rules):
        self.rules, self.dealt, self.moves = rules, [], 0

    def new_deals(self, rows):
        self.dealt.extend(rows.tolist())

    def actions(self, sub, rows, slot, rng):
        assert (slot == 0).all() and len(rows) == sub.batch_size  # 2 players: one opponent
        self.moves += len(rows)
        return game.legal_action_mask(self.rules, sub).argmax(1)

    def deal_info(self, row):
        return {"hooked": row}


def test_zolik_vec_env__opponent_hook_chooses_moves_and_sees_every_new_deal():
    rules = options.preset("cz", num_players=2, max_turns=6)
    hook = FirstLegal(rules)
    env = ZolikVecEnv(4, rules, hook=hook, seed_limit=1000, seed=0)
    assert sorted(hook.dealt[:4]) == [0, 1, 2, 3]
    env.reset()
    ended = 0
    for _, _, dones, infos in run(env, 30):
        for i in np.flatnonzero(dones):
            assert infos[i]["hooked"] == i
            ended += 1
    assert ended and len(hook.dealt) >= 4 + ended
    assert hook.moves == env.num_decisions - 30 * 4  # every opponent move came from the hook
    with pytest.raises(ValueError, match="not both"):
        ZolikVecEnv(2, rules, opponents="random", hook=hook)
