"""Periodic evaluation of the learner against baselines, through ``eval.harness``.

Every evaluation plays ``deals`` duplicate deals (each once per seat rotation) from
held-out seeds: ``zolik_env.seeds.EVAL_SEED_START`` (2·10^9) on, while training deals are
drawn below 10^9. Rows of ``eval.csv`` (one per step and opponent) carry the learner's
win share and its mean reward difference to the opponent (points, higher = better),
each with a 95% cluster-bootstrap interval over deals (``eval.stats``).
"""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Policy
from agents.registry import make_agent
from eval import stats
from eval.harness import MatchResult, play_match
from zolik_env.rummy.options import RuleSet
from zolik_env.seeds import EVAL_SEED_START

FIELDS = ("steps", "opponent", "deals", "win", "win_low", "win_high",
          "score_diff", "score_diff_low", "score_diff_high")
PLAY_MODES = ("sample", "argmax")
"""How a checkpoint plays in ``evaluate_checkpoint``: sampling its move distribution (as it
plays while training) or always its most likely move."""


def summarize_match(match: MatchResult, steps: int, seed: int = 0) -> dict[str, Any]:
    """One ``eval.csv`` row for agent 0 (the learner) against agent 1."""
    win = stats.agent_values(match, stats.seat_metrics(match)["win"])[:, 0]
    diff = stats.pair_difference(match)
    w = stats.summarize(win, 0.95, 1000, seed)
    d = stats.summarize(diff, 0.95, 1000, seed)
    return {"steps": steps, "opponent": match.agents[1], "deals": match.num_deals,
            "win": w["mean"], "win_low": w["low"], "win_high": w["high"],
            "score_diff": d["mean"], "score_diff_low": d["low"], "score_diff_high": d["high"]}


def evaluate(rules: RuleSet, learner: Policy, opponents: Sequence[str], deals: int,
             steps: int, seed: int = 0, seed_start: int = EVAL_SEED_START,
             cache: dict[str, Policy] | None = None,
             progress: bool = False) -> list[dict[str, Any]]:
    """Rows of ``FIELDS``: ``learner`` against each baseline spec on held-out deals
    (``progress``: a bar over the baselines, for evaluations that take minutes)."""
    from tqdm import tqdm

    cache = {} if cache is None else cache
    seeds = seed_start + np.arange(deals, dtype=np.int64)
    rows = []
    bar = tqdm(opponents, desc=f"{deals} duplicate deals vs", unit="baseline",
               disable=not progress)
    for spec in bar:
        bar.set_postfix_str(spec)
        if spec not in cache:
            cache[spec] = make_agent(spec, rules)
        match = play_match(rules, [learner, cache[spec]], seeds, seed=seed, rng_scope="chunk",
                           names=["ppo", spec])
        rows.append(summarize_match(match, steps, seed))
    return rows


def evaluate_checkpoint(checkpoint: pathlib.Path, rules: RuleSet, opponents: Sequence[str],
                        deals: int, steps: int, seed: int, seed_start: int,
                        modes: Sequence[str] = PLAY_MODES,
                        progress: bool = False) -> list[dict[str, Any]]:
    """``evaluate`` rows of a checkpoint played in each of ``modes`` (``PLAY_MODES``), the
    mode in each row's ``"play"``; the same deals for every mode."""
    from agents.learned import ppo as ppo_agent

    return evaluate_modes(
        lambda argmax: ppo_agent.load(checkpoint, rules, deterministic=argmax), rules,
        opponents, deals, steps, seed, seed_start, modes, progress)


def evaluate_modes(learner_for: Callable[[bool], Policy], rules: RuleSet,
                   opponents: Sequence[str], deals: int, steps: int, seed: int,
                   seed_start: int, modes: Sequence[str] = PLAY_MODES,
                   progress: bool = False) -> list[dict[str, Any]]:
    """``evaluate`` rows of the learner ``learner_for(argmax)`` builds, in each of
    ``modes``, the mode in each row's ``"play"``; the same deals and opponents for all."""
    bad = sorted(set(modes) - set(PLAY_MODES))
    if bad or not modes:
        raise ValueError(f"play modes {bad or list(modes)}: choose from {', '.join(PLAY_MODES)}")
    cache: dict[str, Policy] = {}
    rows = []
    for mode in modes:
        for row in evaluate(rules, learner_for(mode == "argmax"), opponents, deals, steps,
                            seed=seed, seed_start=seed_start, cache=cache, progress=progress):
            rows.append({**row, "play": mode})
    return rows


def verdict(row: dict[str, Any], name: str = "PPO") -> str:
    """One line saying whether the score difference's interval separates ``name`` (with
    the row's play mode, if it has one) from the row's opponent, and by how much."""
    if row.get("play"):
        name = f"{name} ({row['play']})"
    gap = (f"{row['score_diff']:+.1f} [{row['score_diff_low']:+.1f}, "
           f"{row['score_diff_high']:+.1f}] points per deal")
    if row["score_diff_low"] > 0:
        return f"{name} beats {row['opponent']}: {gap}"
    if row["score_diff_high"] < 0:
        return (f"{name} trails {row['opponent']} by {-row['score_diff']:.1f} points per deal "
                f"({gap})")
    return f"{name} is not separated from {row['opponent']}: {gap}"


def append_rows(path: pathlib.Path, rows: list[dict[str, Any]],
                fields: Sequence[str] = FIELDS) -> None:
    """Append rows to ``eval.csv`` (header on first write)."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fields)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({k: (round(v, 5) if isinstance(v, float) else v)
                             for k, v in row.items()})


def read_rows(path: pathlib.Path) -> list[dict[str, Any]]:
    with path.open() as f:
        return [{k: (v if k == "opponent" else float(v)) for k, v in row.items()}
                for row in csv.DictReader(f)]


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of evaluation rows."""
    play = any("play" in r for r in rows)
    lines = [("play    " if play else "") + f"{'opponent':<10} {'deals':>5}  "
             f"{'win share [95% CI]':<24} {'score diff [95% CI]':<26}"]
    for r in rows:
        win = f"{r['win']:.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}]"
        diff = f"{r['score_diff']:+.1f} [{r['score_diff_low']:+.1f}, {r['score_diff_high']:+.1f}]"
        mode = f"{r.get('play', ''):<8}" if play else ""
        lines.append(f"{mode}{r['opponent']:<10} {int(r['deals']):>5}  {win:<24} {diff:<26}")
    return "\n".join(lines)


def plot_curve(eval_csv: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """Win share and score difference vs steps, one line per opponent, 95% bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_rows(eval_csv)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == name]
        x = [r["steps"] for r in mine]
        for ax, key in zip(axes, ("win", "score_diff"), strict=True):
            ax.plot(x, [r[key] for r in mine], marker="o", label=f"vs {name}")
            ax.fill_between(x, [r[f"{key}_low"] for r in mine], [r[f"{key}_high"] for r in mine],
                            alpha=0.2)
    axes[0].axhline(0.5, color="grey", lw=0.8, ls="--")
    axes[1].axhline(0.0, color="grey", lw=0.8, ls="--")
    axes[0].set(xlabel="learner steps", ylabel="win share (ties 1/2)", title="win share, 95% CI")
    axes[1].set(xlabel="learner steps", ylabel="points per deal vs opponent",
                title="mean score difference, 95% CI")
    for ax in axes:
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
