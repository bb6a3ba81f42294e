"""The RLlib env and module of ``zolik train --backend rllib`` without a Ray cluster:
observations and masks are the AEC env's, roles and opponents are drawn per deal from
the seed, rewards come once at the end and sum to zero, and the module never picks an
illegal move."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the [ray] extra (scripts/setup.sh installs it)")

import torch

from agents.learned.ppo import CLIP, obs_scale
from agents.learned.rllib_net import MaskedPPOModule
from train.rllib.env import (
    LEARNER,
    ZolikMultiAgentEnv,
    agent_ids,
    module_for,
)
from zolik_env import zolik_v0


def play_deal(env, seed, rng):
    """Random legal moves for every RLlib agent; (agents seen, rewards, steps, ends)."""
    obs, _ = env.reset(seed=seed)
    seen, rewards, steps = set(), {}, 0
    while True:
        (agent, o), = obs.items()
        seen.add(agent)
        legal = np.flatnonzero(o["action_mask"])
        obs, reward, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        steps += 1
        for key, value in reward.items():
            rewards[key] = rewards.get(key, 0.0) + value
        if terminated["__all__"] or truncated["__all__"]:
            return seen, rewards, steps, (obs, terminated, truncated)
        assert len(obs) == 1, "between ends only the agent to act observes"


@pytest.mark.parametrize("preset,players", [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_observation_and_mask_are_the_aec_envs_scaled(preset, players):
    env = ZolikMultiAgentEnv({"preset": preset, "players": players,
                              "opponents": {"latest": 1.0}, "seed": 3})
    obs, _ = env.reset(seed=5)
    (agent, o), = obs.items()
    name = next(n for n, a in env.seat_agent.items() if a == agent)
    raw = env.aec.observe(name)
    scale = obs_scale(env.aec.rules)
    np.testing.assert_array_equal(o["action_mask"], raw["action_mask"].astype(np.float32))
    np.testing.assert_array_equal(
        o["observations"], np.clip(raw["observation"] * scale, -CLIP, CLIP).astype(np.float32))
    assert env.observation_spaces[agent].contains(o)


def test_baseline_opponents_are_played_inside_the_env():
    env = ZolikMultiAgentEnv({"players": 3, "opponents": {"greedy": 1.0}, "seed": 1})
    seen, rewards, _, (obs, terminated, truncated) = play_deal(env, 11,
                                                              np.random.default_rng(0))
    assert seen == {LEARNER} and set(rewards) == {LEARNER} and set(obs) == {LEARNER}
    assert terminated[LEARNER] != truncated[LEARNER], "a deal ends one way"


def test_self_play_deals_end_with_zero_sum_rewards_for_every_agent_played():
    env = ZolikMultiAgentEnv({"players": 2, "opponents": {"latest": 1.0}, "seed": 2})
    rng = np.random.default_rng(1)
    for seed in range(3):
        seen, rewards, steps, (obs, _terminated, _truncated) = play_deal(env, seed, rng)
        assert seen == {LEARNER, "latest_1"} and set(obs) == seen, "a last obs for each"
        assert sum(rewards.values()) == pytest.approx(0.0) and steps > 10
        assert all(not o["action_mask"].any() for o in obs.values())


def test_the_same_seed_gives_the_same_roles_and_deals():
    config = {"players": 4, "opponents": {"latest": 1, "past": 1, "random": 1},
              "past_slots": 3, "seed": 9}
    runs = []
    for _ in range(2):
        env = ZolikMultiAgentEnv(config)
        outcomes = []
        for _ in range(3):
            env.reset()
            outcomes.append((dict(env.seat_agent), env.aec.observe(env.aec.agent_selection)
                             ["observation"].tobytes()))
        runs.append(outcomes)
    assert runs[0] == runs[1]
    kinds = {agent.rstrip("0123456789_") for deal in runs[0] for agent in deal[0].values()}
    assert {"learner", "latest", "past", "random"} >= kinds and len(kinds) > 2


def test_agent_ids_map_to_the_learner_module_or_a_frozen_slot():
    ids = agent_ids(players=3, past_slots=2)
    assert ids[0] == LEARNER and len(ids) == 1 + 2 * 3
    assert {module_for(a) for a in ids} == {"main", "past_0", "past_1"}
    assert module_for("past1_2") == "past_1" and module_for("latest_2") == "main"
    with pytest.raises(ValueError, match="greedy"):
        module_for("greedy")


def test_training_deal_seeds_stay_below_the_evaluation_seeds():
    from zolik_env.seeds import TRAIN_SEED_LIMIT

    env = ZolikMultiAgentEnv({"seed": 4})
    seeds = []
    real_reset = env.aec.reset
    env.aec.reset = lambda seed=None, options=None: (seeds.append(seed), real_reset(seed))
    for _ in range(20):
        env.reset()
    assert all(0 <= s < TRAIN_SEED_LIMIT for s in seeds)


def test_masked_module_never_gives_an_illegal_move_probability():
    env = ZolikMultiAgentEnv({"opponents": {"latest": 1.0}})
    space = env.observation_spaces[LEARNER]
    module = MaskedPPOModule(observation_space=space, action_space=env.action_spaces[LEARNER],
                             model_config={"fcnet_hiddens": [32]})
    rng = np.random.default_rng(0)
    masks = (rng.random((64, space["action_mask"].shape[0])) < 0.01).astype(np.float32)
    masks[:, 0] = 1.0
    obs = rng.normal(size=(64, space["observations"].shape[0])).astype(np.float32)
    batch = {"obs": {"observations": torch.from_numpy(obs),
                     "action_mask": torch.from_numpy(masks)}}
    logits = module.forward_exploration(batch)["action_dist_inputs"]
    probs = torch.softmax(logits, -1).detach().numpy()
    assert probs[masks == 0].max() == 0.0
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    with pytest.raises(ValueError, match="action_mask"):
        MaskedPPOModule(observation_space=space["observations"],
                        action_space=env.action_spaces[LEARNER])


def test_the_aec_env_is_unchanged_by_the_wrapper():
    """The wrapper steps the rules' one implementation: the deal seed it gives the AEC env
    gives the same observations through the plain AEC env."""
    env = ZolikMultiAgentEnv({"opponents": {"latest": 1.0}})
    seeds = []
    real_reset = env.aec.reset
    env.aec.reset = lambda seed=None, options=None: (seeds.append(seed), real_reset(seed))
    env.reset(seed=0)
    plain = zolik_v0.raw_env("cz", 2)
    plain.reset(seed=seeds[0])
    for name in plain.possible_agents:
        np.testing.assert_array_equal(plain.observe(name)["observation"],
                                      env.aec.observe(name)["observation"])


def _first_deals(worker, reset_seed, start_iteration=0, deals=3):
    from ray.rllib.env.env_context import EnvContext

    context = EnvContext({"seed": 1, "start_iteration": start_iteration,
                          "opponents": {"latest": 1, "random": 1}}, worker_index=worker)
    env = ZolikMultiAgentEnv(context)
    out = []
    for index in range(deals):
        env.reset(seed=reset_seed if index == 0 else None)
        out.append((dict(env.seat_agent), env.aec.observe("player_0")["observation"].tobytes()))
    return out


def test_sub_envs_of_different_runners_and_sessions_deal_different_deals():
    """RLlib seeds sub-env i of runner w with seed + w + i; runner 1's env 1 and runner 2's
    env 0 get the same number, yet must not share deals; nor may a resumed session repeat
    the run's first deals. The same place and session repeat exactly."""
    assert _first_deals(1, 3) == _first_deals(1, 3)
    assert _first_deals(1, 3) != _first_deals(2, 3)
    assert _first_deals(1, 3) != _first_deals(1, 3, start_iteration=40)


def test_a_stop_request_waits_for_the_loop_and_a_second_one_interrupts():
    import os
    import signal

    from train.runlog import stop_requests

    with stop_requests() as stop:
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.requested, "the first signal only asks"
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGTERM) is not stop._handle, "the handlers are restored"
