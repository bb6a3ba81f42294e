"""The warm start: teacher datasets on the batched core and behaviour cloning."""

import pathlib

import numpy as np
import pytest

from train import imitation
from train.config import load_config
from zolik_env.rummy import actions, rules

CZ = rules.preset("cz")


@pytest.fixture(scope="module")
def small():
    return imitation.collect(CZ, "greedy", decisions=600, seed=3, num_deals=4)


def test_collect__same_seed_same_bytes(small):
    again = imitation.collect(CZ, "greedy", decisions=600, seed=3, num_deals=4)
    for name in ("obs", "mask", "action", "ret"):
        assert getattr(small, name).tobytes() == getattr(again, name).tobytes(), name
    other = imitation.collect(CZ, "greedy", decisions=600, seed=4, num_deals=4)
    assert small.obs.tobytes() != other.obs.tobytes()


def test_collect__every_sample_is_a_legal_teacher_move(small):
    assert len(small) >= 600
    legal = small.legal(np.arange(len(small)))
    assert legal.shape == (len(small), actions.NUM_ACTIONS)
    assert legal[np.arange(len(small)), small.action.astype(np.int64)].all()


def test_returns__each_seat_discounted_from_its_own_last_decision():
    seats = np.array([0, 1, 0, 1, 0])
    reward = np.array([1.0, -1.0])
    ret = imitation._returns(seats, reward, gamma=0.5)
    assert ret.tolist() == [0.25, -0.5, 0.5, -1.0, 1.0]


def test_collect__one_deal_s_returns_are_its_zero_sum_rewards():
    # one deal (the first to finish), gamma = 1: every decision of a seat carries that
    # seat's score reward, and the two seats' rewards cancel
    data = imitation.collect(CZ, "greedy", decisions=1, seed=5, num_deals=1, gamma=1.0)
    values = np.unique(data.ret)
    assert len(values) == 2 and np.isclose(values.sum(), 0.0), values


def test_load_or_collect__writes_once_then_reads_the_same(tmp_path):
    first = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score")
    files = list(tmp_path.glob("teacher_*.npz"))
    assert len(files) == 1 and not list(tmp_path.glob(".*tmp*"))
    again = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score")
    assert first.obs.tobytes() == again.obs.tobytes()
    assert imitation.cache_path(tmp_path, CZ, teacher="greedy", decisions=200, seed=2,
                                gamma=0.99, reward="score") != files[0]
    featured = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score",
                                         features="hand")
    assert [p.name for p in tmp_path.glob("*.hand-v*.npz")] == [
        f"{files[0].stem}.hand-v{imitation.FEATURE_VERSION}.npz"]
    assert np.array_equal(featured.obs, imitation.with_features(first, CZ, "hand").obs)
    cached = imitation.load_or_collect(tmp_path, CZ, "greedy", 200, 1, 0.99, "score",
                                       features="hand")
    assert cached.obs.tobytes() == featured.obs.tobytes()


def test_collect__unknown_teacher_is_named():
    with pytest.raises(ValueError, match="unknown teacher 'ppo'"):
        imitation.collect(CZ, "ppo", decisions=10)
    with pytest.raises(ValueError, match="penalty='high' is not a number"):
        imitation.collect(CZ, "planner:penalty=high", decisions=10)


def test_collect__a_planner_with_changed_weights_teaches_its_own_moves():
    default = imitation.collect(CZ, "planner", decisions=200, seed=3)
    careless = imitation.collect(CZ, "planner:danger=0,keep=0", decisions=200, seed=3)
    assert not np.array_equal(default.action[:200], careless.action[:200])


@pytest.mark.parametrize(("key", "value", "message"), [
    ("teacher", "oracle", "teacher='oracle': choose from planner, greedy"),
    ("teacher", "greedy:keep=1", "teacher='greedy:keep=1': choose from planner, greedy"),
    ("teacher", "planner:keep=x", "teacher='planner:keep=x': planner: keep='x' is not a number"),
    ("teacher_decisions", -5, "teacher_decisions=-5 must be > 0"),
    ("teacher_epochs", 0, "teacher_epochs=0 must be > 0"),
    ("teacher_learning_rate", -1.0e-3, "teacher_learning_rate=-0.001 must be > 0"),
    ("plan_open_start", -2, "plan_open_start=-2 must be >= 0"),
    ("plan_pending_start", -3, "plan_pending_start=-3 must be >= 0"),
])
def test_config__bad_warm_start_values_are_named(key, value, message):
    with pytest.raises(ValueError, match=message):
        load_config("configs/ppo/cz_2p.yaml", {key: value})


@pytest.mark.parametrize(("teacher", "danger", "near_out"),
                         [("planner:danger=3,near_out=6", 3.0, 6), ("planner", 1.0, 4),
                          ("greedy", 1.0, 4), ("", 1.0, 4)])
