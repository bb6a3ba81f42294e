"""The Gymnasium vector env over the core's batch axis (``zolik_env.envs.zolik_vector``):
``make_vec`` takes it, it passes the vector env checks (which fail on planted faults and
pass Gymnasium's own vector envs), its masks are the core's, its infos carry each ended
deal, and the feature wrapper gives the SB3 adapter's observations."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import zolik_env  # noqa: F401  # registers the ids
from agents.features.hand_features import training_space
from agents.features.vector_features import FeatureObservations
from zolik_env.envs.vector_checks import check_vector_env
from zolik_env.envs.zolik_common import SCORE_SCALE
from zolik_env.envs.zolik_vector import ZolikVectorEnv
from zolik_env.rummy import game, options

SHORT = {"max_turns": 8}


def make(num_envs=6, **kwargs):
    kwargs = {"rules": "cz", "num_players": 2, "rule_options": SHORT} | kwargs
    return gymnasium.make_vec("zolik/Zolik-v0", num_envs=num_envs, **kwargs)


def play(envs, steps, seed=0):
    """[(actions, step output)] of ``steps`` random legal steps after ``reset(seed=seed)``."""
    _, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        actions = game.sample_legal(info["action_mask"], rng)
        step = envs.step(actions)
        info = step[4]
        out.append((actions, step))
    return out


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
def test_make_vec__takes_the_batched_fast_path(mode):
    envs = gymnasium.make_vec("zolik/Zolik-v0", num_envs=5, vectorization_mode=mode,
                              rules="sk", num_players=3)
    assert type(envs) is ZolikVectorEnv and envs.num_envs == 5
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.state.batch_size == 5  # one core State holds every row
    assert envs.spec.id == "zolik/Zolik-v0" and envs.rules.num_players == 3
    sync = gymnasium.make_vec("zolik/Zolik-v0", num_envs=2, vectorization_mode="sync")
    assert type(sync) is gymnasium.vector.SyncVectorEnv  # the slow path stays available


@pytest.mark.parametrize(("rules", "players", "kwargs"), [
    ("cz", 2, {}),
    ("sk", 3, {"opponents": "greedy", "shaping": 0.5, "gamma": 0.9}),
    ("jolly", 4, {"critic": True, "reward": "win_loss"}),
])
def test_vector_env__passes_the_vector_env_checks(rules, players, kwargs):
    check_vector_env(make(4, rules=rules, num_players=players, **kwargs), seed=3)


def test_vector_env_checks__pass_gymnasiums_own_vector_envs():
    # the checks hold Gymnasium's conventions, not just this env's: both autoreset modes
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        check_vector_env(make(3, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": mode}), seed=1)
    check_vector_env(gymnasium.make_vec("CartPole-v1", num_envs=3), seed=1)


class Planted(gymnasium.vector.VectorWrapper):
    """A fault planted over a sound env, for the checks to find."""

    def __init__(self, env, fault):
        super().__init__(env)
        self.fault = fault

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=None if self.fault == "seed ignored" else seed)
        return obs, self._info(info)

    def step(self, actions):
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        if self.fault == "no final_obs":
            info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}
        if self.fault == "float32 dones":
            terminated = terminated.astype(np.float32)
        return obs, rewards, terminated, truncated, self._info(info)

    def _info(self, info):
        if self.fault == "no mask":
            return {k: v for k, v in info.items() if k != "_seat"}
        return info


@pytest.mark.parametrize(("fault", "message"), [
    ("no mask", "'seat' has no mask '_seat'"),
    ("seed ignored", "reset\\(seed=...\\) twice gave different results"),
    ("no final_obs", "SAME_STEP autoreset must give final_obs"),
    ("float32 dones", "terminated must be a bool array"),
])
def test_vector_env_checks__fail_on_planted_faults(fault, message):
    with pytest.raises(AssertionError, match=message):
        check_vector_env(Planted(make(3), fault), seed=2)


def test_info_masks__are_the_cores_legal_masks_for_each_learner():
    envs = make(8, rules="jolly", num_players=3)
    _, info = envs.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        core = game.legal_action_mask(envs.rules, envs.state)
        assert info["action_mask"].dtype == np.bool_ and info["_action_mask"].all()
        assert np.array_equal(info["action_mask"], core)
        assert np.array_equal(envs.action_masks(), core)
        assert (envs.state.current == envs.learner).all() and not envs.state.done.any()
        assert np.array_equal(info["seat"], envs.learner)
        info = envs.step(game.sample_legal(info["action_mask"], rng))[4]


def test_final_info__carries_each_ended_deal_with_masks():
    envs = make(8, rules="jolly", num_players=2, rule_options={"max_turns": 6})
    ended_seats = set()
    for _, (obs, rewards, terminated, truncated, info) in play(envs, 40, seed=3):
        done = terminated | truncated
        assert not rewards[~done].any()  # no shaping, no reference: only deal ends pay
        if not done.any():
            assert "final_info" not in info
            continue
        final = info["final_info"]
        for key in ("seat", "deal_reward", "reference_reward", "opened", "deal_scores",
                    "winner"):
            assert np.array_equal(final[f"_{key}"], done) and len(final[key]) == 8
        for i in np.flatnonzero(done):
            s = final["deal_scores"][i].astype(float)  # jolly: higher is better already
            seat = final["seat"][i]
            assert rewards[i] == pytest.approx((s[seat] - s.mean()) / SCORE_SCALE)
            assert final["deal_reward"][i] == rewards[i] and final["reference_reward"][i] == 0
            assert info["final_obs"][i].shape == obs[i].shape
            ended_seats.add(int(seat))
        assert all(info["final_obs"][i] is None for i in np.flatnonzero(~done))
    assert ended_seats == {0, 1}


class FirstLegal:
    """An opponent hook: every opponent plays its lowest legal move."""

    def __init__(self, rules):
        self.rules = rules

    def new_deals(self, rows):
        return None

    def actions(self, sub, rows, slot, rng):
        return game.legal_action_mask(self.rules, sub).argmax(1)

    def deal_info(self, row):
        return {"hooked": f"row {row}"}


def test_opponent_hook__plays_and_its_deal_info_comes_as_an_object_array():
    rules = options.preset("cz", num_players=2, max_turns=6)
    envs = ZolikVectorEnv(4, rules, hook=FirstLegal(rules), seed=1)
    seen = 0
    for _, (_, _, terminated, truncated, info) in play(envs, 30, seed=1):
        for i in np.flatnonzero(terminated | truncated):
            assert info["final_info"]["hooked"][i] == f"row {i}"
            assert info["final_info"]["_hooked"][i]
            seen += 1
    assert seen


def test_opponents__as_in_the_single_env():
    rules = options.preset("cz", num_players=3)
    greedy = make(2, num_players=3, opponents=["random", "greedy"])
    assert type(greedy.hook.policies[0]).__name__ == "RandomOpponent"
    assert greedy.hook.policies[1].name.startswith("greedy")
    with pytest.raises(ValueError, match="expected 2 opponent"):
        ZolikVectorEnv(2, rules, opponents=["random"])
    with pytest.raises(ValueError, match="not both"):
        ZolikVectorEnv(2, rules, opponents="random", hook=FirstLegal(rules))


def test_same_seed_same_games_and_seeds_restart():
    a, b = play(make(4), 30, seed=5), play(make(4), 30, seed=5)
    for (acts, out), (acts2, out2) in zip(a, b, strict=True):
        assert np.array_equal(acts, acts2)
        assert all(np.array_equal(x, y) for x, y in zip(out[:4], out2[:4], strict=True))
    envs = make(4)
    first, _ = envs.reset(seed=5)
    envs.step(game.sample_legal(envs.action_masks(), np.random.default_rng(0)))
    assert np.array_equal(envs.reset(seed=5)[0], first)
    assert not np.array_equal(envs.reset()[0], first)  # a plain reset deals new deals
    assert not np.array_equal(make(4).reset(seed=6)[0], first)
    with pytest.raises(ValueError, match="one integer for the whole batch"):
        envs.reset(seed=[1, 2, 3, 4])


def test_illegal_learner_action__raises_naming_row_and_move():
    envs = make(3)
    _, info = envs.reset(seed=0)
    acts = game.sample_legal(info["action_mask"], np.random.default_rng(0))
    acts[2] = 2604  # undo: nothing laid yet
    with pytest.raises(ValueError, match=r"env 2: illegal learner action 2604 \('undo'\)"):
        envs.step(acts)


def test_gymnasium_vector_wrappers__run_over_it():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(make(6))
    listed = gymnasium.wrappers.vector.DictInfoToList(envs)
    _, infos = listed.reset(seed=0)
    assert len(infos) == 6 and infos[0]["action_mask"].shape == (2658,)
    returns, episodes = np.zeros(6), 0
    rng = np.random.default_rng(0)
    for _ in range(60):
        acts = game.sample_legal(np.stack([i["action_mask"] for i in infos]), rng)
        _, rewards, terminated, truncated, infos = listed.step(acts)
        returns += rewards
        for i in np.flatnonzero(terminated | truncated):
            assert infos[i]["episode"]["r"] == pytest.approx(returns[i])
            assert "deal_scores" in infos[i]["final_info"]
            returns[i], episodes = 0.0, episodes + 1
    assert episodes


def test_feature_wrapper__gives_the_sb3_adapters_observations():
    from train.zolik_vec import ZolikVecEnv

    jolly = options.preset("jolly", num_players=3, max_turns=8)
    envs = FeatureObservations(make(5, rules=jolly, num_players=None, rule_options=None,
                                    critic=True, seed=7), "hand+discard")
    sb3 = ZolikVecEnv(5, jolly, seed=7, features="hand+discard", critic=True)
    assert envs.single_observation_space == training_space(jolly, "hand+discard", True)
    assert sb3.observation_space == envs.single_observation_space
    obs, info = envs.reset()
    assert np.array_equal(obs, sb3.reset())
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(40):
        acts = game.sample_legal(envs.action_masks(), rng)
        assert np.array_equal(envs.action_masks(), sb3.action_masks())
        obs, rewards, _, _, info = envs.step(acts)
        obs2, rewards2, dones2, infos2 = sb3.step(acts)
        assert np.array_equal(obs, obs2) and np.array_equal(rewards.astype(np.float32), rewards2)
        for i in np.flatnonzero(dones2):
            assert np.array_equal(info["final_obs"][i], infos2[i]["terminal_observation"])
            assert envs.single_observation_space.contains(info["final_obs"][i])
            ended += 1
    assert ended
    check_vector_env(envs, seed=2)


def test_bench_vector__times_make_vec_beside_the_core_in_one_run(capsys):
    from cli import main as cli
    from zolik_env.envs.bench import bench_vector

    row = bench_vector("cz", 2, 8, seconds=0.3)
    assert row.loop == "make_vec 8" and row.batch == 0 and row.decisions_per_s > 0
    assert cli.main(["bench", "--presets", "sk", "--players", "3", "--batches", "16",
                     "--seconds", "0.1", "--vector"]) == 0
    out = capsys.readouterr().out
    assert "| sk | 3 | 16 |" in out and "| sk | 3 | make_vec 16 |" in out
    share = out.split("make_vec against the raw core")[-1].splitlines()
    assert any(line.strip().startswith("sk 3p batch 16: ") for line in share)
