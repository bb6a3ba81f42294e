"""What hidden information is worth at this table (``zolik strength oracle``).

Per preset, two privileged agents (``agents.search.oracle``) meet the same agent playing
from its seat's view, on held-out duplicate deals (seeds from ``ORACLE_SEED_START``,
every deal once per seating):

- ``oracle:planner`` against ``planner``: the planner's rules told the other hands;
- ``oracle:pimc:ARG`` against ``pimc:ARG``: the same search and budget, its rollouts
  played in the true deal instead of worlds sampled from the seat's belief.

Each difference (points per deal, oracle minus agent, 95% bootstrap interval) is the
**oracle gap** of that agent: a lower bound on what seeing every card is worth to a
player of that kind, not to the best possible player. Rows are marked privileged: the
oracle is a yardstick and never a player of a ranking. Writes ``oracle.md`` and
``oracle.json`` into ``out``, again after each row.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from eval.exploit import Margin, margin
from zolik_env.rummy.options import preset
from zolik_env.seeds import EVAL_SEED_START

ORACLE_SEED_START = EVAL_SEED_START + 7_000_000


@dataclass(frozen=True)
class GapRow:
    """One oracle against its agent on one table."""

    preset: str
    players: int
    oracle: str
    agent: str
    deals: int
    gap: float
    low: float
    high: float
    win_share: float
    seconds: float
    privileged: bool = True


def pairs(pimc: str) -> list[tuple[str, str]]:
    """(oracle, agent) pairs measured: the planner's, and pimc's with argument ``pimc``
    (none when ``pimc`` is ``None``)."""
    out = [("oracle:planner", "planner")]
    if pimc is not None:
        arg = f":{pimc}" if pimc else ""
        out.append((f"oracle:pimc{arg}", f"pimc{arg}"))
    return out


def measure(presets: Sequence[str], players: int, planner_deals: int, pimc_deals: int,
            pimc: str | None = "rollouts=16", workers: int = 1,
            log: Callable[[str], None] | None = None) -> Iterator[GapRow]:
    """One ``GapRow`` per preset and pair, yielded as each is played."""
    for name in presets:
        rules = preset(name, num_players=players)
        for oracle, agent in pairs(pimc):
            deals = planner_deals if agent == "planner" else pimc_deals
            if log:
                log(f"{name} {players}p: {oracle} vs {agent}, {deals} duplicate deals")
            began = time.perf_counter()
            m: Margin = margin(rules, oracle, agent, deals, ORACLE_SEED_START, workers,
                               rng_scope="deal")
            yield GapRow(name, players, oracle, agent, deals, m.difference, m.low, m.high,
                         m.win_share, time.perf_counter() - began)


def table(rows: Sequence[GapRow]) -> str:
    lines = ["| preset | players | oracle (privileged) | agent | deals | oracle gap, points "
             "per deal | win share | seconds |",
             "|---|---:|---|---|---:|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.preset} | {r.players} | {r.oracle} | {r.agent} | {r.deals:,} | "
                     f"{r.gap:+.2f} [{r.low:+.2f}, {r.high:+.2f}] | {r.win_share:.3f} | "
                     f"{r.seconds:.0f} |")
    return "\n".join(lines)


def write(rows: Sequence[GapRow], out: Path) -> Path:
    """``oracle.md`` (the table) and ``oracle.json`` into ``out``; the table's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "oracle.json").write_text(json.dumps({"seed_start": ORACLE_SEED_START,
                                                 "rows": [asdict(r) for r in rows]}, indent=1))
    path = out / "oracle.md"
    path.write_text(f"Oracle gaps on duplicate deals from seed {ORACLE_SEED_START:,} "
                    f"(oracles are privileged: they see every card).\n\n{table(rows)}\n",
                    encoding="utf-8")
    return path