def test_new_model__the_discard_prior_starts_at_a_planner_teacher_s_weights(teacher, danger,
                                                                           near_out):
    """The prior of a new run's network weighs danger as its planner teacher does (the
    default planner's weights for any other teacher)."""
    from agents.learned.discard_prior import TERMS, planner_weights
    from train.config import teacher_weights

    cfg = load_config("configs/ppo/cz_2p.yaml", {"teacher": teacher})
    weights = teacher_weights(cfg.teacher)
    assert (weights.danger, weights.near_out) == (danger, near_out)
    danger_at = TERMS.index("danger")
    assert planner_weights(False, weights)[danger_at] == danger * planner_weights(False)[danger_at]


@pytest.mark.parametrize(("start", "pending"), [(0.0, None), (16.0, None), (16.0, 8.0),
                                               (0.0, 0.0)])
def test_new_model__the_plan_prior_starts_at_plan_open_start_and_plan_pending_start(start,
                                                                                    pending):
    """Only the bonus of a plan meld while the hand can open starts away from zero, and,
    with ``plan_pending_start``, the third row (an opening under way): + for a plan meld,
    - for every other group. Without it the prior keeps two rows, as networks saved
    before it."""
    from train.ppo import _new_model
    from train.selfplay import OpponentPool, PoolVecEnv

    cfg = load_config("configs/ppo/cz_2p.yaml", {"num_envs": 2, "n_steps": 32, "batch_size": 64,
                                                "net_arch": [16], "plan_open_start": start,
                                                "plan_pending_start": pending})
    env = PoolVecEnv(2, CZ, OpponentPool(CZ, cfg.pool, cfg.pool_size, 1), "score", 1,
                     features=cfg.obs_features)
    prior = _new_model(cfg, env).policy.plan_prior
    expected = np.zeros((3, 5))
    expected[1, 0] = start  # (can_open term, meld group)
    if pending is not None:
        expected[2] = [pending, -pending, -pending, -pending, -pending]
    np.testing.assert_array_equal(prior.coefficients.detach().numpy(), expected)
    assert prior.weight.shape == (2 if pending is None else 3, 5)


def test_clone__learns_the_teacher_s_moves(small, tmp_path):
    from train.ppo import _new_model
    from train.selfplay import OpponentPool, PoolVecEnv

    cfg = load_config("configs/ppo/cz_2p.yaml", {"num_envs": 2, "n_steps": 32, "batch_size": 64,
                                                "net_arch": [64], "obs_features": "",
                                                "plan_prior": False, "discard_prior": False})
    env = PoolVecEnv(2, CZ, OpponentPool(CZ, cfg.pool, cfg.pool_size, 1), "score", 1)
    model = _new_model(cfg, env)
    before = imitation._held_out(model.policy, small, np.arange(len(small)))[0]
    report = imitation.clone(model.policy, small, epochs=6, batch_size=64, holdout=0.0)
    after = imitation._held_out(model.policy, small, np.arange(len(small)))[0]
    assert report.samples == len(small)
    assert after > max(0.5, before + 0.2), (before, after)


def test_warm_start__new_run_starts_from_the_clone_and_resume_keeps_it(tmp_path):
    from tests.train.conftest import tiny_config
    from train import ppo

    cfg = tiny_config(tmp_path, teacher="greedy", teacher_decisions=300, teacher_epochs=1,
                      total_steps=64)
    result = ppo.run(cfg)
    run_dir = result.run_dir
    assert (run_dir / "warm_start.json").exists()
    first = ppo.checkpoints(run_dir / "checkpoints")[0]
    assert ppo.step_of(first) == 0
    assert len(list((tmp_path / "runs" / "teacher_cache").glob("teacher_*.npz"))) == 1
    # the saved step-0 network plays the teacher's moves better than a fresh one
    from sb3_contrib import MaskablePPO

    data = imitation.load_or_collect(tmp_path / "runs" / "teacher_cache", cfg.rules(),
                                     "greedy", 300, cfg.seed, cfg.gamma, cfg.reward)
    cloned = MaskablePPO.load(first, device="cpu")
    fresh_cfg = tiny_config(tmp_path / "fresh")  # no teacher
    fresh, _, _ = ppo.build(fresh_cfg, ppo.start_run(fresh_cfg))
    rows = np.arange(len(data))
    assert (imitation._held_out(cloned.policy, data, rows)[0]
            > imitation._held_out(fresh.policy, data, rows)[0])
    # resuming loads the newest checkpoint and does not clone again
    (run_dir / "warm_start.json").unlink()
    model, _, _ = ppo.build(ppo.read_config(run_dir), run_dir)
    assert model.num_timesteps == ppo.step_of(ppo.checkpoints(run_dir / "checkpoints")[-1])
    assert not (run_dir / "warm_start.json").exists()


def test_load_or_collect__an_unwritable_cache_warns_and_keeps_the_data(tmp_path, monkeypatch,
                                                                       capsys):
    def full_disk(path, **arrays):
        pathlib.Path(path).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(imitation.np, "savez_compressed", full_disk)
    data = imitation.load_or_collect(tmp_path, CZ, "greedy", 100, 1, 0.99, "score")
    assert len(data) >= 100 and list(tmp_path.iterdir()) == []
    assert "cannot cache the teacher data" in capsys.readouterr().err


