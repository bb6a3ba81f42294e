"""``train.selfplay``: the opponent pool's draws and the learner's own-seat reward."""

import numpy as np
import pytest

from train.selfplay import OpponentPool, PoolVecEnv
from zolik_env.envs.zolik_common import make_rules, shape_rewards
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import preset


def test_pool__same_seed_same_draws_and_weights_respected():
    rules = make_rules("cz", 2, None)
    a = OpponentPool(rules, {"random": 1.0, "greedy": 3.0}, 4, seed=7).sample(4000)
    b = OpponentPool(rules, {"random": 1.0, "greedy": 3.0}, 4, seed=7).sample(4000)
    c = OpponentPool(rules, {"random": 1.0, "greedy": 3.0}, 4, seed=8).sample(4000)
    assert (a == b).all() and not (a == c).all()
    pool = OpponentPool(rules, {"random": 1.0, "greedy": 3.0}, 4, seed=7)
    share = np.mean([pool.names[i] == "greedy" for i in a])
    assert 0.72 < share < 0.78


def test_pool__self_kinds_fall_back_to_random_before_a_snapshot():
    pool = OpponentPool(make_rules("cz", 2, None), {"latest": 1.0, "past": 1.0}, 4, seed=0)
    assert {pool.names[i] for i in pool.sample(50)} == {"random"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pool_env__learner_reward_is_its_own_seats(players):
    rules = make_rules("cz", players, {"max_turns": 40, "no_meld_rounds": 0})
    pool = OpponentPool(rules, {"random": 1.0, "greedy": 1.0}, 4, seed=1)
    env = PoolVecEnv(16, rules, pool, seed=2)
    env.reset()
    rng = np.random.default_rng(0)
    seen, other_seat_differs = set(), False
    for _ in range(150):
        _, rewards, dones, infos = env.step(game.sample_legal(env.action_masks(), rng))
        for i in np.flatnonzero(dones):
            info = infos[i]
            scores = -np.array(info["deal_scores"])[None]  # cz: penalties, lower is better
            shaped = shape_rewards(rules, scores, np.array([info["winner"]]), "score")[0]
            assert rewards[i] == pytest.approx(shaped[info["seat"]], abs=1e-6)
            seen.add(info["seat"])
            other_seat_differs |= bool(np.any(np.abs(shaped - rewards[i]) > 1e-6))
        assert not rewards[~dones].any()
    assert seen == set(range(players)) and other_seat_differs


def test_pool_env__training_deal_seeds_stay_below_the_eval_range(monkeypatch):
    from eval.config import TRAIN_SEED_LIMIT

    seeds, reset_in_place = [], game.reset_in_place

    def spy(rules, state, rows, deal_seeds, *args):
        seeds.extend(np.asarray(deal_seeds).tolist())
        return reset_in_place(rules, state, rows, deal_seeds, *args)

    monkeypatch.setattr(game, "reset_in_place", spy)
    rules = make_rules("cz", 2, None)
    PoolVecEnv(64, rules, OpponentPool(rules, {"random": 1.0}, 2, seed=0), seed=123)
    assert len(seeds) >= 64 and len(set(seeds)) == len(seeds)
    assert min(seeds) >= 0 and max(seeds) < TRAIN_SEED_LIMIT


def test_pool_focus__draws_the_kind_the_learner_beats_least_more_often():
    rules = make_rules("cz", 2, None)
    pool = OpponentPool(rules, {"greedy": 1.0, "planner": 1.0, "latest": 1.0}, 4, seed=0)
    assert pool.mix() == pytest.approx({"greedy": 1 / 3, "planner": 1 / 3, "latest": 1 / 3})
    pool.focus({"greedy": 0.8, "planner": 0.3, "self": 0.5}, power=1.0)
    mix = pool.mix()
    assert mix["planner"] > mix["latest"] > mix["greedy"]
    assert mix["planner"] / mix["greedy"] == pytest.approx(0.7 / 0.2)
    pool.focus({"greedy": 1.0, "planner": 1.0, "self": 1.0}, power=2.0)
    assert min(pool.mix().values()) > 0  # a kind always beaten stays in the mix
    pool.focus({}, power=3.0)  # nothing known yet: the configured weights
    assert pool.mix() == pytest.approx({"greedy": 1 / 3, "planner": 1 / 3, "latest": 1 / 3})
    ids = pool.sample(3000)
    assert {pool.names[i] for i in ids} == {"greedy", "planner", "random"}


def test_pool__holds_any_agent_spec_and_plays_it():
    from train.config import make_config

    rules = make_rules("cz", 2, None)
    pool = OpponentPool(rules, {"latest": 1.0, "pretrained:cz_2p": 1.0}, 4, seed=0)
    assert "pretrained:cz_2p" in pool.names
    env = PoolVecEnv(4, rules, pool, seed=2)
    env.reset()
    for _ in range(20):  # the bot plays its seats (a bad move would raise)
        legal = env.action_masks()
        env.step(np.array([np.flatnonzero(row)[0] for row in legal]))
    assert {pool.names[i] for i in env.hook.opp.ravel()} <= {"random", "pretrained:cz_2p"}
    cfg = make_config({"pool": {"latest": 1, "pretrained:cz_2p": 1, "mypkg.bots:make": 1,
                                "planner:danger=3": 1},
                       "eval_opponents": ["planner", "pretrained:cz_2p", "planner:keep=0.8"]})
    assert set(cfg.pool) == {"latest", "pretrained:cz_2p", "mypkg.bots:make", "planner:danger=3"}
    weighted = OpponentPool(rules, {"planner:danger=3": 1.0}, 4, seed=0)
    assert weighted.policies[weighted.names.index("planner:danger=3")].weights.danger == 3.0
    with pytest.raises(ValueError, match=r"pool=.*unknown entries \['grredy'\]"):
        make_config({"pool": {"latest": 1, "grredy": 1}})
    with pytest.raises(ValueError, match="no pretrained bot 'nosuchbot'"):
        OpponentPool(rules, {"pretrained:nosuchbot": 1.0}, 4, seed=0)


class _Snapshot:
    """A stand-in for a loaded checkpoint: plays the first legal move."""

    def __init__(self, name):
        self.name = name
        self.policy = type("Net", (), {"optimizer": object()})()

    def act_batch(self, obs, mask, rng):
        return np.argmax(mask, axis=1)


def test_resume__loads_again_a_snapshot_a_row_still_plays_after_it_left_the_pool(
        monkeypatch, tmp_path):
    """With pool_size 1, a deal in progress at the checkpoint may play a snapshot that left
    the pool; the resumed env's fresh deals free it (``prune``) before the saved rows come
    back, and ``set_state`` must load it again rather than play ``None``."""
    from train import selfplay

    monkeypatch.setattr(selfplay.ppo_agent, "load",
                        lambda path, rules, name: _Snapshot(name))
    rules = preset("cz")
    pool = selfplay.OpponentPool(rules, {"latest": 1.0}, pool_size=1, seed=0)
    for step in (1, 2):
        pool.add_snapshot(tmp_path / f"step_{step}.zip")
    first = min(pool.paths)
    hook = selfplay.PoolOpponents(4, rules, pool)
    hook.new_deals(np.arange(4))  # every row draws the newest: the first snapshot is freed
    assert pool.policies[first] is None
    saved = {"opp": np.full((4, 1), first), "pool": pool.get_state()}
    hook.set_state(saved)
    assert pool.policies[first] is not None and pool.policies[first].name.endswith("step_1")
    state = game.init(rules, np.arange(4))
    mask = game.legal_action_mask(rules, state)
    obs = observe(rules, state, state.current.astype(np.int64))
    moves = hook.actions(state, np.arange(4), np.zeros(4, np.int64), np.random.default_rng(0))
    assert mask[np.arange(4), moves].all() and obs.shape[0] == 4
