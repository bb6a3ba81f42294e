"""Reports of an evaluation: the resolved config, JSON and CSV results, plots, and a
Markdown and an HTML page, all in one run directory.

One sign convention in every table: points per deal, higher is better (for the first of a
pair); the preset's raw score (cz: penalty points, lower is better) has its own labelled
column.

Files: ``config.yaml`` (resolved config), ``results.json`` (everything below plus the
rules), ``agents.csv``, ``opponents.csv``, ``seats.csv``, ``pairs.csv``, ``ratings.csv``,
``games.csv``
(one row per match, deal, rotation and seat), ``scores.png``, ``win_matrix.png``,
``ratings.png``, ``report.md``, ``report.html``. Plots use matplotlib's Agg backend.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from eval import plots
from eval.config import out_path
from eval.result import EvalResult
from zolik_env.seeds import TRAIN_SEED_LIMIT

RATES = (("win", "win rate"), ("opened", "opening rate"), ("out", "going-out rate"))
POINTS = "points per deal (higher is better)"
PAIR_POINTS = "points per deal, first - second (higher is better for the first)"


def run_dir(result: EvalResult) -> Path:
    """``cfg.out`` or ``runs/eval__{preset}{players}p__{seed}__{time}``."""
    return out_path(result.config)


def _interval(s: dict[str, float], digits: int = 1, percent: bool = False) -> str:
    scale, unit = (100.0, "%") if percent else (1.0, "")
    return (f"{s['mean'] * scale:.{digits}f}{unit} "
            f"[{s['low'] * scale:.{digits}f}, {s['high'] * scale:.{digits}f}]")


def raw_score_label(result: EvalResult) -> str:
    """The header of the raw score column: the preset's own score and its direction."""
    lower = result.config.rules().lower_is_better
    return (f"raw {result.config.preset} score ({'penalty, lower' if lower else 'higher'} "
            f"is better)")


PRIVILEGED = " [privileged: sees every card]"


def shown(result: EvalResult, name: str) -> str:
    """An agent's name in a table: an oracle's marked as privileged."""
    return name + PRIVILEGED if name in result.summary.privileged else name


def privileged_note(result: EvalResult) -> str:
    """The page's warning when oracles played: they are yardsticks, not players."""
    if not result.summary.privileged:
        return ""
    return (f"Privileged agents: {', '.join(result.summary.privileged)}. They see every card "
            f"(the true deal, agents.search.oracle): a yardstick of what hidden information "
            f"is worth, not a player; their ratings are not comparable with a seat's play.")


