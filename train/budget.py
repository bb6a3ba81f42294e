"""The plan of a training session: what the warm start may spend of a time budget.

``zolik train --minutes M`` (or ``time_budget_minutes``) bounds the whole session, the warm
start included. Before anything runs, ``plan_session`` splits the budget: the teacher's
data gets at most ``TEACHER_SHARE`` of it, cloning at most ``CLONE_SHARE``, PPO the rest.
The teacher decisions and the cloning epochs are cut to what fits at the rates measured
below, and the run prints the plan (``Plan.describe``) before it starts, so a short budget
says what it will do instead of spending it all on the warm start. Without a budget the
config's figures stand and the plan says how long the warm start should take.

The plan's rates are figures of one machine (2 cores, shared, 2026-12-04): the planner's
decisions with their features, played in the training process, 6,000-11,000 per second;
cloning, 1,200-3,400 samples per second and epoch, the spread of a shared machine. A
dataset in the teacher cache costs nothing to collect. Cloning, the larger part, is then
fitted to the time really left: before it starts, ``probe_clone_rate`` times a few
forward and backward passes (no step: the weights do not move), and ``fit_clone`` keeps
the epochs, or failing that the decisions, that fit the rest of the warm start's share.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from typing import Any

import numpy as np

from train.config import PPOConfig
from train.imitation import TEACHER_SHARDS, TeacherData, cache_path

TEACHER_SHARE = 0.25  # of the budget, at most, for the teacher's data
CLONE_SHARE = 0.35  # of the budget, at most, for cloning (and a DAgger round)
TEACHER_PER_S = 6_000  # teacher decisions (with features) per second, in process
CLONE_PER_S = 3_000  # samples x epochs per second of cloning, for the plan
SPAWN_S = 30  # starting worker processes for the teacher's data
IN_PROCESS_BELOW = 100_000  # fewer decisions are played in the training process
MIN_DECISIONS = 2_000  # a warm start below this is not worth its time
# Cloning takes this much longer per sample than the probe's passes: Adam's step, the
# gradient clipping and the held-out check (1.9x measured on the machine above).
PROBE_OVERHEAD = 2.0


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a session will do: the warm start's decisions and epochs, how it plays them,
    and the seconds each part is expected to take."""

    budget_s: float | None  # None: no time budget
    teacher: str  # "": no warm start (from scratch, or a resumed run)
    decisions: int
    epochs: int
    dagger_decisions: int
    workers: int
    cached: bool
    teacher_s: float
    clone_s: float
    cut: bool  # the config's figures were cut to fit the budget

    @property
    def warm_s(self) -> float:
        return self.teacher_s + self.clone_s

    def describe(self, cfg: PPOConfig) -> str:
        """The plan as the lines a run prints before it starts."""
        budget = ("no time budget" if self.budget_s is None
                  else f"budget {self.budget_s / 60:.1f} min for the whole session")
        lines = [f"plan ({budget}):"]
        if not self.teacher:
            lines.append("  warm start: none")
        else:
            where = "from the teacher cache" if self.cached else (
                f"played in {self.workers} worker processes" if self.workers > 1
                else "played in this process")
            share = ("" if self.budget_s is None else
                     f", {100 * self.teacher_s / self.budget_s:.0f}% of the budget")
            lines.append(f"  teacher data: {self.decisions:,} {self.teacher} decisions, {where}"
                         f" (about {self.teacher_s:.0f} s{share})")
            share = ("" if self.budget_s is None else
                     f", {100 * self.clone_s / self.budget_s:.0f}% of the budget")
            dagger = (f", then a DAgger round of {self.dagger_decisions:,} decisions"
                      if self.dagger_decisions else "")
            lines.append(f"  cloning: {self.epochs} epoch{'s' * (self.epochs != 1)}{dagger} "
                         f"(about {self.clone_s:.0f} s{share})")
            if self.cut:
                lines.append(f"  (cut from the config's {cfg.teacher_decisions:,} decisions "
                             f"and {cfg.teacher_epochs} epochs to fit the budget)")
        if self.budget_s is None:
            lines.append(f"  PPO: until step {cfg.total_steps:,}")
            lines.append(f"  expected: warm start about {self.warm_s / 60:.1f} min, then PPO")
        else:
            ppo = max(0.0, self.budget_s - self.warm_s)
            lines.append(f"  PPO: the rest, about {ppo:.0f} s "
                         f"({100 * ppo / self.budget_s:.0f}% of the budget), or until step "
                         f"{cfg.total_steps:,}")
            lines.append(f"  expected: about {self.budget_s / 60:.1f} min in all")
        return "\n".join(lines)


