"""Plots of an evaluation (matplotlib, Agg backend): score distributions, the pairwise
win-rate heatmap, and the rating table with intervals."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from eval.result import EvalResult


def seat_scores(result: EvalResult) -> dict[str, np.ndarray]:
    """Per agent, every deal score it got at any seat (all matches, rotations)."""
    out: dict[str, list[np.ndarray]] = {name: [] for name in result.names}
    for match in result.matches.values():
        for a, name in enumerate(match.agents):
            out[name].append(match.scores[:, match.rotations == a].ravel())
    return {name: np.concatenate(v) if v else np.zeros(0) for name, v in out.items()}


def plot_scores(result: EvalResult, path: Path) -> None:
    scores = seat_scores(result)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    everything = np.concatenate(list(scores.values()))
    bins = np.histogram_bin_edges(everything, bins=30)
    for name, values in scores.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5, label=name)
    lower = result.config.rules().lower_is_better
    ax.set_xlabel(f"deal score ({'lower' if lower else 'higher'} is better)")
    ax.set_ylabel("seat-deals")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_win_matrix(result: EvalResult, path: Path) -> None:
    matrix = result.summary.win_matrix
    n = len(result.names)
    fig, ax = plt.subplots(figsize=(1.2 * n + 2.5, 1.0 * n + 1.5))
    image = ax.imshow(np.ma.masked_invalid(matrix), vmin=0, vmax=1, cmap="RdBu")
    for i, j in np.ndindex(n, n):
        if not np.isnan(matrix[i, j]):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center")
    ax.set_xticks(range(n), result.names, rotation=30, ha="right")
    ax.set_yticks(range(n), result.names)
    ax.set_xlabel("opponent")
    ax.set_title("duplicate win rate of row vs column")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_ratings(result: EvalResult, path: Path) -> None:
    rows = result.summary.ratings
    fig, ax = plt.subplots(figsize=(6, 0.5 * len(rows) + 1.5))
    mu = np.array([r["mu"] for r in rows])
    err = np.array([[r["mu"] - r["low"] for r in rows], [r["high"] - r["mu"] for r in rows]])
    ax.errorbar(mu, np.arange(len(rows)), xerr=err, fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), [r["agent"] + (" (privileged)" if r.get("privileged") else "")
                                     for r in rows])
    ax.set_xlabel(f"openskill mu ({int(result.config.confidence * 100)}% interval)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_plots(result: EvalResult, out: Path) -> list[str]:
    """Write the three plots into ``out``; returns their file names."""
    plot_scores(result, out / "scores.png")
    plot_win_matrix(result, out / "win_matrix.png")
    plot_ratings(result, out / "ratings.png")
    return ["scores.png", "win_matrix.png", "ratings.png"]
