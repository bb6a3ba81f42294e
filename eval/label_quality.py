"""What a labeller's corrections are worth, measured before a round of expert iteration
is paid for.

    zolik strength labels --net pretrained:cz_2p --labeller pimc:rollouts=128

Expert iteration (``train.expert_iteration``) teaches the network the labeller's move at
each decision of the network's own deals. Only the labels that overrule the network's
likeliest move can teach it anything new. A search with few rollouts overrules on noise
as well as on real mistakes: over one rollout, the paired margins of two moves differ by
tens of points, while their true values differ by a few. This audit measures the
corrections directly:

1. The network plays fresh deals, sampling its moves as in a round. At each decision with
   more than one legal move, the labeller names its move from the acting seat's
   information state. A ``pimc`` labeller without a ``prior`` gets the network's likeliest
   move as its prior (``anchored``), as expert iteration's labeller does.
2. Where the label is not the network's likeliest move, both moves are played on
   ``reference`` fresh worlds sampled from the seat's belief, paired, and then every
   seat follows ``reference_policy`` to the deal's end. The label's gain is the mean
   paired margin: the seat's reward minus the mean of the other seats'. These worlds are
   not the labeller's, so its luck in choosing does not carry into the measure.

``summarize`` gives the share of decisions overruled, the mean gain of an overrule with
its 95% interval (a bootstrap over deals), the share of overrules whose gain is above 0,
the points per 100 decisions the corrections carry, and the labeller's seconds per
decision. The gain is measured with the reference policy playing on, as the search itself
estimates it: it is the one-step improvement the labels carry, not a match result.
"""

from __future__ import annotations

import csv
import json
import pathlib
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from agents.base import is_oracle_policy, is_search_policy
from agents.kind_swap import KINDS, kind_of
from agents.registry import make_agent
from agents.search.pimc import Budget, PIMCPolicy
from zolik_env.rummy import game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.options import RuleSet
from zolik_env.seeds import EVAL_SEED_START

LABELS_SEED_START = EVAL_SEED_START + 9_000_000  # deals of their own


@dataclass(frozen=True)
class Label:
    """One decision with a choice: where (``deal``), the kind of the network's likeliest
    move, whether the label overruled it, and if so its reference ``gain`` and
    ``stderr`` (0 otherwise); ``seconds``: the labeller's time."""

    deal: int
    kind: str
    overruled: bool
    gain: float
    stderr: float
    seconds: float


def anchored(labeller: str, net: str) -> str:
    """``labeller`` with ``net``'s likeliest move as its prior when it is a ``pimc`` spec
    without one (expert iteration's labeller; a network plays it with ``:argmax``); other
    specs as given."""
    kind, _, argument = labeller.partition(":")
    if kind != "pimc" or "prior=" in argument:
        return labeller
    return f"pimc:{argument + ',' if argument else ''}prior={_argmax(net)}"


def audit(rules: RuleSet, net: str, labeller: str, decisions: int, reference: int = 512,
          reference_policy: str = "planner", seed_start: int = LABELS_SEED_START,
          deals_at_once: int = 8, bar: Any = None) -> list[Label]:
    """``decisions`` labelled decisions of ``net``'s deals (see the module docstring).

    Raises:
        ValueError: a network that does not act on observations, a bad spec, or a
            reference below 2 worlds.
    """
    if reference < 2:
        raise ValueError(f"reference {reference}: give at least 2 worlds")
    driver, anchor = make_agent(net, rules), make_agent(_argmax(net), rules)
    if is_search_policy(driver) or is_oracle_policy(driver):
        raise ValueError(f"net {net!r} searches or sees every card; give a network "
                         f"(pretrained:NAME, ppo:PATH) or an agent that acts on observations")
    teacher = make_agent(anchored(labeller, net), rules)
    judge = PIMCPolicy(rules, Budget(), policy=reference_policy)  # only its rollouts are used
    # the driver's own stream: every labeller meets the same decisions of the same deals
    play_rng, label_rng = (np.random.default_rng([seed_start, k]) for k in (0, 1))
    deal_of = np.arange(deals_at_once)  # each row's deal, numbered from 0
    state = game.init(rules, seed_start + deal_of, deal_of)
    started, labels = deals_at_once, []
    while len(labels) < decisions:
        obs = game.observe(rules, state, state.current)
        mask = game.legal_action_mask(rules, state)
        for row in np.flatnonzero(~state.done & (mask.sum(1) > 1)):
            info = InfoState.of_seat_to_act(rules, state, row)
            kept = int(anchor.act(obs[row], mask[row], label_rng))
            labels.append(_label(rules, info, int(deal_of[row]), teacher, kept, judge,
                                 reference, label_rng))
            if bar is not None:
                bar.update(1)
        moves = np.asarray(driver.act_batch(obs, mask, play_rng), np.int64)
        state = game.step(rules, state, moves)[0]
        ended = np.flatnonzero(state.done)
        if ended.size:
            ids = np.arange(started, started + ended.size)
            state = game.reset_where(rules, state, ended, seed_start + ids, ids)
            deal_of[ended] = ids
            started += ended.size
    return labels[:decisions]


def _argmax(spec: str) -> str:
    """``spec`` playing its likeliest move: ``:argmax`` added to a network's spec."""
    kind = spec.partition(":")[0]
    if kind in ("ppo", "pretrained") and not spec.endswith(":argmax"):
        return f"{spec}:argmax"
    return spec


