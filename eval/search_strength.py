"""The search agent's strength against its per-decision budget (``zolik strength search``).

For each budget (``rollouts`` per decision, ``agents.search.pimc``) two measurements:

- **Strength**: ``pimc:rollouts=N`` against an opponent (default the planner) on held-out
  duplicate deals (``eval.tournament``: each deal once per seating), the mean score
  difference per deal with its 95% bootstrap interval and the win share.
- **Time**: the seconds one decision takes on one core, timed in this process on the
  decisions of a few planner-vs-planner deals (other seeds): the mean over all
  decisions (most are lays or moves with one candidate, which cost no search) and the
  mean and largest over the decisions that searched.

Writes ``search_strength.md`` (the table), ``search_strength.json`` and
``search_strength.png`` (difference against seconds per searched decision) into ``out``,
again after each budget. With ``out``, each budget's deals are also kept as they finish,
chunk by chunk (``out/pimc_N``: the tournament's chunk store and report, and the timing),
so a run that is stopped or killed loses at most the chunks in play: the same command
again reads back what was done and plays the rest. A thousand deals at 512 rollouts are
several core-hours; this is what lets them be played over several sittings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from agents.registry import make_agent
from agents.search.pimc import PIMCPolicy
from agents.search.pimc import make as make_pimc
from eval.tournament import evaluate
from zolik_env.rummy import game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.options import RuleSet

TIMING_SEED = 2_005_000_000  # deals the timing pass plays (apart from the strength seeds)
STRENGTH_SEED = 2_004_000_000


@dataclass(frozen=True)
class BudgetRow:
    """One budget's measurements (differences in points per deal, search minus opponent)."""

    rollouts: int
    deals: int
    difference: float
    low: float
    high: float
    win_share: float
    seconds_per_decision: float
    seconds_per_search: float
    slowest_search: float
    searched_share: float
    overruled_share: float  # of searched decisions, those the search changed


def decision_points(rules: RuleSet, deals: int, seed: int) -> list[InfoState]:
    """The information states of every decision of ``deals`` planner-vs-planner deals."""
    planner = make_agent("planner", rules)
    out = []
    for deal in range(deals):
        state = game.init(rules, [seed + deal])
        while not state.done[0]:
            seat = int(state.current[0])
            info = InfoState(rules, state, seat)
            out.append(info)
            move = planner.act(info.observation(), info.legal_mask(), np.random.default_rng(0))
            state, _ = game.step(rules, state, np.array([move]))
    return out


def time_decisions(agent: PIMCPolicy, points: Sequence[InfoState],
                   ) -> tuple[float, float, float, float, float]:
    """(mean seconds per decision, mean and largest per searched decision, searched share,
    overruled share of the searched ones) of ``agent`` on ``points``."""
    spent, searched, overruled = [], [], 0
    for i, info in enumerate(points):
        obs, mask = info.observation(), info.legal_mask()
        start = time.perf_counter()
        move = agent.act_info(info, np.random.default_rng(i))
        spent.append(time.perf_counter() - start)
        # the policy's move as act_info drew it: its first draw from a generator seeded alike
        policy_move = int(agent.prior.act(obs, mask, np.random.default_rng(i)))
        options = agent.candidates(obs, mask, policy_move)
        if len(options) > 1:
            searched.append(spent[-1])
            overruled += move != options[0]
    if not searched:
        searched = [0.0]
    return (float(np.mean(spent)), float(np.mean(searched)), float(np.max(searched)),
            len(searched) / len(points), overruled / len(searched))


