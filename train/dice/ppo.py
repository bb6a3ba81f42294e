"""PPO recipe for solitaire Pět kostek: sb3-contrib MaskablePPO on the batched VecEnv.

Read from top to bottom: ``DicePPOConfig`` (every knob, with a docstring), ``load_config``
(YAML -> a frozen, validated model, ``zolik_env.config_model``; unknown keys are errors),
``run`` (train, checkpoint, log). The command is ``zolik dice train`` (``cli/dice.py``):

    zolik dice train --config configs/dice/ppo_forced.yaml [--seed 2]
    zolik dice train --resume runs/dice__1__20260101-120000

A run dir ``runs/dice__{seed}__{time}`` holds ``config.yaml`` (resolved), ``progress.csv``
(one row per rollout), ``checkpoints/step_{N}.zip`` and ``final.zip``.
"""

from __future__ import annotations

import csv
import os
import pathlib
import sys
import time
from collections import deque
from typing import Any

import yaml
from pydantic import Field, field_validator, model_validator

from train import resume_state
from train.hyper import Count, Fraction, SB3Rollout, Weight
from train.runlog import new_run_dir, newest_intact, sigterm_interrupts, truncate_csv
from zolik_env.config_model import (
    IntTuple,
    build,
    one_of,
    plain_dict,
    read_values,
)
from zolik_env.dice import DiceRules

LR_SCHEDULES = ("constant", "linear", "time_linear")
FEATURE_SETS = ("plain", "long")  # "long" adds agents.dice.dice_net.LongHorizonFeatures
POLICIES = ("mlp", "turn")  # "turn": agents.dice.dice_turn_net.TurnLookaheadPolicy
RECENT_GAMES = 1000  # the log's mean score is over the last this many games


class DicePPOConfig(SB3Rollout):
    table: str = "classic"
    """Rules: ``classic`` or ``triple``."""
    joker: str = "forced"
    """Rules: joker rule, ``none``, ``forced`` or ``free``."""
    yahtzee_bonus: bool = True
    """Rules: the +100 Yahtzee bonus."""
    fixed_order: bool = False
    """Rules: fill boxes top to bottom."""
    seed: int = 1
    """Seeds the games, the network and PPO's sampling."""
    total_timesteps: int = Field(50_000_000, gt=0)
    """Upper bound on env steps (decisions); the time budget usually stops first."""
    time_budget_minutes: float = Field(55.0, ge=0)
    """Wall-clock budget of the learning loop; 0 means unlimited."""
    n_steps: Count = 64
    """Steps per env per rollout (rollout = num_envs * n_steps decisions)."""
    batch_size: Count = 2048
    """Minibatch size of a PPO update (at most a rollout)."""
    n_epochs: Count = 4
    """Passes over each rollout per update."""
    lr_schedule: str = "time_linear"
    """``constant``, ``linear`` (in steps) or ``time_linear`` (decays over the time budget)."""
    gamma: Fraction = 1.0
    """The score is undiscounted; episodes last at most 39 decisions."""
    ent_coef: Weight = 0.003
    """Weight of the entropy bonus."""
    policy: str = "mlp"
    """``mlp`` (sb3-contrib's masked MLP policy) or ``turn`` (``agents.dice.dice_turn_net``: a
    learned value of scorecards, each turn played by lookahead over the dice; solitaire
    ``classic``, free order)."""
    turn_hidden: IntTuple = (64, 64)
    """``policy: turn``: hidden layers of the scorecard-value MLP."""
    beta: float = Field(20.0, gt=0)
    """``policy: turn``: starting inverse temperature of the policy (per reward unit);
    learned from there."""
    features: str = "plain"
    """``plain`` (the observation) or ``long`` (plus the long-horizon features of
    ``agents.dice.dice_net``: bonus pace, boxes left, face counts)."""
    reward_scale: float = Field(0.02, gt=0)
    """Points are multiplied by this (1/50) before PPO sees them."""
    checkpoint_every: int = Field(2_000_000, gt=0)
    """Save a checkpoint every this many env steps."""
    torch_threads: int = Field(1, gt=0)
    """Torch threads of the update."""
    run_root: str = "runs"
    """Folder the run dirs go into."""

    def rules(self) -> DiceRules:
        return DiceRules(
            table=self.table,  # type: ignore[arg-type]
            joker=self.joker,  # type: ignore[arg-type]
            yahtzee_bonus=self.yahtzee_bonus,
            fixed_order=self.fixed_order,
        )

    _lr_schedule = field_validator("lr_schedule")(one_of(LR_SCHEDULES))
    _features = field_validator("features")(one_of(FEATURE_SETS))
    _policy = field_validator("policy")(one_of(POLICIES))

    @field_validator("net_arch", "turn_hidden")
    @classmethod
    def _layers(cls, widths: tuple[int, ...]) -> tuple[int, ...]:
        if not widths or any(width <= 0 for width in widths):
            raise ValueError("hidden layers must be one or more positive widths")
        return widths

    @field_validator("run_root")
    @classmethod
    def _folder(cls, run_root: str) -> str:
        if not run_root.strip():
            raise ValueError("must name a folder")
        return run_root

    @model_validator(mode="after")
    def _fields_together(self) -> DicePPOConfig:
        """The rules the fields make together."""
        rules = self.rules()  # validates the rules options
        if self.policy == "turn":
            from agents.dice.dice_turn_net import supports

            if not supports(rules):
                raise ValueError("policy 'turn' plays solitaire classic with free order only "
                                 f"(table {self.table!r}, fixed_order {self.fixed_order})")
            if self.features != "plain":
                raise ValueError(f"policy 'turn' reads the plain observation (features "
                                 f"{self.features!r})")
        return self


