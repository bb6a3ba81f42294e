"""Strength benchmark: a PPO run's final checkpoint against greedy and planner.

    zolik strength ppo --train-minutes 58          # train on the default config, then
    zolik strength ppo --run runs/ppo_cz2p__1__... # evaluate an existing run

The checkpoint plays twice: sampling its moves (as in training) and with its most likely
move (``:argmax``). Duplicate deals on held-out seeds (``EVAL_SEED_START + 2·10^6`` on,
distinct from the training deals and from the periodic and main-job evaluations); the
verdict is "beats" when the 95% interval of the score difference (points per deal, PPO
minus baseline) lies above 0. Also prints the run's training throughput and where the time went (the
``time/*`` profile logged per rollout). Writes ``strength.json`` into the run dir.
"""

from __future__ import annotations

import csv
import json
import pathlib
import time
from collections.abc import Sequence
from typing import Any

from agents.learned import ppo as ppo_agent
from train.config import PPOConfig
from train.evaluate import PLAY_MODES, evaluate_checkpoint, format_table, verdict
from train.ppo import read_config, run
from zolik_env.seeds import EVAL_SEED_START

STRENGTH_SEED_START = EVAL_SEED_START + 2_000_000


def profile(run_dir: pathlib.Path) -> dict[str, float]:
    """The last ``time/*`` values of each session's log, summed over sessions."""
    total: dict[str, float] = {}
    for log in sorted(run_dir.glob("progress*.csv")):
        rows = list(csv.DictReader(log.open()))
        if not rows:
            continue
        for key, value in rows[-1].items():
            if key.startswith("time/") and key.endswith("_s") and value:
                total[key[5:]] = total.get(key[5:], 0.0) + float(value)
        total["steps"] = float(rows[-1]["time/total_timesteps"])
    return total


def describe(prof: dict[str, float]) -> str:
    parts = ("env_core_s", "opponents_s", "reference_s", "learner_forward_s", "update_s",
             "eval_s")
    busy = sum(prof.get(k, 0.0) for k in parts) or 1.0
    lines = [f"{prof.get('steps', 0):.0f} learner steps; time split:"]
    lines += [f"  {k[:-2]:<16} {prof.get(k, 0.0):8.1f} s  {100 * prof.get(k, 0.0) / busy:5.1f}%"
              for k in parts]
    train_s = busy - prof.get("eval_s", 0.0)
    lines.append(f"  training throughput {prof.get('steps', 0) / max(train_s, 1e-9):.0f} "
                 f"learner steps/s excluding evaluation")
    return "\n".join(lines)


def train_run(cfg: PPOConfig, minutes: float) -> pathlib.Path:
    """Train a run of ``cfg`` for ``minutes``; the run dir."""
    return run(cfg, minutes=minutes).run_dir


def benchmark(run_dir: pathlib.Path, deals: int, opponents: Sequence[str],
              modes: Sequence[str] = PLAY_MODES) -> dict[str, Any]:
    """Play the run's checkpoint against each baseline in each play mode (sampling its
    moves, and its most likely move), print the table, the verdicts and the time profile,
    and write ``strength.json`` into ``run_dir``; its contents."""
    cfg = read_config(run_dir)
    checkpoint = ppo_agent.resolve_checkpoint(run_dir)
    began = time.time()
    rows = evaluate_checkpoint(checkpoint, cfg.rules(), opponents, deals,
                               ppo_agent_step(checkpoint), cfg.seed, STRENGTH_SEED_START,
                               modes, progress=True)
    print(f"{checkpoint}: {deals} duplicate deals per baseline, seeds from "
          f"{STRENGTH_SEED_START} ({time.time() - began:.0f} s)")
    print(format_table(rows))
    for row in rows:
        print(verdict(row))
    prof = profile(run_dir)
    print(describe(prof))
    result = {"checkpoint": str(checkpoint), "deals": deals, "seed_start": STRENGTH_SEED_START,
              "rows": rows, "profile": prof}
    (run_dir / "strength.json").write_text(json.dumps(result, indent=1))
    return result


def ppo_agent_step(checkpoint: pathlib.Path) -> int:
    meta = json.loads(checkpoint.with_suffix(".json").read_text())
    return int(meta.get("step", 0))