def test_collect__with_a_driver_plays_its_moves_and_keeps_the_teacher_s_labels():
    from agents.registry import make_agent

    class Counting:
        """The random agent, counting its calls."""

        def __init__(self):
            self.inner, self.calls = make_agent("random", CZ), 0

        def act_batch(self, obs, mask, rng):
            self.calls += 1
            return self.inner.act_batch(obs, mask, rng)

    driver = Counting()
    led = imitation.collect(CZ, "greedy", 300, seed=4, driver=driver)
    alone = imitation.collect(CZ, "greedy", 300, seed=4)
    assert driver.calls > 0
    assert led.obs.tobytes() != alone.obs.tobytes()  # the driver's moves were played
    rows = np.arange(len(led))
    assert led.legal(rows)[rows, led.action].all()
    greedy = make_agent("greedy", CZ)
    relabel = greedy.act_batch(led.obs, led.legal(rows), np.random.default_rng(0))
    assert (relabel == led.action).mean() > 0.95  # greedy's labels (its ties are random)


def test_warm_start__a_dagger_round_learns_the_teacher_s_and_the_clone_s_states(tmp_path):
    import json

    from tests.train.conftest import tiny_config
    from train import ppo

    cfg = tiny_config(tmp_path, teacher="greedy", teacher_decisions=300, teacher_epochs=1,
                      dagger_decisions=200, dagger_epochs=1, total_steps=64)
    run_dir = ppo.run(cfg).run_dir
    report = json.loads((run_dir / "warm_start.json").read_text())
    assert report["teacher"] == "greedy" and report["samples"] >= 285
    assert report["dagger"]["samples"] >= report["samples"] + 190


def test_with_features__appends_each_observation_s_hand_features(small):
    from agents.features.hand_features import HAND_FEATURES, hand_features

    featured = imitation.with_features(small, CZ, "hand")
    assert featured.obs.shape == (len(small), small.obs.shape[1] + HAND_FEATURES)
    assert np.array_equal(featured.obs[:, small.obs.shape[1]:], hand_features(small.obs, CZ))
    assert np.array_equal(featured.action, small.action)
    assert imitation.with_features(small, CZ, "") is small


def test_collect_shards__the_same_bytes_in_one_process_or_two():
    one = imitation.collect_shards(CZ, "greedy", 400, seed=2, gamma=0.99, reward="score")
    two = imitation.collect_shards(CZ, "greedy", 400, seed=2, gamma=0.99, reward="score",
                                   workers=2)
    for name in ("obs", "mask", "action", "ret", "critic"):
        assert getattr(one, name).tobytes() == getattr(two, name).tobytes(), name
    # the parts are collect's, each on its own deals, in order
    parts = [imitation.collect(CZ, "greedy", 100, seed=2, gamma=0.99,
                               first_deal=i * imitation._SHARD_DEALS)
             for i in range(imitation.TEACHER_SHARDS)]
    assert one.obs.tobytes() == imitation.concat(*parts).obs.tobytes()
    assert len({part.obs[0].tobytes() for part in parts}) == imitation.TEACHER_SHARDS


def test_with_features__the_same_in_one_process_or_two(small):
    alone = imitation.with_features(small, CZ, "hand")
    split = imitation.with_features(small, CZ, "hand", workers=2)
    assert split.obs.tobytes() == alone.obs.tobytes()


def test_cache_path__changes_with_the_teacher_data_version(tmp_path, monkeypatch):
    """Data labelled by an older teacher (before the compiled planner) is not read back."""
    today = imitation.cache_path(tmp_path, CZ, teacher="planner", decisions=200, seed=1)
    monkeypatch.setattr(imitation, "TEACHER_DATA_VERSION", imitation.TEACHER_DATA_VERSION - 1)
    older = imitation.cache_path(tmp_path, CZ, teacher="planner", decisions=200, seed=1)
    assert today != older


def test_a_search_teacher__labels_from_each_seat_s_information_state():
    """pimc labels a driver's decisions (expert iteration's DAgger round): every label is
    legal, and at decisions it does not search it is its rollout policy's move."""
    from agents.registry import make_agent

    driver = make_agent("greedy", CZ)
    data = imitation.collect(CZ, "pimc:rollouts=4", decisions=40, seed=3, num_deals=2,
                             driver=driver)
    legal = data.legal(np.arange(len(data)))
    assert legal[np.arange(len(data)), data.action.astype(np.int64)].all()
    planner = make_agent("planner", CZ)
    moves = planner.act_batch(data.obs, legal, np.random.default_rng(0))
    lays = (data.action >= actions.MELD_BASE) & (data.action < actions.DISCARD_BASE)
    assert lays.any() and (moves[lays] == data.action[lays]).all()


def test_a_search_teacher__is_refused_for_a_warm_start_but_takes_a_dagger_round():
    from train.config import make_config

    with pytest.raises(ValueError, match="teacher='pimc:rollouts=8': choose from"):
        make_config({"teacher": "pimc:rollouts=8"})
    assert make_config({"dagger_teacher": "pimc:rollouts=8"}).dagger_teacher == "pimc:rollouts=8"
    with pytest.raises(ValueError, match="unknown teacher 'wizard'"):
        make_config({"dagger_teacher": "wizard"})