def load_config(path: str | pathlib.Path, **overrides: Any) -> DicePPOConfig:
    """Read YAML into ``DicePPOConfig``; unknown keys and bad values raise ``ValueError``
    naming them and the file."""
    return build(DicePPOConfig, read_values(path, overrides, skip_none=True), str(path))


def _callback(cfg: DicePPOConfig, run_dir: pathlib.Path, start: float,
              logged: dict[str, str] | None = None, recent: list[int] | None = None) -> Any:
    """SB3 callback: time budget, checkpoints with their resume state, CSV log and a tqdm
    progress bar. ``logged`` is the last log row of the sessions before (a resumed run
    continues its seconds and games columns from there), ``recent`` their last scores."""
    seconds_before = float(logged["seconds"]) if logged else 0.0
    games_before = int(logged["games"]) if logged else 0
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class Callback(BaseCallback):
        def _on_training_start(self) -> None:
            self.games = 0  # finished this session
            self.recent: deque[int] = deque(recent or [], maxlen=RECENT_GAMES)
            self.next_ckpt = _next_multiple(self.num_timesteps, cfg.checkpoint_every)
            self.resume_point: dict[str, Any] | None = None
            self.rollout_complete = False
            log = run_dir / "progress.csv"
            new = not log.exists()
            self.file = log.open("a", newline="")
            self.csv = csv.writer(self.file)
            if new:
                self.csv.writerow(["steps", "seconds", "games", "mean_score_last_1000", "fps"])
            # the bar counts the budget that stops the run: seconds, or steps without one
            self.timed = bool(cfg.time_budget_minutes)
            total = round(60 * cfg.time_budget_minutes) if self.timed else cfg.total_timesteps
            self.bar = tqdm(total=total, initial=0 if self.timed else self.num_timesteps,
                            unit="s" if self.timed else "step", mininterval=5,
                            file=sys.stderr)  # fmt: skip

        def _on_rollout_start(self) -> None:
            """Between two updates: keep the state a resumed run continues from; the
            periodic checkpoint is written here, with it."""
            self.resume_point = resume_state.capture(
                self.model, self.model.get_env(), self.model.get_env().venv,
                extra={"recent": list(self.recent)})
            if self.num_timesteps >= self.next_ckpt:
                _save(self.model, run_dir / "checkpoints" / f"step_{self.num_timesteps}.zip",
                      self.resume_point)
                self.next_ckpt = _next_multiple(self.num_timesteps, cfg.checkpoint_every)
            self.rollout_complete = False

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "score" in info:
                    self.recent.append(info["score"])
                    self.games += 1
            if self.timed:
                self.bar.update(min(self.bar.total, int(time.time() - start)) - self.bar.n)
            else:
                self.bar.update(cfg.num_envs)
            elapsed = time.time() - start
            return not (cfg.time_budget_minutes and elapsed > 60 * cfg.time_budget_minutes)

        def _on_rollout_end(self) -> None:
            self.rollout_complete = True
            mean = sum(self.recent) / max(1, len(self.recent))
            elapsed = time.time() - start
            fps = self.num_timesteps / max(elapsed, 1e-9)
            self.csv.writerow([self.num_timesteps, round(seconds_before + elapsed, 1),
                               games_before + self.games, round(mean, 2), round(fps)])
            self.file.flush()
            self.bar.set_postfix(steps=self.num_timesteps, score=f"{mean:.1f}", refresh=False)

        def _on_training_end(self) -> None:
            self.bar.close()
            self.file.close()

    return Callback()


def _next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every


