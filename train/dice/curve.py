"""Greedy learning curve of a Pět kostek PPO run: every checkpoint played on the same dice.

The score in a run's ``progress.csv`` is that of the policy as it trains, sampling its
moves; the checkpoint played with its likeliest move (as ``zolik dice eval`` and
``ppo:PATH`` play it) scores far higher, so the log alone undersells a run. ``curve``
plays ``checkpoints/step_N.zip`` and ``final.zip`` greedily on the same game seeds and
writes, into the run dir:

- ``greedy_curve.csv``: ``steps, minutes, games, mean, ci95, fraction_of_optimum``;
- ``learning_curve.png``: the greedy means with their 95% intervals and the training
  log's score against training minutes, with the optimum as a line.

The command is ``zolik dice curve RUN_DIR [--games 5000]``.
"""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Callable
from typing import Any

from train.runlog import checkpoints, step_of

CURVE_CSV = "greedy_curve.csv"
CURVE_PNG = "learning_curve.png"


def _minutes_at(log: list[dict[str, str]], steps: int) -> float:
    """Training minutes when the log first reached ``steps`` (its last row if never)."""
    for row in log:
        if int(row["steps"]) >= steps:
            return float(row["seconds"]) / 60
    return float(log[-1]["seconds"]) / 60 if log else 0.0


def _snapshots(run_dir: pathlib.Path) -> list[tuple[int, pathlib.Path]]:
    """``(steps, path)`` of every checkpoint, then ``final.zip`` (at the last log step)."""
    out = [(step_of(path), path) for path in checkpoints(run_dir / "checkpoints")]
    final = run_dir / "final.zip"
    if final.exists():
        steps = max([s for s, _ in out], default=0)
        out = [(s, p) for s, p in out if s < steps] + [(steps, final)]
    return out


def curve(run_dir: str | pathlib.Path, games: int = 5000, seed: int = 0,
          say: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Play every snapshot of ``run_dir`` greedily on ``games`` games; write and return the
    rows of ``greedy_curve.csv`` (and the plot). Raises ``ValueError`` naming a run dir
    without a config or a snapshot."""
    from agents.dice.players import PPOAgent
    from eval.harness import play_dice
    from train.dice.ppo import load_config
    from zolik_env.dice import evaluate, solver

    run_dir = pathlib.Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise ValueError(f"not a dice run dir (no config.yaml): {run_dir}")
    snapshots = _snapshots(run_dir)
    if not snapshots:
        raise ValueError(f"no checkpoint or final.zip in {run_dir}")
    rules = load_config(run_dir / "config.yaml").rules()
    optimum = (solver.expected_score(rules.joker, rules.yahtzee_bonus, rules.fixed_order)
               if rules.table == "classic" else None)
    log = _read(run_dir / "progress.csv")
    rows = []
    for steps, path in snapshots:
        if say is not None:
            say(f"playing {games} games with {path.relative_to(run_dir)}")
        summary = evaluate.summarise(play_dice(rules, PPOAgent(str(path)), games, seed), optimum)
        rows.append({"steps": steps, "minutes": round(_minutes_at(log, steps), 2),
                     "games": games, "mean": round(summary["mean"], 3),
                     "ci95": round(summary["ci95"], 3),
                     "fraction_of_optimum": round(summary.get("fraction_of_optimum", 0.0), 4)})
    with (run_dir / CURVE_CSV).open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, log, optimum, run_dir / CURVE_PNG)
    return rows


def _read(path: pathlib.Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def _plot(rows: list[dict[str, Any]], log: list[dict[str, str]], optimum: float | None,
          out: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if log:
        ax.plot([float(r["seconds"]) / 60 for r in log],
                [float(r["mean_score_last_1000"]) for r in log],
                color="grey", lw=1, label="training policy, sampled (last 1,000 games)")
    ax.errorbar([r["minutes"] for r in rows], [r["mean"] for r in rows],
                yerr=[r["ci95"] for r in rows], marker="o", capsize=3,
                label=f"checkpoint, likeliest move ({rows[0]['games']:,} games, 95% CI)")
    if optimum is not None:
        ax.axhline(optimum, color="black", ls="--", lw=0.8, label=f"optimum {optimum:.1f}")
    ax.set(xlabel="training minutes", ylabel="mean score", title="Pět kostek PPO")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
