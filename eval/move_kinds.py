"""Where an agent gains or loses on the planner, by kind of move.

    zolik strength kinds --agent pretrained:cz_2p:argmax --deals 1000

For each kind of move (draw, meld or opening, lay-off, joker swap, undo, discard) the
agent's moves of that kind are compared with the planner's at the same decision:

- ``differ``: the share of the agent's moves of that kind that the planner, asked at the
  same point, would not have made (on the deals of the agent against the planner);
- ``worth``: the points per deal those moves bring: the agent's margin on the planner
  minus the margin of the same agent with its moves of that kind replaced by the
  planner's, on the same duplicate deals (per-deal differences, bootstrap interval).

A move's kind is the kind of the move the agent chose, so "discard" covers the decisions
where the agent discarded, whatever the planner would have done there. Both players act
on their seat's observation only; the replaced agent acts as the agent does elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.base import is_oracle_policy, is_search_policy
from agents.kind_swap import KINDS, KindSwap
from agents.registry import make_agent
from eval.harness import play_match
from eval.stats import pair_difference, summarize
from zolik_env.rummy.options import RuleSet
from zolik_env.seeds import EVAL_SEED_START

KINDS_SEED_START = EVAL_SEED_START + 4_000_000  # held-out deals of their own


def study(rules: RuleSet, agent: str, deals: int, seed_start: int = KINDS_SEED_START,
          kinds: Sequence[str] = tuple(KINDS), progress: bool = False) -> list[dict[str, Any]]:
    """One row per kind: ``kind``, ``moves`` (per deal), ``differ`` (share) and
    ``worth`` (points per deal, with ``low`` and ``high``); first a row ``all`` with the
    agent's margin on the planner. ``progress``: a bar over the matches (one, then one per
    kind)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"kinds {unknown}: choose from {', '.join(KINDS)}")
    probe = make_agent(agent, rules)
    if is_search_policy(probe) or is_oracle_policy(probe):
        raise ValueError(f"agent {agent!r} does not act on an observation alone (a search or "
                         f"an oracle): its moves cannot be swapped for the planner's")
    seeds = np.arange(seed_start, seed_start + deals)
    planner = make_agent("planner", rules)
    with tqdm(total=1 + len(kinds), desc="matches", unit="match", disable=not progress) as bar:
        base = KindSwap(make_agent(agent, rules), make_agent("planner", rules))
        match = play_match(rules, [base, planner], seeds)
        bar.update()
        margin, played = pair_difference(match), deals * match.rotations.shape[0]
        rows = [{"kind": "all", "moves": float(base.moves.sum() / played),
                 "differ": float(base.differ.sum() / max(base.moves.sum(), 1)),
                 **_worth(margin)}]
        names = list(KINDS)
        for kind in kinds:
            k = names.index(kind)
            swapped = KindSwap(make_agent(agent, rules), make_agent("planner", rules), [k])
            other = pair_difference(play_match(rules, [swapped, planner], seeds))
            bar.update()
            rows.append({"kind": kind, "moves": float(base.moves[k] / played),
                         "differ": float(base.differ[k] / max(base.moves[k], 1)),
                         **_worth(margin - other)})
    return rows


def _worth(values: np.ndarray) -> dict[str, float]:
    s = summarize(values, 0.95, 2000, 0)
    return {"worth": s["mean"], "low": s["low"], "high": s["high"]}


def format_rows(rows: Sequence[dict[str, Any]], agent: str) -> str:
    """The table ``study`` measured, as text."""
    lines = [f"{agent} against the planner, by kind of its moves (moves: per deal and "
             f"seating; differ: the planner would have moved otherwise; worth: the "
             f"margin minus the margin with those moves the planner's)",
             f"{'kind':<11} {'moves':>6} {'differ':>7}  points per deal [95% interval]"]
    for r in rows:
        label = "margin" if r["kind"] == "all" else r["kind"]
        lines.append(f"{label:<11} {r['moves']:6.1f} {100 * r['differ']:6.1f}%  "
                     f"{r['worth']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]")
    return "\n".join(lines)
