"""PPO self-play for Žolík: sb3-contrib MaskablePPO on the batched VecEnv, one recipe.

Read from top to bottom: ``start_run`` (run dir with the resolved config), ``build``
(pool, env, model: new or from the last checkpoint), ``run`` (learn with checkpoints,
snapshots, evaluation and logs; always a checkpoint at exit). The config is
``train.config.PPOConfig``; the callback doing the periodic work is ``train.callbacks``.

    zolik train --config configs/ppo/cz_2p.yaml [--set total_steps=100000] [--seed 2]
    zolik train --resume runs/ppo_cz2p__1__20260101-120000

A run dir ``runs/{exp_name}__{seed}__{time}`` holds ``config.yaml`` (resolved, never
rewritten), ``checkpoints/step_{N}.zip`` (+ ``.json``: rules, step), ``pool/`` (learner
snapshots), ``final.zip``, ``progress*.csv`` and ``tb/`` (SB3 metrics, timings),
``eval.csv`` and ``learning_curve.png``. ``--resume`` loads the newest checkpoint:
weights, Adam state, step count; the pool is rebuilt from ``pool/`` snapshots up to that
step, and deals, seats and pool draws are reseeded from (seed, step).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import time
from typing import Any

import yaml

from agents.learned import legacy
from agents.learned.build import make_spec, network_kwargs
from agents.learned.discard_prior import discard_prior_spec
from agents.learned.net_spec import NetSpec
from agents.learned.ppo import write_meta
from agents.learned.ppo_net import LeanMaskablePolicy
from agents.registry import make_agent
from train import resume_state
from train.budget import (
    CLONE_SHARE,
    TEACHER_SHARE,
    Plan,
    fit_clone,
    plan_session,
    probe_clone_rate,
)
from train.config import PPOConfig, is_search_teacher, make_config, teacher_weights, to_dict
from train.mask_buffer import use_bool_masks
from train.runlog import (
    checkpoints,
    new_run_dir,
    newest_intact,
    sigterm_interrupts,
    step_of,
    truncate_csv,
)
from train.selfplay import OpponentPool, PoolVecEnv
from zolik_env.config_model import read_yaml
from zolik_env.rummy.observe import critic_view_size


@dataclasses.dataclass
class RunResult:
    run_dir: pathlib.Path
    steps: int
    """Learner steps done (the model's ``num_timesteps``), as the last checkpoint keeps
    them: a session stopped inside a rollout goes back to the rollout's start."""
    final: pathlib.Path
    """The last checkpoint (``final.zip`` when training ran to its end or budget)."""
    seconds: float
    played: int = 0
    """Learner steps played in this session up to its stop, the steps of an unfinished
    rollout included (``steps`` is at most this)."""


def start_run(cfg: PPOConfig) -> pathlib.Path:
    """A fresh run dir holding ``config.yaml``, the resolved config."""
    run_dir = new_run_dir(cfg.run_root, f"{cfg.exp_name}__{cfg.seed}")
    write_config(cfg, run_dir)
    return run_dir


def write_config(cfg: PPOConfig, run_dir: pathlib.Path) -> None:
    """``run_dir/config.yaml``, the resolved config, written atomically (a kill mid-write
    leaves no half a config)."""
    tmp = run_dir / ".config.yaml.tmp"
    tmp.write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False))
    tmp.replace(run_dir / "config.yaml")


def progress_log(run_dir: pathlib.Path, session: int) -> pathlib.Path:
    """Session ``session``'s progress log: SB3's CSV writer truncates, so each has its own."""
    return run_dir / ("progress.csv" if session == 0 else f"progress.{session}.csv")


def read_config(run_dir: pathlib.Path) -> PPOConfig:
    """The resolved config a run dir was started with; ``ValueError`` naming the file when
    it is damaged (not YAML, not a mapping)."""
    raw = legacy.upgrade_run_config(read_yaml(run_dir / "config.yaml"))
    return make_config(raw, str(run_dir / "config.yaml"))


def save_checkpoint(model: Any, cfg: PPOConfig, path: pathlib.Path,
                    state: dict[str, Any] | None = None) -> pathlib.Path:
    """Save ``model`` (weights, optimizer, step count) and its rules sidecar, atomically:
    a kill during the save leaves the previous checkpoints intact. ``state``
    (``train.resume_state``) is written first, so the checkpoint never lacks it."""
    tmp = path.with_name(f".{path.stem}.tmp.zip")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if state is not None:
            resume_state.save(resume_state.state_path(path), state)
        model.save(tmp)
        write_meta(path, cfg.rules(), step=int(model.num_timesteps), seed=cfg.seed,
                   net_spec=legacy.spec_of(model.policy, cfg.rules()).to_dict())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot save checkpoint {path}: {error.strerror or error}") from None
    return path


