"""Statistics of finished solitaire games: per-game totals, boxes and bonuses, and their
summary (used by ``zolik dice eval``; the games are played by ``eval.harness.play_dice``).

Imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from zolik_env.dice import game
from zolik_env.dice.rules import BOX_NAMES, NUM_BOXES, NUM_UPPER, UPPER_BONUS_THRESHOLD, DiceRules
from zolik_env.dice.state import State


@dataclasses.dataclass(frozen=True)
class GameStats:
    scores: np.ndarray  # I32 (N,) final totals
    boxes: np.ndarray  # I16 (N, 13) raw box scores (column 0)
    upper_bonus: np.ndarray  # bool (N,) the upper bonus was earned
    yahtzee_bonuses: np.ndarray  # I16 (N,) number of +100 bonuses


def game_stats(rules: DiceRules, finals: list[State]) -> GameStats:
    """Seat 0's results in the finished games of ``finals`` (batches, in order)."""
    boxes = np.concatenate([s.boxes[:, 0, :NUM_BOXES] for s in finals])
    return GameStats(
        scores=np.concatenate([game.totals(rules, s)[:, 0] for s in finals]),
        boxes=boxes,
        upper_bonus=boxes[:, :NUM_UPPER].sum(axis=1) >= UPPER_BONUS_THRESHOLD,
        yahtzee_bonuses=np.concatenate([s.yahtzee_bonuses[:, 0] for s in finals]),
    )


def summarise(stats: GameStats, optimum: float | None = None) -> dict[str, Any]:
    """Mean ± 95% interval, per-box means, bonus rates and fraction of ``optimum``."""
    n = stats.scores.size
    mean = float(stats.scores.mean())
    half = float(1.96 * stats.scores.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    out: dict[str, Any] = {
        "games": n,
        "mean": mean,
        "ci95": half,
        "boxes": {
            name: float(v) for name, v in zip(BOX_NAMES, stats.boxes.mean(axis=0), strict=True)
        },
        "upper_bonus_rate": float(stats.upper_bonus.mean()),
        "yahtzee_bonus_mean": float(stats.yahtzee_bonuses.mean()),
    }
    if optimum is not None:
        out["optimum"] = optimum
        out["fraction_of_optimum"] = mean / optimum
    return out


def format_summary(summary: dict[str, Any], other: dict[str, Any] | None = None) -> str:
    """Text report; with ``other`` (e.g. the optimal agent), a column of differences."""
    lines = [f"games {summary['games']}: mean {summary['mean']:.2f} ± {summary['ci95']:.2f}"]
    if "optimum" in summary:
        lines[0] += f"  ({100 * summary['fraction_of_optimum']:.2f}% of {summary['optimum']:.4f})"
    rows = [*summary["boxes"].items(), ("upper_bonus_rate", summary["upper_bonus_rate"]),
            ("yahtzee_bonuses", summary["yahtzee_bonus_mean"])]  # fmt: skip
    ref = {**(other or {}).get("boxes", {})}
    if other:
        ref |= {"upper_bonus_rate": other["upper_bonus_rate"],
                "yahtzee_bonuses": other["yahtzee_bonus_mean"]}  # fmt: skip
    lines.append(f"{'box':<18}{'agent':>9}" + (f"{'reference':>11}{'diff':>9}" if other else ""))
    for name, value in rows:
        line = f"{name:<18}{value:>9.3f}"
        if other:
            line += f"{ref[name]:>11.3f}{value - ref[name]:>9.3f}"
        lines.append(line)
    return "\n".join(lines)
