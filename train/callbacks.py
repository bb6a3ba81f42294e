"""The training loop's periodic work, as one SB3 callback: progress bar, checkpoints,
pool snapshots, evaluation, the time budget, and logged metrics and timings.

Logged each rollout (``progress*.csv`` and TensorBoard): SB3's own metrics, the learner's
recent outcomes per opponent kind (``selfplay/win_vs_*``: it went out; ``reward_vs_*``,
unshaped; ``opened_vs_*``: it opened), the opponent mix (``pool/*``, which
``pool_focus`` moves towards the kinds the learner beats least), and the profile
``time/*``: seconds in the env step (core, masks, observations, opponents), in opponent
policies alone, in the duplicate reference's moves, in the learner's forward passes, in
PPO updates and in evaluation, plus
``time/steps_per_s`` over the session. With ``learning_rate_final`` or ``ent_coef_final``
each update's values are set here first (``train.schedule``; logged as
``train/learning_rate``, ``train/ent_coef`` and ``train/schedule_share``).
"""

from __future__ import annotations

import pathlib
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import ConstantSchedule
from tqdm import tqdm

from agents.learned.ppo import PPOPolicy
from train import resume_state, schedule
from train.config import PPOConfig
from train.evaluate import append_rows, evaluate, format_table, plot_curve
from train.selfplay import OpponentPool, PoolVecEnv