def net_spec(cfg: PPOConfig) -> NetSpec:
    """The ``NetSpec`` of the network ``cfg`` trains."""
    rules = cfg.rules()
    return make_spec(
        rules, cfg.net_arch, cfg.obs_features,
        critic_extra=critic_view_size(rules) if cfg.privileged_critic else 0,
        plan_prior=cfg.plan_prior, plan_pending=cfg.plan_pending_start is not None,
        discard_prior=(discard_prior_spec(rules, teacher_weights(cfg.teacher))
                       if cfg.discard_prior else False),
        prior_scale=cfg.prior_lr_scale)


def _new_model(cfg: PPOConfig, env: Any) -> Any:
    from sb3_contrib import MaskablePPO

    policy_kwargs = network_kwargs(net_spec(cfg), cfg.rules(), cfg.plan_open_start,
                                   cfg.plan_pending_start or 0.0)
    return MaskablePPO(
        LeanMaskablePolicy, env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, seed=cfg.seed, device="cpu",
        policy_kwargs=policy_kwargs,
    )  # fmt: skip


def build(cfg: PPOConfig, run_dir: pathlib.Path,
          plan: Plan | None = None) -> tuple[Any, PoolVecEnv, OpponentPool]:
    """Pool, env and model; from the newest intact checkpoint in ``run_dir`` if there is
    one (the logs then lose what came after it). A new model warm-starts from the teacher
    as ``plan`` says (default: the config's figures, no budget)."""
    from stable_baselines3.common.vec_env import VecMonitor

    model, step = _newest_intact(run_dir / "checkpoints")
    seed = cfg.seed if step == 0 else cfg.seed * 1_000_003 + step  # fresh draws on resume
    pool = OpponentPool(cfg.rules(), cfg.pool, cfg.pool_size, seed)
    for snap in checkpoints(run_dir / "pool"):
        if step_of(snap) <= step:
            pool.add_snapshot(snap)
    reference = (make_agent(cfg.duplicate_reference, cfg.rules()) if cfg.duplicate_reference
                 else None)
    raw = PoolVecEnv(cfg.num_envs, cfg.rules(), pool, cfg.reward, seed, cfg.shaping, cfg.gamma,
                     cfg.obs_features, cfg.privileged_critic, reference)
    env = VecMonitor(raw)
    if model is not None:
        model.set_env(env)
        model.set_random_seed(seed)
        saved = resume_state.load_or_warn(run_dir / "checkpoints" / f"step_{step}.zip",
                                              step, "deals")
        if saved is not None:
            resume_state.restore(model, env, raw, saved)
        truncate_logs(run_dir, step)
    else:
        model = _new_model(cfg, env)
        if cfg.teacher:
            warm_start(model, cfg, run_dir, plan or plan_session(cfg, None, True))
    use_bool_masks(model)
    return model, raw, pool


def _newest_intact(folder: pathlib.Path) -> tuple[Any, int]:
    """The newest checkpoint that loads and its step; ``(None, 0)`` for a run without
    any. ``ValueError`` when there are checkpoints and none loads: resuming would
    silently train from step 0."""
    model, step = newest_intact(folder, lambda path: legacy.load_model(path, device="cpu"))
    saved = checkpoints(folder)
    if model is None and saved:
        raise ValueError(f"every checkpoint in {folder} is damaged ({len(saved)}: "
                         f"{', '.join(p.name for p in saved[-3:])}); move them away and "
                         f"give --restart to train from step 0")
    return model, step


def truncate_logs(run_dir: pathlib.Path, step: int) -> None:
    """Drop rows logged after ``step`` from ``progress*.csv`` and ``eval.csv``: a run
    resumed from the checkpoint at ``step`` logs those steps again."""
    for log in run_dir.glob("progress*.csv"):
        truncate_csv(log, "time/total_timesteps", step)
    truncate_csv(run_dir / "eval.csv", "steps", step)


def warm_start(model: Any, cfg: PPOConfig, run_dir: pathlib.Path, plan: Plan) -> None:
    """Teach a new model the teacher's moves and returns (``train.imitation``) with the
    decisions, epochs and workers of ``plan`` (``train.budget``: the config's, or fewer to
    fit a time budget; with a budget, cloning is fitted again to the time the warm start
    has left, at the rate measured then); write what it learned to ``warm_start.json``
    and save it as ``checkpoints/step_0.zip``, so a resumed run never repeats it."""
    from train.imitation import clone, load_or_collect

    began = time.time()
    data = load_or_collect(pathlib.Path(cfg.run_root) / "teacher_cache", cfg.rules(),
                           cfg.teacher, plan.decisions, cfg.seed, cfg.gamma, cfg.reward,
                           progress=cfg.progress, features=cfg.obs_features,
                           critic=cfg.privileged_critic, workers=plan.workers)
    epochs = plan.epochs
    if plan.budget_s is not None:
        rate = probe_clone_rate(model.policy, data)
        left = (TEACHER_SHARE + CLONE_SHARE) * plan.budget_s - (time.time() - began)
        data, epochs = fit_clone(data, plan.epochs, rate, left)
        print(f"cloning: {epochs} epoch{'s' * (epochs != 1)} of {len(data):,} decisions at "
              f"the {rate:,.0f} samples/s measured now, to fit the {max(0, left):.0f} s the "
              f"warm start has left", flush=True)
    report = clone(model.policy, data, epochs=epochs,
                   learning_rate=cfg.teacher_learning_rate, seed=cfg.seed, progress=cfg.progress)
    summary: dict[str, Any] = {"teacher": cfg.teacher, "planned": dataclasses.asdict(plan),
                               **dataclasses.asdict(report)}
    if plan.dagger_decisions:
        report = dagger_round(model, cfg, data, plan.dagger_decisions)
        summary["dagger"] = dataclasses.asdict(report)
    (run_dir / "warm_start.json").write_text(json.dumps(summary, indent=1))
    print(f"warm start from {cfg.teacher}: {report.samples} decisions, {report.epochs} "
          f"epochs, held-out move match {report.accuracy:.3f}, value MSE "
          f"{report.value_mse:.4f} ({report.seconds:.0f} s)", flush=True)
    save_checkpoint(model, cfg, run_dir / "checkpoints" / "step_0.zip")