def agent_table(result: EvalResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the main table: one row per agent, its points per deal pooled
    over its opponents (``opponent_table`` breaks them down) and the raw score."""
    header = ["agent", "deals", POINTS, raw_score_label(result),
              *(name for _, name in RATES), "rating mu [interval]"]
    ratings = {r["agent"]: r for r in result.summary.ratings}
    rows = []
    for row in result.summary.agents:
        r = ratings[row["agent"]]
        rows.append([shown(result, row["agent"]), str(row["deals"]), _interval(row["reward"]),
                     _interval(row["score"]),
                     *(_interval(row[m], 0, percent=True) for m, _ in RATES),
                     f"{r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]"])
    return header, rows


def opponent_table(result: EvalResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per agent and opponent."""
    header = ["agent", "opponent", "deals", POINTS,
              "points per deal, agent - opponent (higher is better for the agent)"]
    rows = [[shown(result, o["agent"]), shown(result, o["opponent"]), str(o["deals"]),
             _interval(o["points"]),
             _interval(o["difference"], 2)] for o in result.summary.opponents]
    return header, rows


def pair_table(result: EvalResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per pair, the points difference and the win rate."""
    header = ["first", "second", "deals", PAIR_POINTS,
              "first's win rate", "interval excludes 0", "stopped early"]
    rows = [[shown(result, p["first"]), shown(result, p["second"]), str(p["deals"]),
             _interval(p["difference"], 2),
             _interval(p["win_rate"], 0, percent=True), "yes" if p["significant"] else "no",
             "yes" if p["stopped_early"] else "no"] for p in result.summary.pairs]
    return header, rows


def format_text(header: list[str], rows: list[list[str]]) -> str:
    """A fixed-width text table for the terminal."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (header, ["-" * w for w in widths], *rows)]
    return "\n".join(lines)


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _seed_note(result: EvalResult) -> str:
    cfg = result.config
    return (f"Preset `{cfg.preset}`, {cfg.players} players; duplicate deals with seeds "
            f"{cfg.seed_start}..{cfg.seed_start + cfg.deals - 1} (training uses seeds "
            f"< {TRAIN_SEED_LIMIT}); {int(cfg.confidence * 100)}% intervals by bootstrap "
            f"over deals ({cfg.bootstrap} resamples); agent seed {cfg.seed}.")


def _sections(result: EvalResult, images: list[str]) -> list[tuple[str, Any]]:
    """(title, table or image name) in page order."""
    sections: list[tuple[str, Any]] = [("Agents", agent_table(result)),
                                       ("Agents by opponent", opponent_table(result)),
                                       ("Pairs", pair_table(result))]
    titles = {"scores.png": "Score distributions", "win_matrix.png": "Pairwise win rates",
              "ratings.png": "Ratings"}
    sections += [(titles[name], name) for name in images]
    return sections


def write_pages(result: EvalResult, out: Path, images: list[str]) -> None:
    """``report.md`` and ``report.html`` with the tables and plots."""
    title = f"zolik eval: {' vs '.join(result.names)}"
    note = " ".join(filter(None, (_seed_note(result), privileged_note(result))))
    md = [f"# {title}", "", note, ""]
    page = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(note)}</p>"]
    for heading, content in _sections(result, images):
        md += [f"## {heading}", ""]
        page.append(f"<h2>{html.escape(heading)}</h2>")
        if isinstance(content, str):
            md += [f"![{heading}]({content})", ""]
            page.append(f'<img src="{content}" alt="{html.escape(heading)}">')
        else:
            md += [_markdown(*content), ""]
            page.append(_html_table(*content))
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    style = "table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}"
    (out / "report.html").write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
        f"</title><style>{style}</style></head><body>{''.join(page)}</body></html>",
        encoding="utf-8")


def _flatten(row: dict[str, Any]) -> dict[str, Any]:
    """``{"score": {"mean": ..}}`` -> ``{"score_mean": ..}`` for CSV."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, dict):
            flat.update({f"{key}_{k}": v for k, v in value.items() if k != "deals"})
        else:
            flat[key] = value
    return flat


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    flat = [_flatten(r) for r in rows]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(flat[0]))
        writer.writeheader()
        writer.writerows(flat)


def game_rows(result: EvalResult) -> list[dict[str, Any]]:
    """One row per match, deal, rotation and seat."""
    rows = []
    for match in result.matches.values():
        d, r, p = match.scores.shape
        for di, ri, s in np.ndindex(d, r, p):
            rows.append({"match": " vs ".join(match.agents), "seed": int(match.seeds[di]),
                         "rotation": ri, "seat": s,
                         "agent": match.agents[match.rotations[ri, s]],
                         "score": int(match.scores[di, ri, s]),
                         "opened": bool(match.opened[di, ri, s]),
                         "out": bool(match.winner[di, ri] == s),
                         "truncated": bool(match.truncated[di, ri]),
                         "turns": int(match.turns[di, ri])})
    return rows


def write_report(result: EvalResult, out: Path | None = None) -> Path:
    """Write every file of the module docstring into ``out`` (default: ``run_dir``);
    returns the run directory."""
    out = run_dir(result) if out is None else out
    out.mkdir(parents=True, exist_ok=True)
    cfg, s = result.config, result.summary
    (out / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False),
                                     encoding="utf-8")
    matrix = [[None if np.isnan(v) else float(v) for v in row] for row in s.win_matrix]
    payload = {"config": cfg.to_dict(), "rules": dataclasses.asdict(cfg.rules()),
               "agents": s.agents, "opponents": s.opponents, "seats": s.seats,
               "pairs": s.pairs, "ratings": s.ratings, "privileged": s.privileged,
               "win_matrix": {"agents": list(result.names), "rates": matrix}}
    (out / "results.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    tables = (("agents", s.agents), ("opponents", s.opponents), ("seats", s.seats),
              ("pairs", s.pairs), ("ratings", s.ratings), ("games", game_rows(result)))
    for name, rows in tables:
        write_csv(out / f"{name}.csv", rows)
    images = plots.write_plots(result, out) if cfg.plots else []
    write_pages(result, out, images)
    return out