def measure(rules: RuleSet, budgets: Sequence[int], deals: int, opponent: str = "planner",
            workers: int = 1, timing_deals: int = 3, policy: str = "planner",
            progress: Callable[[str], None] | None = None,
            out: Path | None = None) -> Iterator[BudgetRow]:
    """One ``BudgetRow`` per budget (see the module docstring), yielded as each is done;
    with ``out``, resumed from what an earlier run of the same measurement kept there."""
    points: list[InfoState] = []
    for rollouts in budgets:
        spec = f"pimc:rollouts={rollouts},policy={policy}"
        store = None if out is None else Path(out) / f"pimc_{rollouts}"
        timing = _kept_timing(store, timing_deals)
        if timing is None:
            points = points or decision_points(rules, timing_deals, TIMING_SEED)
            if progress:
                progress(f"{spec}: timing {len(points)} decisions")
            timing = time_decisions(make_pimc(rules, spec.partition(":")[2]), points)
            _keep_timing(store, timing_deals, timing)
        if progress:
            progress(f"{spec}: {deals} duplicate deals against {opponent}")
        kept = {} if store is None else {"write": True, "out": str(store), "resume": True}
        result = evaluate([spec, opponent], rules, deals=deals, workers=workers,
                          seed_start=STRENGTH_SEED, progress=progress is not None, **kept)
        pair = result.summary.pairs[0]
        diff = pair["difference"]
        sign = 1.0 if pair["first"] == spec else -1.0
        low, high = sorted((sign * diff["low"], sign * diff["high"]))
        win = pair["win_rate"]["mean"] if sign > 0 else 1.0 - pair["win_rate"]["mean"]
        yield BudgetRow(rollouts, deals, sign * diff["mean"], low, high, win, *timing)


def _kept_timing(store: Path | None, timing_deals: int) -> tuple[float, ...] | None:
    """The timing an earlier run kept in ``store`` for the same timing deals, else None
    (also for a file that does not read: the timing is then measured again)."""
    path = None if store is None else store / "timing.json"
    if path is None or not path.exists():
        return None
    try:
        kept = json.loads(path.read_text())
        timing = tuple(float(t) for t in kept["timing"])
    except (ValueError, KeyError, TypeError):
        return None
    return timing if kept.get("timing_deals") == timing_deals and len(timing) == 5 else None


def _keep_timing(store: Path | None, timing_deals: int, timing: tuple[float, ...]) -> None:
    if store is None:
        return
    store.mkdir(parents=True, exist_ok=True)
    tmp = store / ".timing.json.tmp"
    tmp.write_text(json.dumps({"timing_deals": timing_deals, "timing": list(timing)}))
    tmp.replace(store / "timing.json")


def table(rows: Sequence[BudgetRow], opponent: str) -> str:
    lines = [f"| rollouts | deals | vs {opponent} (points/deal) | 95% interval | win share "
             "| s/decision | s/searched decision (mean, max) | searched | overruled |",
             "|---:|---:|---:|---|---:|---:|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.rollouts} | {r.deals} | {r.difference:+.2f} | [{r.low:+.2f}, "
                     f"{r.high:+.2f}] | {r.win_share:.3f} | {r.seconds_per_decision:.3f} | "
                     f"{r.seconds_per_search:.3f}, {r.slowest_search:.3f} | "
                     f"{r.searched_share:.0%} | {r.overruled_share:.0%} |")
    return "\n".join(lines)


def plot(rows: Sequence[BudgetRow], opponent: str, path: Path) -> None:
    """Difference against seconds per searched decision, with the intervals."""
    x = np.array([r.seconds_per_search for r in rows])
    y = np.array([r.difference for r in rows])
    err = np.array([[r.difference - r.low for r in rows], [r.high - r.difference for r in rows]])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(x, y, yerr=err, marker="o", capsize=4)
    for r in rows:
        ax.annotate(f"{r.rollouts} rollouts", (r.seconds_per_search, r.difference),
                    textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("seconds per searched decision (one core)")
    ax.set_ylabel(f"points per deal vs {opponent}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write(rows: Sequence[BudgetRow], opponent: str, out: Path) -> Path:
    """The table, the rows as JSON and the plot, into ``out``; returns the table's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "search_strength.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    plot(rows, opponent, out / "search_strength.png")
    path = out / "search_strength.md"
    path.write_text(table(rows, opponent) + "\n")
    return path
