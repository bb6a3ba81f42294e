"""Checks of a Gymnasium vector env, the vector counterpart of ``gymnasium.utils.env_checker``
(Gymnasium 1.2 ships checks for single envs only).

``check_vector_env(envs)`` raises ``AssertionError`` naming the first broken promise:

- the batched spaces are ``batch_space`` of the single ones, and ``metadata`` declares an
  ``AutoresetMode``;
- ``reset`` returns ``(obs, info)`` and ``step`` five values: observations in the
  observation space, float rewards and bool ``terminated``/``truncated`` of shape
  ``(num_envs,)``;
- every ``info`` follows the vector convention: each entry ``key`` has a bool
  ``(num_envs,)`` mask ``_key``, values have ``num_envs`` rows, nested dicts likewise;
- ``reset(seed=s)`` twice gives the same observations and infos, and the same actions
  from there give the same steps;
- autoreset as declared: with ``SAME_STEP`` an ended row's step carries its
  ``final_obs`` and ``final_info`` (masked by exactly the ended rows); with
  ``NEXT_STEP`` the step after an end is a reset step (reward 0, not done);
- moves are drawn from ``info["action_mask"]`` when the env gives one, and the episodes
  must end within ``max_steps`` steps, so that autoreset is seen.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

AnyVectorEnv = VectorEnv[Any, Any, Any]


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise AssertionError(message)


def check_vector_env(envs: AnyVectorEnv, seed: int = 0, max_steps: int = 500) -> None:
    """Run the checks of the module docstring on ``envs`` (reset with ``seed``)."""
    _require(isinstance(envs.unwrapped, VectorEnv), f"{envs!r} is not a gymnasium VectorEnv")
    n = envs.num_envs
    _require(isinstance(n, int) and n >= 1, f"num_envs={n!r} is not a positive int")
    for name in ("observation", "action"):
        single = getattr(envs, f"single_{name}_space")
        _require(isinstance(single, gymnasium.Space), f"single_{name}_space is no Space")
        _require(getattr(envs, f"{name}_space") == batch_space(single, n),
                 f"{name}_space is not batch_space(single_{name}_space, {n})")
    mode = envs.metadata.get("autoreset_mode")
    _require(isinstance(mode, AutoresetMode),
             f"metadata['autoreset_mode'] is {mode!r}, not an AutoresetMode")
    first = _play(envs, seed, max_steps, None)
    _play(envs, seed, max_steps, first)  # again: the same seed and actions, the same steps


def _play(envs: AnyVectorEnv, seed: int, max_steps: int,
          reference: list[tuple[Any, Any]] | None) -> list[tuple[Any, Any]]:
    """[(None, reset output), (actions, step output), ...]: steps until an autoreset was
    seen, each output checked; with ``reference`` (an earlier run), its actions are
    replayed and every output must equal the reference's."""
    replay = None if reference is None else [actions for actions, _ in reference[1:]]
    n = envs.num_envs
    reset = envs.reset(seed=seed)
    _require(isinstance(reset, tuple) and len(reset) == 2, "reset must return (obs, info)")
    obs, info = reset
    _require(reference is None or _same(reset, reference[0][1]),
             "reset(seed=...) twice gave different results")
    _check_obs(envs, obs, "reset")
    _check_info(info, n, "reset info")
    played: list[tuple[Any, Any]] = [(None, reset)]
    rng = np.random.default_rng(seed)
    ended_before = np.zeros(n, bool)
    next_step = envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    for t in range(max_steps if replay is None else len(replay)):
        actions = _actions(envs, info, rng, ended_before) if replay is None else replay[t]
        out = envs.step(actions)
        _require(reference is None or _same(out, reference[t + 1][1]),
                 f"step {t}: the same seed and actions gave another step")
        _require(isinstance(out, tuple) and len(out) == 5,
                 "step must return (obs, rewards, terminated, truncated, info)")
        obs, rewards, terminated, truncated, info = out
        where = f"step {t}"
        _check_obs(envs, obs, where)
        for name, value, kind in (("rewards", rewards, np.floating),
                                  ("terminated", terminated, np.bool_),
                                  ("truncated", truncated, np.bool_)):
            _require(isinstance(value, np.ndarray) and value.shape == (n,)
                     and np.issubdtype(value.dtype, kind),
                     f"{where}: {name} must be a {kind.__name__} array of shape ({n},)")
        _check_info(info, n, f"{where} info")
        done = terminated | truncated
        _check_autoreset(envs, info, rewards, done, ended_before, where)
        played.append((actions, out))
        if replay is None and (ended_before.any() if next_step else done.any()):
            return played  # an autoreset seen (next step: the reset step too)
        ended_before = done
    _require(replay is not None or any(out[2].any() or out[3].any() for _, out in played[1:]),
             f"no episode ended within {max_steps} steps: autoreset unchecked")
    return played


