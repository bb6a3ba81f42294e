"""What a checkpoint needs beyond the weights for a resumed run to equal an uninterrupted one.

A checkpoint ``checkpoints/step_N.zip`` holds the network, Adam's state and the step
count. Its companion ``step_N.state.pkl`` holds everything else the next steps depend on,
taken at the start of a rollout (between two PPO updates). Both training recipes use it
(Žolík's ``train.ppo``, Pět kostek's ``train.dice.ppo``):

- the deals (games) in progress in the VecEnv (core state, learner seats, deal counters,
  shaping potentials), the generator the opponents draw their moves from, each row's
  opponents;
- the opponent pool's generator and its current mix (``pool_focus``), and the learner's
  recent outcomes per opponent kind that move the mix;
- the recent scores of the dice log;
- the global generators: torch (the learner's sampled moves), numpy (SB3's minibatch
  order), Python's ``random``;
- SB3's last observation and episode starts, its episode-info window, and ``VecMonitor``'s
  running returns (so the logs continue as well).

``--resume`` restores all of it, so the resumed run plays the same deals, the same moves
and the same updates as a run that was never stopped (``tests/train/test_cli.py`` kills a
run with ``kill -9`` and compares the weights; ``tests/test_kill_resume.py`` does the same
for Pět kostek). A learning rate that follows the wall clock (the dice recipe's
``time_linear``) cannot repeat itself, so those runs resume with equal deals but not
equal weights. A session that stops inside a rollout
(Ctrl-C, SIGTERM, the time budget) saves the state of that rollout's start, with the
weights of then: at most one rollout is played again. The file is written before its
checkpoint, atomically, so a checkpoint on disk always has its state; a checkpoint
without one (runs from before this file existed) resumes with fresh deals, with a warning.
"""

from __future__ import annotations

import copy
import os
import pathlib
import pickle
import random
import sys
from collections import deque
from typing import Any

import numpy as np
import torch

STATE_VERSION = 1


def state_path(checkpoint: pathlib.Path) -> pathlib.Path:
    """``step_N.zip`` -> ``step_N.state.pkl`` beside it."""
    return checkpoint.with_name(f"{checkpoint.stem}.state.pkl")


def capture(model: Any, monitor: Any, env: Any, extra: Any = None) -> dict[str, Any]:
    """A copy of everything besides the checkpoint that the run's next steps depend on
    (``env`` has ``get_state``; ``extra``: what the caller's logs need), and the weights
    and Adam state (kept in memory to go back to if a session stops inside the rollout that
    follows)."""
    return copy.deepcopy({
        "version": STATE_VERSION,
        "step": int(model.num_timesteps),
        "env": env.get_state(),
        "random": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
                   "python": random.getstate()},
        "sb3": {"last_obs": model._last_obs, "episode_starts": model._last_episode_starts,
                "ep_info": list(model.ep_info_buffer or []), "n_updates": model._n_updates},
        "monitor": {"returns": monitor.episode_returns, "lengths": monitor.episode_lengths,
                    "count": monitor.episode_count},
        "extra": extra,
        "weights": {"policy": model.policy.state_dict(),
                    "optimizer": model.policy.optimizer.state_dict()},
    })


def rewind(model: Any, state: dict[str, Any]) -> None:
    """Put the weights, Adam's state and the step count back to those of ``state``."""
    model.policy.load_state_dict(state["weights"]["policy"])
    model.policy.optimizer.load_state_dict(state["weights"]["optimizer"])
    model.num_timesteps = state["step"]


def save(path: pathlib.Path, state: dict[str, Any]) -> None:
    """Write ``state`` (without the weights, which the checkpoint holds) atomically."""
    kept = {k: v for k, v in state.items() if k != "weights"}
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("wb") as f:
            pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def load(path: pathlib.Path, step: int) -> dict[str, Any] | None:
    """The state saved beside the checkpoint of ``step``, or None when there is none or it
    does not belong to that step (then with the reason as a one-line warning)."""
    if not path.exists():
        return None
    with path.open("rb") as f:
        state = pickle.load(f)
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION \
            or state.get("step") != step:
        raise ValueError(f"{path} does not hold the state of step {step}")
    return state


def load_or_warn(checkpoint: pathlib.Path, step: int, fresh: str = "deals"
                 ) -> dict[str, Any] | None:
    """The resume state beside ``checkpoint``; None, with a one-line warning, when it has
    none or a damaged one: the run then goes on with ``fresh`` deals (games) drawn from
    (seed, step), not exactly as an uninterrupted run."""
    try:
        saved = load(state_path(checkpoint), step)
    except Exception as error:  # damaged: resume as a checkpoint without state
        saved, why = None, f"{type(error).__name__}: {error}"
    else:
        why = "none saved"
    if saved is None:
        print(f"warning: {checkpoint.name} has no resume state ({why}); the run continues "
              f"with fresh {fresh}, not exactly as an uninterrupted run", file=sys.stderr)
    return saved


def restore(model: Any, monitor: Any, env: Any, state: dict[str, Any]) -> None:
    """Put the env, the generators and SB3's rollout bookkeeping back to ``state`` (after
    ``model.set_env``, before ``learn``: SB3 then continues instead of resetting)."""
    env.set_state(state["env"])
    monitor.episode_returns = state["monitor"]["returns"].copy()
    monitor.episode_lengths = state["monitor"]["lengths"].copy()
    monitor.episode_count = state["monitor"]["count"]
    sb3 = state["sb3"]
    model._last_obs = sb3["last_obs"].copy()
    model._last_episode_starts = sb3["episode_starts"].copy()
    model.ep_info_buffer = deque(sb3["ep_info"], maxlen=model._stats_window_size)
    model._n_updates = sb3["n_updates"]
    torch.set_rng_state(state["random"]["torch"])
    np.random.set_state(state["random"]["numpy"])
    random.setstate(state["random"]["python"])