DAGGER_SEED_OFFSET = 1_000  # the DAgger round plays other deals than the teacher's


def dagger_round(model: Any, cfg: PPOConfig, data: Any, decisions: int | None = None) -> Any:
    """One DAgger round: the cloned network plays, the labeller (``dagger_teacher``, else
    the teacher) labels its decisions, and the network learns the teacher's data and these
    together (a search's labels alone); the ``CloneReport``."""
    from agents.learned.ppo import PPOPolicy
    from train.imitation import clone, collect, concat, with_features

    labeller = cfg.dagger_teacher or cfg.teacher
    visited = collect(cfg.rules(), labeller, decisions or cfg.dagger_decisions,
                      cfg.seed + DAGGER_SEED_OFFSET, cfg.gamma, cfg.reward,
                      progress=cfg.progress,
                      driver=PPOPolicy(model.policy, "clone", rules=cfg.rules()))
    visited = with_features(visited, cfg.rules(), cfg.obs_features, cfg.progress,
                            cfg.torch_threads)
    model.policy.set_training_mode(True)
    return clone(model.policy, visited if is_search_teacher(labeller) else concat(data, visited),
                 epochs=cfg.dagger_epochs,
                 learning_rate=cfg.teacher_learning_rate, seed=cfg.seed + 1,
                 progress=cfg.progress)


def run(cfg: PPOConfig, run_dir: pathlib.Path | None = None,
        minutes: float | None = None) -> RunResult:
    """Train (a new run, or continue ``run_dir`` from its newest checkpoint).

    ``minutes`` overrides the config's session budget without changing ``config.yaml``.
    Ctrl-C and SIGTERM stop training after saving a checkpoint.
    """
    import torch
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

    from train.callbacks import TrainCallback

    torch.set_num_threads(cfg.torch_threads)
    start = time.time()
    run_dir = start_run(cfg) if run_dir is None else pathlib.Path(run_dir)
    budget = cfg.time_budget_minutes if minutes is None else minutes
    plan = plan_session(cfg, budget, warm=not checkpoints(run_dir / "checkpoints"))
    print(plan.describe(cfg), flush=True)
    model, env, pool = build(cfg, run_dir, plan)
    log = progress_log(run_dir, len(list(run_dir.glob("progress*.csv"))))
    model.set_logger(Logger(str(run_dir), [CSVOutputFormat(str(log)),
                                           TensorBoardOutputFormat(str(run_dir / "tb"))]))
    callback = TrainCallback(cfg, run_dir, env, pool, save_checkpoint, start, budget)
    finished = False
    try:
        with sigterm_interrupts():
            model.learn(max(0, cfg.total_steps - model.num_timesteps), callback=callback,
                        reset_num_timesteps=False, progress_bar=False)
        finished = True
    except KeyboardInterrupt:
        print(f"interrupted at step {model.num_timesteps}: saving the checkpoint of this "
              f"rollout's start")
    finally:
        played = int(model.num_timesteps)
        last = _save_at_exit(model, cfg, run_dir, callback, finished)
        callback.close(int(model.num_timesteps), played)
    if finished:
        last = save_checkpoint(model, cfg, run_dir / "final.zip")
    return RunResult(run_dir, int(model.num_timesteps), last, time.time() - start, played)


def _save_at_exit(model: Any, cfg: PPOConfig, run_dir: pathlib.Path, callback: Any,
                  finished: bool) -> pathlib.Path:
    """The checkpoint at a session's end, with its resume state. After a last update the
    run is between rollouts; stopped inside a rollout (the time budget, Ctrl-C, SIGTERM,
    even inside an update) it goes back to that rollout's start, weights included."""
    if (finished and callback.rollout_complete) or callback.resume_point is None:
        state = resume_state.capture(model, model.get_env(), callback.env)
    else:
        state = callback.resume_point
        resume_state.rewind(model, state)
    return save_checkpoint(model, cfg, run_dir / "checkpoints" /
                           f"step_{model.num_timesteps}.zip", state)