def _label(rules: RuleSet, info: InfoState, deal: int, teacher: Any, kept: int,
           judge: PIMCPolicy, reference: int, rng: np.random.Generator) -> Label:
    """The teacher's label at ``info`` and, where it overrules ``kept``, its gain."""
    began = time.perf_counter()
    if is_search_policy(teacher):
        move = int(teacher.act_info(info, rng))
    else:
        move = int(teacher.act(info.observation(), info.legal_mask(), rng))
    seconds = time.perf_counter() - began
    kind = list(KINDS)[int(kind_of(np.array([kept]))[0])]
    if move == kept:
        return Label(deal, kind, False, 0.0, 0.0, seconds)
    worlds = info.worlds(reference, int(rng.integers(2**62)))
    margins = judge.evaluate(info, [kept, move], worlds, rng)
    gains = margins[1] - margins[0]
    return Label(deal, kind, True, float(gains.mean()),
                 float(gains.std(ddof=1) / np.sqrt(gains.size)), seconds)


def summarize(labels: Sequence[Label], confidence: float = 0.95, resamples: int = 2000,
              seed: int = 0) -> dict[str, Any]:
    """The audit's figures (see the module docstring); the interval of the mean gain per
    overrule resamples whole deals, since one deal's decisions share its cards."""
    overruled = [x for x in labels if x.overruled]
    row: dict[str, Any] = {
        "decisions": len(labels),
        "deals": len({x.deal for x in labels}),
        "overruled": len(overruled) / max(len(labels), 1),
        "seconds_per_decision": float(np.mean([x.seconds for x in labels])) if labels else 0.0,
        "gain": float("nan"), "low": float("nan"), "high": float("nan"),
        "gaining": float("nan"),
    }
    if overruled:
        gains = np.array([x.gain for x in overruled])
        low, high = _ratio_interval(overruled, confidence, resamples, seed)
        row.update(gain=float(gains.mean()), low=low, high=high,
                   gaining=float((gains > 0).mean()))
    row["per_100_decisions"] = 100 * row["overruled"] * (row["gain"] if overruled else 0.0)
    return row


def _ratio_interval(overruled: Sequence[Label], confidence: float, resamples: int,
                    seed: int) -> tuple[float, float]:
    """The interval of (sum of gains) / (overrules) over resampled deals."""
    deals = sorted({x.deal for x in overruled})
    index = {d: i for i, d in enumerate(deals)}
    totals, counts = np.zeros(len(deals)), np.zeros(len(deals))
    for x in overruled:
        totals[index[x.deal]] += x.gain
        counts[index[x.deal]] += 1
    if len(deals) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    picks = rng.integers(len(deals), size=(resamples, len(deals)))
    ratios = totals[picks].sum(1) / counts[picks].sum(1)
    tail = 100 * (1 - confidence) / 2
    return float(np.percentile(ratios, tail)), float(np.percentile(ratios, 100 - tail))


def by_kind(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """``summarize`` per kind of the network's move, for the kinds that occur."""
    kinds = [k for k in KINDS if any(x.kind == k for x in labels)]
    return [{"kind": k, **summarize([x for x in labels if x.kind == k])} for k in kinds]


def format_summary(rows: Sequence[dict[str, Any]], net: str, reference: int) -> str:
    """The table of ``summarize`` rows (one per labeller or kind, each with ``name``)."""
    lines = [f"labels that overrule {net}'s likeliest move: what the correction gains on "
             f"{reference} paired reference worlds (points per deal)",
             f"{'':<14} {'decisions':>9} {'overruled':>9}  {'gain per overrule [95%]':<27} "
             f"{'gaining':>7} {'per 100':>8} {'s/decision':>10}"]
    for r in rows:
        interval = (f"{r['gain']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]"
                    if r["overruled"] else "-")
        gaining = f"{100 * r['gaining']:.0f}%" if r["overruled"] else "-"
        lines.append(f"{r['name']:<14} {r['decisions']:>9,} {100 * r['overruled']:>8.1f}%  "
                     f"{interval:<27} {gaining:>7} {r['per_100_decisions']:>+8.2f} "
                     f"{r['seconds_per_decision']:>10.3f}")
    return "\n".join(lines)


def save(path: pathlib.Path, labels: Sequence[Label], settings: dict[str, Any]) -> None:
    """``labels`` as a CSV at ``path`` and the ``settings`` that made them beside it
    (``PATH.json``), each written whole or not at all."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, [field.name for field in fields(Label)])
        writer.writeheader()
        writer.writerows(asdict(x) for x in labels)
    tmp.replace(path)
    side = path.with_suffix(".json")
    side_tmp = side.with_name(f".{side.name}.tmp")
    side_tmp.write_text(json.dumps(settings, indent=1))
    side_tmp.replace(side)


def load(path: pathlib.Path, settings: dict[str, Any]) -> list[Label] | None:
    """The labels ``save`` wrote at ``path`` with the same ``settings``; None when there
    are none (or they were made with other settings, or are unreadable)."""
    side = path.with_suffix(".json")
    try:
        if json.loads(side.read_text()) != settings:
            return None
        with path.open(newline="") as f:
            return [Label(deal=int(r["deal"]), kind=r["kind"], overruled=r["overruled"] == "True",
                          gain=float(r["gain"]), stderr=float(r["stderr"]),
                          seconds=float(r["seconds"])) for r in csv.DictReader(f)]
    except (OSError, ValueError, KeyError):
        return None

