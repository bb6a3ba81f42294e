"""A tiny PPO self-play config and one shared tiny run (module-scoped)."""

import pytest
import torch

from train import ppo
from train.config import make_config

torch.set_num_threads(1)

TINY = {
    "exp_name": "tiny", "seed": 3, "total_steps": 128, "num_envs": 4, "n_steps": 16,
    "batch_size": 32, "n_epochs": 1, "net_arch": [16], "snapshot_every": 64,
    "checkpoint_every": 64, "eval_every": 128, "eval_opponents": ["greedy"], "eval_deals": 2,
    "pool": {"latest": 0.5, "past": 0.25, "greedy": 0.25}, "rule_options": {"max_turns": 40},
    "progress": False, "teacher": "", "obs_features": "", "plan_prior": False,  # plain; the
    "discard_prior": False, "torch_threads": 1,  # warm starts in this process
}  # hand-feature runs are in test_ppo.py


def tiny_config(tmp_path, **changes):
    return make_config({**TINY, "run_root": str(tmp_path / "runs"), **changes})


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """(config, RunResult) of one finished 128-step run."""
    cfg = tiny_config(tmp_path_factory.mktemp("tiny"))
    return cfg, ppo.run(cfg)


@pytest.fixture(scope="session")
def discard_prior_run(tmp_path_factory):
    """(config, RunResult) of a tiny run whose network has the discard prior."""
    cfg = tiny_config(tmp_path_factory.mktemp("prior"), obs_features="hand+discard",
                      discard_prior=True)
    return cfg, ppo.run(cfg)


def run_stopped_at(cfg, step, monkeypatch):
    """``ppo.run(cfg)`` interrupted (as by Ctrl-C) at the first decision at or past
    ``step``; the RunResult of that stopped session."""
    from train.callbacks import TrainCallback

    on_step = TrainCallback._on_step

    def stopped(self):
        if self.num_timesteps >= step:
            raise KeyboardInterrupt
        return on_step(self)

    with monkeypatch.context() as patch:
        patch.setattr(TrainCallback, "_on_step", stopped)
        return ppo.run(cfg)
