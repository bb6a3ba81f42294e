"""``zolik train --backend rllib`` on a local Ray instance (2 CPUs, one env runner): a few
PPO iterations that improve against random, checkpoints, a resume that continues the
run, the frozen snapshots, an evaluation through ``rllib:PATH``, and one-line errors."""

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the [ray] extra (scripts/setup.sh installs it)")

import itertools

import torch

from agents.learned.rllib_policy import checkpoints_of
from agents.registry import make_agent
from cli import train as train_cli
from train.evaluate import evaluate
from zolik_env.envs.zolik_common import make_rules

ITERATIONS = 8
SETTINGS = [f"iterations={ITERATIONS}", "env_runners=1", "envs_per_runner=8",
            "train_batch=3000", "minibatch=500", "epochs=4", "learning_rate=0.0005",
            "net_arch=[128,128]", "opponents={random: 1.0}",
            "past_slots=1", "snapshot_every=1", "checkpoint_every=1", "eval_deals=0",
            "progress=false", "seed=3"]
DEALS = 40  # duplicate deals against random per checkpoint compared


def _zolik_train(*args):
    return train_cli.main(list(args))


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """One run in two sessions: the first stops after one iteration (its time budget),
    the second resumes it to the end. Session-scoped: made once per test worker even when
    the worker interleaves other modules' tests; each session starts its own local Ray (all
    CPUs: 2 on the CI machine) unless one is up."""
    root = tmp_path_factory.mktemp("rllib")
    sets = [x for s in [*SETTINGS, f"run_root={root}"] for x in ("--set", s)]
    assert _zolik_train("--backend", "rllib", *sets, "--minutes", "0.0001") == 0
    (run,) = root.iterdir()
    first = [p.name for p in checkpoints_of(run)]
    assert first == ["iter_000001"], "the budget stops the first session after 1 iteration"
    assert _zolik_train("--resume", str(run)) == 0
    return run


def test_the_run_resumes_to_its_last_iteration_logging_each_once(run_dir):
    rows = (run_dir / "progress.csv").read_text().splitlines()[1:]
    iterations = [int(r.split(",")[0]) for r in rows]
    env_steps = [int(r.split(",")[1]) for r in rows]
    assert iterations == list(range(1, ITERATIONS + 1))
    assert all(b > a for a, b in itertools.pairwise(env_steps)), \
        "the resumed session counts on from the checkpoint's steps"
    names = [p.name for p in checkpoints_of(run_dir)]
    assert names == [f"iter_{i:06d}" for i in range(1, ITERATIONS + 1)]
    meta = json.loads((run_dir / "checkpoints" / names[-1] / "zolik.json").read_text())
    assert meta["rules"] == "cz" and meta["iteration"] == ITERATIONS
    assert meta["env_steps"] == env_steps[-1]


def test_training_improves_against_random(run_dir):
    rules = make_rules("cz", 2, {})
    first = run_dir / "checkpoints" / "iter_000001"
    rows = [evaluate(rules, make_agent(f"rllib:{path}", rules), ["random"], DEALS,
                     steps=0, seed=1)[0] for path in (first, run_dir)]
    before, after = rows[0]["score_diff"], rows[1]["score_diff"]
    # measured: -2.7 -> +19.6 [+5.3, +33.3] in one run, +29.7 [+18.8, ..] after 8 in another
    assert after > before + 5, f"points per deal vs random: {before:+.1f} -> {after:+.1f}"
    assert rows[1]["score_diff_low"] > 0, rows[1]


def test_the_frozen_snapshot_holds_the_learners_weights_of_its_iteration(run_dir):
    from ray.rllib.core.rl_module.rl_module import RLModule

    last = checkpoints_of(run_dir)[-1] / "learner_group" / "learner" / "rl_module"
    main, past = (RLModule.from_checkpoint(last / m).state_dict() for m in ("main", "past_0"))
    assert all(torch.equal(main[k], past[k]) for k in past), \
        "snapshot_every=1: the slot was filled after this iteration's update"
    earlier = checkpoints_of(run_dir)[-2] / "learner_group" / "learner" / "rl_module"
    old = RLModule.from_checkpoint(earlier / "main").state_dict()
    assert not all(torch.equal(main[k], old[k]) for k in old), "the learner moved on"


