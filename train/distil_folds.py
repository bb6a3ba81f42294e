"""What a distillation carries from a round's labels to labels it was not taught.

    zolik strength distil --run runs/exit_cz2p --round 1 --weights 4,8 --repeats plain,renamed

An expert-iteration round (``train.expert_iteration``) teaches its network the search's
labels once and reports, on the labels' held-out tail, the share of the search's
corrections the new network plays. That share mixes two things: how much of the
corrections it was taught the network can play at all (``taught``), and how much of that
carries over to positions it was not taught (``held-out``). This module distils a finished
round's stored labels again, from the round's own start network, with other settings,
on ``folds`` held-out blocks (each the ``HOLDOUT`` share of the labels, at ``folds``
places), so that settings are compared on the same labels without labelling anything
new. Every fold of every setting starts from the same weights and seed; the same
arguments give the same table.
"""

from __future__ import annotations

import dataclasses
import pathlib
import tempfile
import time
from typing import Any

import numpy as np

from train import expert_iteration as exit_
from train.imitation import TeacherData

REPEATS = ("plain", "renamed")  # how an overruled label is repeated
TAUGHT_SAMPLE = 4000  # training labels on which the taught share is measured


@dataclasses.dataclass(frozen=True)
class FoldRow:
    """One setting on one held-out block."""

    weight: int
    repeats: str
    fold: int
    taught_corrected: float  # share of the taught corrections the new network plays
    corrections: int  # held-out labels that overrule the start network
    corrected: float  # share of those the new network plays
    kept: int  # held-out labels that keep the start network's move
    still_kept: float  # share of those it still plays
    seconds: float


def start_network(run: pathlib.Path, r: int) -> pathlib.Path:
    """The network round ``r`` of the run in ``run`` started from."""
    from agents.learned.ppo import resolve_checkpoint

    if r == 1:
        return pathlib.Path(resolve_checkpoint(exit_.ExitPlan(**plan_of(run)).init))
    return exit_.round_dir(run, r - 1) / "model.zip"


def plan_of(run: pathlib.Path) -> dict[str, Any]:
    import json

    path = run / "exit.json"
    if not path.is_file():
        raise ValueError(f"{run}: not an expert-iteration run (no exit.json)")
    return json.loads(path.read_text())


def rotated(data: TeacherData, fold: int, folds: int) -> TeacherData:
    """``data`` turned so that its ``fold``-th block of ``folds`` ends it: fold 0 is the
    labels as stored (the round's own held-out tail)."""
    shift = fold * len(data) // folds
    return TeacherData(**{f.name: np.roll(getattr(data, f.name), -shift, axis=0)
                          for f in dataclasses.fields(TeacherData)})


def fold_row(run: pathlib.Path, r: int, raw: TeacherData, fold: int, folds: int,
             weight: int, repeats: str, epochs: int, progress: bool = False) -> FoldRow:
    """Distil ``raw`` turned to ``fold`` with ``weight`` and ``repeats`` from the round's
    start network; what the new network plays of its taught and held-out labels."""
    from agents.learned import legacy
    from agents.learned.build import with_discard_head
    from train.imitation import clone, with_features
    from train.ppo import read_config, save_checkpoint
    from train.suit_copies import renamed_repeats

    began = time.time()
    plan = exit_.ExitPlan(**plan_of(run))
    cfg = read_config(run)
    before = start_network(run, r)
    data = rotated(raw, fold, folds)
    over = exit_.overruled(data, cfg, before)
    seed = plan.seed * exit_.ROUND_SEED_STRIDE + r
    taught = data
    if weight > 1:
        taught = (renamed_repeats(data, over, weight, cfg.rules(), seed, exit_.HOLDOUT)
                  if repeats == "renamed" else exit_.stressed(data, over, weight))
    taught = with_features(taught, cfg.rules(), cfg.obs_features, progress)
    model = legacy.load_model(before, device="cpu")
    if plan.discard_head:
        with_discard_head(model, plan.discard_head, cfg.rules(), seed=seed)
    clone(model.policy, taught, epochs=epochs, learning_rate=plan.learning_rate, seed=seed,
          progress=progress, holdout=exit_.HOLDOUT)
    with tempfile.TemporaryDirectory() as folder:
        after = save_checkpoint(model, cfg, pathlib.Path(folder) / "model.zip")
        n_train = int(len(data) * (1 - exit_.HOLDOUT))
        sample = np.random.default_rng(0).choice(n_train, min(TAUGHT_SAMPLE, n_train),
                                                 replace=False)
        on_taught = _plays(data, cfg, before, after, np.sort(sample))
        held = _plays(data, cfg, before, after, np.arange(n_train, len(data)))
    return FoldRow(weight, repeats, fold, on_taught["corrected"], held["corrections"],
                   held["corrected"], held["kept"], held["still_kept"], time.time() - began)