def _fit(cfg: PPOConfig, budget_s: float | None) -> tuple[int, int, int]:
    """(decisions, epochs, dagger decisions) that fit the budget's shares."""
    decisions, epochs, dagger = cfg.teacher_decisions, cfg.teacher_epochs, cfg.dagger_decisions
    if budget_s is None:
        return decisions, epochs, dagger
    by_time = int(TEACHER_SHARE * budget_s * TEACHER_PER_S)
    by_clone = int(CLONE_SHARE * budget_s * CLONE_PER_S)  # one epoch must fit
    decisions = max(MIN_DECISIONS, min(decisions, by_time, by_clone))
    epochs = max(1, min(epochs, by_clone // max(1, decisions)))
    dagger = min(dagger, decisions // 2)
    return decisions, epochs, dagger


def plan_session(cfg: PPOConfig, minutes: float | None, warm: bool) -> Plan:
    """The plan of a session with ``minutes`` of budget (None or 0: none); ``warm``: the
    session starts a new run that warm-starts from ``cfg.teacher``."""
    budget_s = 60 * minutes if minutes else None
    if not (warm and cfg.teacher):
        return Plan(budget_s, "", 0, 0, 0, 1, False, 0.0, 0.0, False)
    decisions, epochs, dagger = _fit(cfg, budget_s)
    workers = 1 if decisions < IN_PROCESS_BELOW else max(1, cfg.torch_threads)
    path = cache_path(pathlib.Path(cfg.run_root) / "teacher_cache", cfg.rules(),
                      teacher=cfg.teacher, decisions=decisions, seed=cfg.seed, gamma=cfg.gamma,
                      reward=cfg.reward, shards=TEACHER_SHARDS)
    cached = path.exists()
    teacher_s = 0.0 if cached else (decisions + dagger) / (TEACHER_PER_S * workers) + (
        SPAWN_S if workers > 1 else 0)
    clone_s = (decisions * epochs + (decisions + dagger) * cfg.dagger_epochs * bool(dagger)
               ) / CLONE_PER_S
    cut = (decisions, epochs, dagger) != (cfg.teacher_decisions, cfg.teacher_epochs,
                                          cfg.dagger_decisions)
    return Plan(budget_s, cfg.teacher, decisions, epochs, dagger, workers, cached, teacher_s,
                clone_s, cut)


def probe_clone_rate(policy: Any, data: TeacherData, batches: int = 4,
                     batch_size: int = 512) -> float:
    """Samples per second that cloning ``data`` runs at on this machine now: a few
    forward and backward passes of the loss on its first rows, then the gradients are
    cleared (no optimizer step: the weights are as before); their rate divided by
    ``PROBE_OVERHEAD``."""
    import torch

    from train.imitation import _evaluate

    rows = np.arange(min(len(data), (batches + 1) * batch_size))
    parts = np.array_split(rows, max(1, len(rows) // batch_size))
    timed, start = 0, time.perf_counter()
    for i, part in enumerate(parts):  # the first pass only warms up
        values, log_prob, _ = _evaluate(policy, data, part)
        target = torch.as_tensor(data.ret[part])
        (-log_prob.mean() + torch.mean((values - target) ** 2)).backward()
        if i == 0 and len(parts) > 1:
            start = time.perf_counter()
        else:
            timed += len(part)
    policy.zero_grad(set_to_none=True)
    return timed / max(1e-9, time.perf_counter() - start) / PROBE_OVERHEAD


def fit_clone(data: TeacherData, epochs: int, rate: float, seconds: float | None
              ) -> tuple[TeacherData, int]:
    """The data and epochs of cloning that fit ``seconds`` at ``rate`` samples per second
    (``None``: no limit): fewer epochs first, then the first rows of the data (at least
    ``MIN_DECISIONS``), with one epoch."""
    if seconds is None:
        return data, epochs
    fits = int(max(0.0, seconds) * rate)
    if fits >= len(data):
        return data, max(1, min(epochs, fits // len(data)))
    keep = min(len(data), max(MIN_DECISIONS, fits))
    return TeacherData(*(getattr(data, f.name)[:keep] for f in dataclasses.fields(data))), 1