def test_a_new_snapshot_reaches_the_env_runners(local_ray):
    """The env runners play the frozen slots: after a snapshot their copy of ``past_0``
    equals the learner's ``main`` (RLlib's own weight sync sends only ``main``)."""
    from ray.tune.registry import register_env

    from cli.configs import resolve_config
    from train.rllib.env import ZolikMultiAgentEnv
    from train.rllib.ppo import ENV_NAME, algorithm_config, load_config

    register_env(ENV_NAME, ZolikMultiAgentEnv)
    cfg = load_config(resolve_config("cz_2p", "rllib"), {
        "env_runners": 1, "envs_per_runner": 2, "train_batch": 400, "minibatch": 200,
        "net_arch": [32], "past_slots": 1, "snapshot_every": 1,
        "opponents": {"past": 1.0}, "eval_deals": 0})
    algo = algorithm_config(cfg).build_algo()
    try:
        algo.train()
        main = algo.get_module("main").state_dict()
        (runner_past,) = algo.env_runner_group.foreach_env_runner(
            lambda runner: runner.module["past_0"].get_state(), local_env_runner=False)
        # the acting part: a runner samples moves from the actor; values are the learner's
        actor = [k for k in runner_past if not k.startswith(("encoder.critic", "vf."))]
        assert actor and all(torch.equal(torch.as_tensor(runner_past[k]), main[k])
                             for k in actor)
    finally:
        algo.stop()


def test_rllib_path_plays_in_zolik_eval_the_same_games_for_a_seed(run_dir, tmp_path):
    from cli.eval import main as eval_main

    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert eval_main(["--agents", f"rllib:{run_dir}", "random", "--deals", "4",
                          "--seed", "7", "--workers", "1", "--out", str(out), "--no-plots",
                          "--no-progress"]) == 0
        outs.append((out / "games.csv").read_text())
    assert outs[0] == outs[1] and f"rllib:{run_dir}" in outs[0]


def test_rllib_path_for_other_rules_or_a_wrong_path_is_one_clear_error(run_dir, tmp_path):
    with pytest.raises(ValueError, match=r"other rules \(rules: checkpoint 'cz' vs requested"):
        make_agent(f"rllib:{run_dir}", make_rules("sk", 2, {}))
    module = checkpoints_of(run_dir)[-1] / "learner_group" / "learner" / "rl_module" / "main"
    with pytest.raises(ValueError, match="other rules"):
        make_agent(f"rllib:{module}", make_rules("sk", 2, {}))
    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", make_rules("cz", 2, {}))
    with pytest.raises(ValueError, match="unknown mode 'best'"):
        make_agent(f"rllib:{run_dir}:best", make_rules("cz", 2, {}))


def test_bad_values_and_an_unreachable_cluster_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit, match=r"past_slots=0|opponents has past but past_slots=0"):
        _zolik_train("--backend", "rllib", "--set", "past_slots=0")
    with pytest.raises(SystemExit, match="minibatch=9000 is larger than train_batch=4000"):
        _zolik_train("--backend", "rllib", "--set", "minibatch=9000")
    with pytest.raises(SystemExit, match="no rllib config 'nope'"):
        _zolik_train("--backend", "rllib", "--config", "nope")
    start = time.monotonic()
    with pytest.raises(SystemExit, match=r"no Ray cluster answers at 127\.0\.0\.1:9"):
        _zolik_train("--backend", "rllib", "--address", "127.0.0.1:9",
                     "--set", f"run_root={tmp_path}")
    assert time.monotonic() - start < 30


def test_a_missing_ray_extra_is_one_line_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray.rllib", None)
    with pytest.raises(SystemExit, match=r"needs the \[ray\] extra"):
        _zolik_train("--backend", "rllib")


def test_resume_of_an_rllib_run_without_checkpoints_says_so(tmp_path):
    (tmp_path / "rllib_config.yaml").write_text("iterations: 1\n")
    with pytest.raises(SystemExit, match="no checkpoint to resume from"):
        _zolik_train("--resume", str(tmp_path))


def test_the_policy_samples_legal_moves_with_the_given_generator(run_dir):
    from zolik_env import zolik_v0

    rules = make_rules("cz", 2, {})
    policy = make_agent(f"rllib:{run_dir}", rules)
    env = zolik_v0.raw_env("cz", 2)
    env.reset(seed=1)
    raw = env.observe(env.agent_selection)
    obs, mask = raw["observation"][None], raw["action_mask"].astype(bool)[None]
    picks = [policy.act_batch(np.repeat(obs, 50, 0), np.repeat(mask, 50, 0),
                              np.random.default_rng(5)) for _ in range(2)]
    np.testing.assert_array_equal(picks[0], picks[1])
    assert mask[0, picks[0]].all()
    assert Path(str(run_dir)).is_dir()