def _plays(data: TeacherData, cfg: Any, before: pathlib.Path, after: pathlib.Path,
           rows: np.ndarray) -> dict[str, Any]:
    label = data.action[rows].astype(np.int64)
    old, new = (exit_.likeliest(data, cfg, net, rows) for net in (before, after))
    over = old != label
    return {"corrections": int(over.sum()), "corrected": _share(new[over] == label[over]),
            "kept": int((~over).sum()), "still_kept": _share(new[~over] == label[~over])}


def _share(hits: np.ndarray) -> float:
    return float(hits.mean()) if hits.size else float("nan")


def compare(run: pathlib.Path, r: int, weights: list[int], repeats: list[str], folds: int,
            epochs: int, progress: bool = True) -> list[FoldRow]:
    """Every setting (weight x repeats) on every fold of round ``r``'s labels."""
    import torch

    if not exit_.round_dir(run, r).is_dir():
        raise ValueError(f"{run}: no round {r} (no {exit_.round_dir(run, r).name})")
    torch.set_num_threads(1)  # small batches: a second thread costs more than it gives
    raw = exit_.raw_labels(run, r)
    rows = []
    for weight in weights:
        for kind in repeats if weight > 1 else repeats[:1]:  # weight 1 repeats nothing
            for fold in range(folds):
                rows.append(fold_row(run, r, raw, fold, folds, weight, kind, epochs, progress))
                if progress:
                    row = rows[-1]
                    print(f"weight {weight}, {kind}, fold {fold + 1}/{folds}: held-out "
                          f"corrections played {row.corrected:.1%}, kept moves "
                          f"{row.still_kept:.1%} ({row.seconds:.0f} s)", flush=True)
    return rows


def table(rows: list[FoldRow]) -> str:
    """Per setting: the shares over all folds (held-out counts pooled), with 95% Wilson
    intervals."""
    lines = ["| weight | repeats | folds | taught corrections played | held-out corrections "
             "played | held-out kept moves still played |", "|---:|---|---:|---:|---:|---:|"]
    for key in dict.fromkeys((row.weight, row.repeats) for row in rows):
        mine = [row for row in rows if (row.weight, row.repeats) == key]
        taught = np.mean([row.taught_corrected for row in mine])
        corrected = _pooled([(row.corrected, row.corrections) for row in mine])
        kept = _pooled([(row.still_kept, row.kept) for row in mine])
        lines.append(f"| {key[0]} | {key[1]} | {len(mine)} | {taught:.1%} | {corrected} | "
                     f"{kept} |")
    return "\n".join(lines)


def _pooled(shares: list[tuple[float, int]]) -> str:
    hits = sum(round(share * n) for share, n in shares if n)
    n = sum(n for _, n in shares)
    if not n:
        return "-"
    low, high = wilson(hits, n)
    return f"{hits / n:.1%} [{low:.1%}, {high:.1%}] of {n:,}"


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``hits / n``."""
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)