def _next(step: int, every: int) -> int:
    return (step // every + 1) * every


class TrainCallback(BaseCallback):
    def __init__(self, cfg: PPOConfig, run_dir: pathlib.Path, env: PoolVecEnv,
                 pool: OpponentPool, save: Callable[..., pathlib.Path], start: float,
                 budget_minutes: float) -> None:
        super().__init__()
        self.cfg, self.run_dir, self.env, self.pool, self.save = cfg, run_dir, env, pool, save
        self.start, self.budget = start, 60 * budget_minutes
        self.outcomes = pool.outcomes  # the learner's recent deals per opponent kind
        self.seconds = {"update": 0.0, "eval": 0.0, "rollout": 0.0}
        self.mark = time.perf_counter()
        self.bar: tqdm | None = None
        self.cache: dict[str, Any] = {}
        self.resume_point: dict[str, Any] | None = None  # the state at this rollout's start
        self.rollout_complete = False
        self.annealed_share: float | None = None  # of the last update, when annealing

    def _on_training_start(self) -> None:
        step, cfg = self.num_timesteps, self.cfg
        self.first_step = step
        self.next_ckpt = _next(step, cfg.checkpoint_every)
        self.next_snap = _next(step, cfg.snapshot_every)
        self.next_eval = _next(step, cfg.eval_every) if cfg.eval_every else None
        if not self.pool.snapshots:
            self._snapshot()
        self.ppo_start = time.time()  # the schedule's minutes count from here
        self.ppo_budget = self.budget - (self.ppo_start - self.start) if self.budget else None
        # with a time budget the bar counts the share of whichever budget (minutes or
        # total_steps) will stop the run first, and shows the step count beside it
        total, unit = (100, "%") if self.budget else (cfg.total_steps, "step")
        self.bar = tqdm(total=total, initial=0 if self.budget else step, unit=unit,
                        file=sys.stderr, mininterval=5, disable=not cfg.progress,
                        dynamic_ncols=True, bar_format=None if not self.budget else
                        "{l_bar}{bar}| {n:.0f}% [{elapsed}<{remaining}{postfix}]")
        self.mark = time.perf_counter()

    def _snapshot(self) -> None:
        path = self.run_dir / "pool" / f"step_{self.num_timesteps}.zip"
        self.pool.add_snapshot(self.save(self.model, self.cfg, path))

    def _on_rollout_start(self) -> None:
        """Between two updates: the point a resumed run can continue from exactly. Keep
        its state (a session stopped inside this rollout saves it), and write the periodic
        checkpoint here with it, or the state of a checkpoint the session started from
        that has none (the warm start's ``step_0``)."""
        now = time.perf_counter()
        self.seconds["update"] += now - self.mark
        self._log_annealed()
        self.resume_point = resume_state.capture(self.model, self.model.get_env(), self.env)
        step = self.num_timesteps
        checkpoint = self.run_dir / "checkpoints" / f"step_{step}.zip"
        if step >= self.next_ckpt or (
                checkpoint.exists() and not resume_state.state_path(checkpoint).exists()):
            self.save(self.model, self.cfg, checkpoint, self.resume_point)
            self.next_ckpt = _next(step, self.cfg.checkpoint_every)
        self.rollout_complete = False
        self.mark = time.perf_counter()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "deal_scores" in info:
                won = float(info["winner"] == info["seat"])
                self.outcomes[info["opponent"]].append((won, info["deal_reward"],
                                                        float(info["opened"])))
        step = self.num_timesteps
        if self.bar is not None and self.budget:
            share = schedule.budget_share(step, self.first_step, self.cfg.total_steps,
                                          time.time() - self.start, self.budget)
            self.bar.set_postfix(steps=step, refresh=False)
            self.bar.update(100 * share - self.bar.n)
        elif self.bar is not None:
            self.bar.update(self.model.n_envs)
        if step >= self.next_snap:
            self._snapshot()
            self.next_snap = _next(step, self.cfg.snapshot_every)
        if self.next_eval is not None and step >= self.next_eval:
            self.run_eval()
            self.next_eval = _next(step, self.cfg.eval_every)
        return not (self.budget and time.time() - self.start > self.budget)

    def run_eval(self) -> list[dict[str, Any]]:
        """Evaluate the current policy; append to ``eval.csv`` and redraw the curve. The
        global generators are put back afterwards: building and playing the evaluation's
        agents must not change the training's draws (a resumed run, whose agents are
        built anew, then equals an uninterrupted one)."""
        saved = (torch.get_rng_state(), np.random.get_state(), random.getstate())
        try:
            return self._evaluate()
        finally:
            torch.set_rng_state(saved[0])
            np.random.set_state(saved[1])
            random.setstate(saved[2])

    def _evaluate(self) -> list[dict[str, Any]]:
        began = time.perf_counter()
        learner = PPOPolicy(self.model.policy, "ppo", rules=self.cfg.rules())
        rows = evaluate(self.cfg.rules(), learner, self.cfg.eval_opponents, self.cfg.eval_deals,
                        self.num_timesteps, seed=self.cfg.seed, cache=self.cache)
        self.model.policy.set_training_mode(False)
        append_rows(self.run_dir / "eval.csv", rows)
        plot_curve(self.run_dir / "eval.csv", self.run_dir / "learning_curve.png")
        for row in rows:
            self.logger.record(f"eval/win_vs_{row['opponent']}", row["win"])
            self.logger.record(f"eval/score_diff_vs_{row['opponent']}", row["score_diff"])
        if self.bar is not None:
            self.bar.write(f"step {self.num_timesteps}:\n{format_table(rows)}")
        self.seconds["eval"] += time.perf_counter() - began
        return rows

    def _on_rollout_end(self) -> None:
        self.rollout_complete = True
        self._anneal()
        now = time.perf_counter()
        self.seconds["rollout"] += now - self.mark
        self.mark = now
        for kind, seen in self.outcomes.items():
            if seen:
                for j, metric in enumerate(("win", "reward", "opened")):
                    self.logger.record(f"selfplay/{metric}_vs_{kind}",
                                       sum(o[j] for o in seen) / len(seen))
        for key, value in self.profile().items():
            self.logger.record(f"time/{key}", value)
        if self.cfg.pool_focus:
            self.pool.focus({kind: sum(o[0] for o in seen) / len(seen)
                             for kind, seen in self.outcomes.items() if seen},
                            self.cfg.pool_focus)
            for kind, chance in self.pool.mix().items():
                self.logger.record(f"pool/{kind}", chance)
        if self.bar is not None and "greedy" in self.outcomes:
            seen = self.outcomes["greedy"]
            self.bar.set_postfix(win_vs_greedy=f"{sum(o[0] for o in seen) / len(seen):.2f}",
                                 refresh=False)

    def _anneal(self) -> None:
        """Set the step size and entropy weight of the coming update (``train.schedule``)."""
        if not schedule.is_scheduled(self.cfg):
            return
        share = schedule.budget_share(self.num_timesteps, 0, self.cfg.total_steps,
                                      time.time() - self.ppo_start, self.ppo_budget)
        now = schedule.settings(self.cfg, share)
        self.model.lr_schedule = ConstantSchedule(now.learning_rate)
        self.model.ent_coef = now.ent_coef
        self.annealed_share = share

    def _log_annealed(self) -> None:
        """Log the annealed values of the update just made, beside SB3's
        ``train/learning_rate`` of the same update."""
        if self.annealed_share is not None:
            self.logger.record("train/schedule_share", self.annealed_share)
            self.logger.record("train/ent_coef", self.model.ent_coef)

    def profile(self) -> dict[str, float]:
        """Seconds per part of this session so far, and learner steps per second."""
        env, opponents = self.env.seconds, self.pool.seconds
        reference = self.env.reference_seconds
        rollout = self.seconds["rollout"] - self.seconds["eval"]
        steps = self.num_timesteps - self.first_step
        return {"env_core_s": round(env - opponents - reference, 2),
                "opponents_s": round(opponents, 2), "reference_s": round(reference, 2),
                "learner_forward_s": round(max(0.0, rollout - env), 2),
                "update_s": round(self.seconds["update"], 2),
                "eval_s": round(self.seconds["eval"], 2),
                "steps_per_s": round(steps / max(1e-9, time.time() - self.start), 1)}

    def close(self, kept: int | None = None, played: int | None = None) -> None:
        """Close the bar, its last line showing the step count the checkpoint keeps
        (``kept``), the same as the run's summary; a session stopped inside a rollout says
        how many steps it played past that point, which a resumed run plays again."""
        if self.bar is not None:
            if kept is not None:
                extra = {} if played in (None, kept) else {"played": played}
                self.bar.set_postfix(steps=kept, **extra, refresh=False)
                self.bar.refresh()
            self.bar.close()
            self.bar = None