def _actions(envs: AnyVectorEnv, info: dict[str, Any], rng: np.random.Generator,
             ended: np.ndarray) -> np.ndarray:
    """One action per row: uniform over ``info["action_mask"]`` if given, else sampled
    (a row that just ended under ``NEXT_STEP`` may have no legal move: it gets 0)."""
    mask = info.get("action_mask")
    if mask is None:
        return np.asarray(envs.action_space.sample())
    mask = np.asarray(mask, bool)
    _require(bool((mask.any(axis=1) | ended).all()), "a row's action_mask allows no action")
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask],
                    np.int64)


def _check_obs(envs: AnyVectorEnv, obs: Any, where: str) -> None:
    _require(envs.observation_space.contains(obs),
             f"{where}: observations outside observation_space")


def _check_info(info: Any, n: int, where: str) -> None:
    """The vector info convention: ``key`` and its bool ``(n,)`` mask ``_key``."""
    _require(isinstance(info, dict), f"{where} is not a dict")
    for key, value in info.items():
        if key.startswith("_") and key[1:] in info:
            _require(isinstance(value, np.ndarray) and value.dtype == np.bool_
                     and value.shape == (n,), f"{where}: mask {key!r} is not bool ({n},)")
            continue
        _require(f"_{key}" in info, f"{where}: {key!r} has no mask '_{key}'")
        if isinstance(value, dict):
            _check_info(value, n, f"{where}[{key!r}]")
        else:
            _require(isinstance(value, np.ndarray) and value.shape[:1] == (n,),
                     f"{where}: {key!r} must be an array with {n} rows")


def _check_autoreset(envs: AnyVectorEnv, info: dict[str, Any], rewards: np.ndarray,
                     done: np.ndarray, ended_before: np.ndarray, where: str) -> None:
    mode = envs.metadata["autoreset_mode"]
    if mode == AutoresetMode.SAME_STEP:
        for key in ("final_obs", "final_info"):
            if not done.any():
                _require(key not in info or not info[f"_{key}"].any(),
                         f"{where}: {key} for rows that did not end")
                continue
            _require(key in info and np.array_equal(info[f"_{key}"], done),
                     f"{where}: SAME_STEP autoreset must give {key} for exactly the ended rows")
        for i in np.flatnonzero(done):
            _require(envs.single_observation_space.contains(info["final_obs"][i]),
                     f"{where}: final_obs of row {i} outside single_observation_space")
    elif mode == AutoresetMode.NEXT_STEP:
        _require(not (rewards[ended_before] != 0).any() and not done[ended_before].any(),
                 f"{where}: NEXT_STEP autoreset must reset the rows that ended a step ago")


def _same(a: Any, b: Any) -> bool:
    """Equal values, dtypes and shapes, through dicts, tuples and object arrays."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k])
                                                                     for k in a)
    if isinstance(a, tuple | list):
        return (isinstance(b, tuple | list) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(_same(x, y) for x, y in zip(a.ravel(), b.ravel(), strict=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) and a != a:  # NaN
        return isinstance(b, float) and b != b
    return bool(a == b)
