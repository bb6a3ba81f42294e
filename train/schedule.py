"""Annealed PPO settings: the step size and the entropy weight, from their start to their
final value as the session's budget is spent (``learning_rate_final``, ``ent_coef_final``).

A fine-tuned policy keeps moving at a constant step size: its periodic evaluations wander
around one level instead of settling. Lowering the step size towards the end of the
budget lets the last updates average the noise out instead of adding to it.

The share done is the larger of two, as the run stops at whichever budget ends first:

- steps: ``num_timesteps / total_steps``, counted from step 0 of the run, so a run bounded
  by steps follows the same schedule whether or not it was stopped and resumed;
- minutes: the share of the minutes this session had left once PPO began (the warm start
  excluded), so a session that resumes with a new budget anneals over that budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from train.config import PPOConfig


@dataclass(frozen=True, slots=True)
class Settings:
    """The annealed values for the next update."""

    learning_rate: float
    ent_coef: float


def is_scheduled(cfg: PPOConfig) -> bool:
    """Whether the config anneals anything."""
    return cfg.learning_rate_final is not None or cfg.ent_coef_final is not None


def budget_share(step: int, first_step: int, total_steps: int, elapsed_s: float,
                 budget_s: float | None) -> float:
    """How much of a session is done, 0..1: the larger of the steps share (from
    ``first_step`` to ``total_steps``) and the time share (``elapsed_s`` of ``budget_s``),
    since whichever reaches 1 first stops the run. ``budget_s`` None means no time budget;
    0 or less means it is spent (the warm start took it all)."""
    steps = (step - first_step) / (total_steps - first_step) if total_steps > first_step else 1.0
    if budget_s is None:
        time_share = 0.0
    elif budget_s <= 0:
        time_share = 1.0
    else:
        time_share = elapsed_s / budget_s
    return min(1.0, max(0.0, steps, time_share))


def linear(start: float, final: float | None, share: float) -> float:
    """``start`` moved ``share`` of the way to ``final`` (None: stays at ``start``)."""
    return start if final is None else start * (1.0 - share) + final * share


def settings(cfg: PPOConfig, share: float) -> Settings:
    """The step size and entropy weight when ``share`` of the budget is done."""
    return Settings(linear(cfg.learning_rate, cfg.learning_rate_final, share),
                    linear(cfg.ent_coef, cfg.ent_coef_final, share))
