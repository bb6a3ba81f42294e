"""``ppo:PATH`` forms: with a sidecar its rules are checked; without one the model plays the
rules it is given; a run dir or a file, for Žolík and for Pět kostek."""

import shutil

import pytest

from agents.registry import make_agent
from zolik_env.rummy.options import preset


def test_ppo__a_zip_without_sidecar_plays_the_given_rules(tiny_run, tmp_path):
    _, result = tiny_run
    bare = tmp_path / "my_model.zip"
    shutil.copy(result.final, bare)
    agent = make_agent(f"ppo:{bare}", preset("sk"))  # no sidecar: sk 2p fits the sizes
    assert agent.name == f"ppo:{bare}"
    with pytest.raises(ValueError, match="observations of"):
        make_agent(f"ppo:{bare}", preset("cz", num_players=4))


def test_ppo__a_sidecar_mismatch_names_the_difference(tiny_run):
    cfg, result = tiny_run
    with pytest.raises(ValueError, match="rules: checkpoint 'cz' vs requested 'sk'"):
        make_agent(f"ppo:{result.final}", preset("sk", **cfg.rule_options))
    assert make_agent(f"ppo:{result.run_dir}", cfg.rules()) is not None


def test_dice_ppo__file_or_run_dir(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.dice.players import PPOAgent
    from train.dice.vec import KostkyVecEnv
    from zolik_env.dice.rules import DiceRules

    env = KostkyVecEnv(2, DiceRules(), 0, 0.02, False)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    run_dir = tmp_path / "dice_run"
    (run_dir / "checkpoints").mkdir(parents=True)
    model.save(run_dir / "checkpoints" / "step_16.zip")
    assert PPOAgent(str(run_dir)).path.name == "step_16.zip"
    model.save(run_dir / "final.zip")
    assert PPOAgent(str(run_dir)).path.name == "final.zip"
    assert PPOAgent(str(run_dir / "final")).path.name == "final.zip"