def _save(model: Any, path: pathlib.Path, state: dict[str, Any] | None = None) -> None:
    """Save atomically: a kill or a full disk never leaves a partial checkpoint. ``state``
    (``train.resume_state``) is written first, so the checkpoint never lacks it."""
    tmp = path.with_name(f".{path.stem}.tmp.zip")
    try:
        if state is not None:
            resume_state.save(resume_state.state_path(path), state)
        model.save(tmp)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot save checkpoint {path}: {error.strerror or error}") from None


def _learning_rate(cfg: DicePPOConfig, start: float) -> Any:
    if cfg.lr_schedule == "constant":
        return cfg.learning_rate
    if cfg.lr_schedule == "linear":
        return lambda remaining: cfg.learning_rate * remaining
    budget = 60 * cfg.time_budget_minutes

    def by_time(_remaining: float) -> float:
        return cfg.learning_rate * max(0.05, 1 - (time.time() - start) / budget)

    return by_time


def run(cfg: DicePPOConfig, run_dir: pathlib.Path | None = None) -> pathlib.Path:
    """Train (or resume in ``run_dir``) and return the run dir holding ``final.zip``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.learned.legacy import load_model
    from train.dice.vec import KostkyVecEnv

    torch.set_num_threads(cfg.torch_threads)
    start = time.time()
    resume = run_dir is not None
    if run_dir is None:
        run_dir = new_run_dir(cfg.run_root, f"dice__{cfg.seed}")
        (run_dir / "config.yaml").write_text(yaml.safe_dump(plain_dict(cfg), sort_keys=False))
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    raw = KostkyVecEnv(cfg.num_envs, cfg.rules(), cfg.seed, cfg.reward_scale, False)
    env = VecMonitor(raw)
    model, step = newest_intact(run_dir / "checkpoints",
                                lambda path: load_model(path, env=env, device="cpu"))
    logged, recent = None, None
    if resume and model is not None:
        model.learning_rate = _learning_rate(cfg, start)
        model._setup_lr_schedule()
        logged = truncate_csv(run_dir / "progress.csv", "steps", step)
        saved = resume_state.load_or_warn(run_dir / "checkpoints" / f"step_{step}.zip",
                                              step, "games")
        if saved is not None:
            resume_state.restore(model, env, raw, saved)
            recent = saved["extra"]["recent"]
        else:
            model.set_env(env)  # fresh games from the seed
    else:
        model = MaskablePPO(
            _policy_class(cfg), env, learning_rate=_learning_rate(cfg, start), n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, seed=cfg.seed, device="cpu",
            policy_kwargs=_policy_kwargs(cfg),
        )  # fmt: skip
    callback = _callback(cfg, run_dir, start, logged, recent)
    try:
        with sigterm_interrupts():
            model.learn(cfg.total_timesteps - model.num_timesteps, callback=callback,
                        reset_num_timesteps=not resume)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the rollout's start, with its state
        _save_resumable(model, run_dir, callback)
        print(f"interrupted: saved step {model.num_timesteps}; --resume {run_dir} continues")
        raise
    _save_resumable(model, run_dir, callback)  # the time budget or the last step
    _save(model, run_dir / "final.zip")
    return run_dir


def _policy_class(cfg: DicePPOConfig) -> Any:
    if cfg.policy == "turn":
        from agents.dice.dice_turn_net import TurnLookaheadPolicy

        return TurnLookaheadPolicy
    return "MlpPolicy"


def _policy_kwargs(cfg: DicePPOConfig) -> dict[str, Any]:
    if cfg.policy == "turn":
        rules = {"joker": cfg.joker, "yahtzee_bonus": cfg.yahtzee_bonus}
        return {"rules": rules, "reward_scale": cfg.reward_scale,
                "hidden": tuple(cfg.turn_hidden), "beta": cfg.beta}
    kwargs: dict[str, Any] = {"net_arch": list(cfg.net_arch)}
    if cfg.features == "long":
        from agents.dice.dice_net import extractor_kwargs

        kwargs |= extractor_kwargs(cfg.rules())
    return kwargs


def _save_resumable(model: Any, run_dir: pathlib.Path, callback: Any) -> None:
    """A checkpoint ``--resume`` continues exactly from: after a last update, the state
    now; stopped inside a rollout (the time budget, Ctrl-C), that rollout's start."""
    point = getattr(callback, "resume_point", None)
    if callback.rollout_complete or point is None:
        venv = model.get_env()
        point = resume_state.capture(model, venv, venv.venv,
                                     extra={"recent": list(callback.recent)})
    else:
        resume_state.rewind(model, point)
    _save(model, run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip", point)
