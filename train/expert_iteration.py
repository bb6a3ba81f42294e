"""Expert iteration: the network plays its own deals, a search labels every decision it
met, and the network learns the search's moves; the next round's network plays again.

    zolik exit --init runs/RUN --out runs/exit_cz2p --rounds 3 --decisions 30000

One round (``run_round``), in the spirit of ExIt (Anthony, Tian & Barber 2017) with
determinized worlds:

1. **Play**: the round's network (sampling its moves at ``play_temperature``: 1 as in
   training, or the temperature a bot ships with, so the labels meet its states) plays
   ``decisions`` decisions of fresh deals, in ``LABEL_SHARDS`` independent parts on
   ``workers`` processes; the same bytes for any ``workers``.
2. **Label**: the labeller, a search agent (``pimc:...``: rollouts over worlds sampled
   from the acting seat's belief, never the deal itself; ``train.search_labels``), names
   its move at each of those decisions. The network's own moves are played, so the
   labels cover the states the network reaches (DAgger, Ross, Gordon & Bagnell 2011).
   With ``anchor="network"`` (the default) the search improves on the network itself:
   the network's likeliest move is the one a challenger must beat, the challengers are
   the planner's move and the network's next likeliest, and every other decision keeps
   the network's move; the rollouts play the labeller's policy (the planner: fast).
   With ``anchor="labeller"`` the search improves on its own policy's moves, so every
   label the search does not overrule is the planner's. Or ``swap:kinds=draw+meld``
   (``agents.kind_swap``): the planner's move where the network's is of those kinds,
   the network's own elsewhere, for the kinds ``zolik strength kinds`` measured losing.
   Or ``suits:views=24`` (``agents.suit_average``): the network's own play averaged over
   renamings of the suits, which it learns as its own (``docs/results/suit-symmetry.md``).
3. **Distil**: the network learns every round's labels so far (aggregated, as DAgger
   does; with ``labels="round"`` only its own round's) for ``epochs`` passes, its value
   head the returns of its own deals; the labels that overrule the network count
   ``deviation_weight`` times, repeated as they are or, ``renamed_repeats``, in other suits.
   With ``discard_head`` the network first gets a discard head
   (``agents.learned.discard_head``), which scores every discard with one small network
   shared by the card kinds. With
   ``anchor_kl`` the loss also holds it near the round's network (``train.imitation.clone``):
   harder-weighted corrections then cost fewer of the moves the search kept.
4. **Measure**: on the round's held-out labels, the share of the search's corrections
   the new network plays and of the moves it kept (``learned``, ``round_N/learned.json``);
   the new network (its likeliest move) against ``planner`` on ``eval_deals`` held-out
   duplicate deals, a line of ``exit.csv``.

Everything a round makes is kept in ``OUT/round_N/`` (label parts, ``model.zip``,
``learned.json``, ``eval.json``), so a killed run, started again with the same
arguments, resumes at the first round it had not finished (each label part is kept as
soon as it is played, so a round killed midway plays only its missing parts again), and
the same seed gives the same labels and networks. The network keeps the init run's
config (rules, features, priors): ``OUT/config.yaml``, so ``ppo:OUT`` plays it.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import pathlib
import shutil
import time
from typing import Any

import numpy as np

from train.config import PPOConfig
from zolik_env.rummy.options import RuleSet
from zolik_env.seeds import EVAL_SEED_START

LABEL_SHARDS = 4  # a round's decisions are played in this many parts, on ``workers`` processes
ROUND_SEED_STRIDE = 10_007  # round r of seed s labels deals of seed s * stride + r + 1
EXIT_EVAL_SEED_START = EVAL_SEED_START + 8_000_000  # held out: apart from export's deals
HOLDOUT = 0.05  # the labels' tail that the distillation holds out (``train.imitation.clone``)


@dataclasses.dataclass(frozen=True)
class ExitPlan:
    """What an expert-iteration run does; written to ``OUT/exit.json``."""

    init: str  # the run whose network is round 0's (its final.zip or newest checkpoint)
    labeller: str = "pimc:rollouts=64"
    rounds: int = 3
    decisions: int = 30_000  # labelled per round
    epochs: int = 2  # passes over the aggregated labels per round
    learning_rate: float = 3e-4
    eval_deals: int = 500
    seed: int = 1
    workers: int = 2
    anchor: str = "network"  # whose moves the search must beat: "network" or "labeller"
    deviation_weight: int = 1  # labels that overrule the round's network count this often
    renamed_repeats: bool = False  # their repeats in other suits (``train.suit_copies``)
    anchor_kl: float = 0.0  # weight of KL(round's network || new) in the distillation
    discard_head: int = 0  # > 0: a discard head of that width joins the network first
    play_temperature: float = 1.0  # the network samples its own deals' moves at this
    labels: str = "all"  # what a round distils: every round's labels so far, or "round"'s
    deals_at_once: int = 16  # per part: a part drops the deals still running when it has
    # its decisions, so fewer deals at once waste fewer labels (pimc labels one row at a time)


NETWORK = "{network}"  # in a labeller spec: the round's checkpoint (``anchored``)
ANCHORS = ("network", "labeller")
LABEL_SETS = ("all", "round")  # ``ExitPlan.labels``


def anchored(labeller: str, anchor: str) -> str:
    """The labeller spec of a round: with ``anchor="network"`` the round's network
    (``NETWORK``, filled in per round) is the prior whose moves the search must beat."""
    if anchor not in ANCHORS:
        raise ValueError(f"anchor {anchor!r}: choose from {', '.join(ANCHORS)}")
    kind, _, argument = labeller.partition(":")
    if kind in ("swap", "suits"):  # the network's moves, some the planner's or averaged
        return f"{kind}:net=ppo:{NETWORK}:argmax{',' if argument else ''}{argument}"
    if anchor == "labeller":
        return labeller
    return f"{kind}:{argument + ',' if argument else ''}prior=ppo:{NETWORK}:argmax"


def round_dir(out: pathlib.Path, r: int) -> pathlib.Path:
    return out / f"round_{r}"


def label_part(rules: RuleSet, checkpoint: str, labeller: str, decisions: int, seed: int,
               first_deal: int, gamma: float, reward: str, deals_at_once: int = 16,
               temperature: float = 1.0, bar: Any = None) -> Any:
    """One part of a round's labels: ``checkpoint``'s network plays (sampling at
    ``temperature``), ``labeller`` labels (``train.imitation.collect`` with a driver); raw
    observations, no features yet."""
    import torch

    from agents.learned import legacy
    from agents.learned.ppo import PPOPolicy
    from train.imitation import collect

    torch.set_num_threads(1)
    labeller = labeller.replace(NETWORK, checkpoint)
    model = legacy.load_model(checkpoint, device="cpu")
    driver = PPOPolicy(model.policy, "exit", rules=rules, temperature=temperature)
    return collect(rules, labeller, decisions, seed, gamma, reward, num_deals=deals_at_once,
                   driver=driver, first_deal=first_deal, bar=bar)


def round_labels(plan: ExitPlan, cfg: PPOConfig, r: int, checkpoint: pathlib.Path,
                 out: pathlib.Path, progress: bool) -> Any:
    """Round ``r``'s labels with features, from its cached parts where they exist."""
    from train.imitation import _SHARD_DEALS, with_features
    from train.suit_copies import renamed_repeats
    from train.work_pool import in_processes, progress_bar

    folder = round_dir(out, r)
    folder.mkdir(parents=True, exist_ok=True)
    per_part = -(-plan.decisions // LABEL_SHARDS)
    seed = plan.seed * ROUND_SEED_STRIDE + r + 1
    paths = [folder / f"labels_{part}.npz" for part in range(LABEL_SHARDS)]
    todo = [part for part, path in enumerate(paths) if not path.exists()]
    if "," in str(checkpoint):
        raise ValueError(f"{checkpoint}: a labeller spec cannot name a path with a comma")
    jobs = [{"rules": cfg.rules(), "checkpoint": str(checkpoint),
             "labeller": anchored(plan.labeller, plan.anchor),
             "decisions": per_part, "seed": seed, "first_deal": part * _SHARD_DEALS,
             "gamma": cfg.gamma, "reward": cfg.reward, "deals_at_once": plan.deals_at_once,
             "temperature": plan.play_temperature}
            for part in todo]
    bar = progress_bar(per_part * len(todo), progress)
    in_processes(label_part, jobs, plan.workers, bar,
                 on_done=lambda i, data: save_data(paths[todo[i]], data))
    data = raw_labels(out, r)
    if plan.deviation_weight > 1:
        over = overruled(data, cfg, checkpoint)
        data = (renamed_repeats(data, over, plan.deviation_weight, cfg.rules(), seed, HOLDOUT)
                if plan.renamed_repeats else stressed(data, over, plan.deviation_weight))
    return with_features(data, cfg.rules(), cfg.obs_features, progress, plan.workers)


def raw_labels(out: pathlib.Path, r: int) -> Any:
    """Round ``r``'s labels as played (plain observations), its parts in order."""
    from train.imitation import concat

    return concat(*(load_data(round_dir(out, r) / f"labels_{part}.npz")
                    for part in range(LABEL_SHARDS)))


def likeliest(raw: Any, cfg: PPOConfig, checkpoint: pathlib.Path,
              rows: np.ndarray | None = None) -> np.ndarray:
    """int (N,): ``checkpoint``'s likeliest move at each of ``raw``'s decisions (or at
    ``rows`` of them)."""
    from agents.learned import ppo as ppo_agent

    net = ppo_agent.load(checkpoint, cfg.rules(), deterministic=True)
    rows = np.arange(len(raw)) if rows is None else rows
    return np.concatenate([net.act_batch(raw.obs[part], raw.legal(part), np.random.default_rng(0))
                           for part in np.array_split(rows, max(1, len(rows) // 2048))])


def overruled(raw: Any, cfg: PPOConfig, checkpoint: pathlib.Path) -> np.ndarray:
    """bool (N,): the labels that are not ``checkpoint``'s likeliest move (with the
    network as anchor: where the search overruled the network)."""
    return likeliest(raw, cfg, checkpoint) != raw.action


def learned(raw: Any, cfg: PPOConfig, before: pathlib.Path, after: pathlib.Path,
            holdout: float = HOLDOUT) -> dict[str, Any]:
    """What the distilled network ``after`` took from a round's labels ``raw``, on their
    last ``holdout`` (held out of every distillation: the aggregated labels' held-out tail
    is at least as long): ``overruled``, the share of labels that are not ``before``'s
    likeliest move; ``corrected``, the share of those that ``after`` plays; ``kept``, the
    share of the other labels (the search kept ``before``'s move) that ``after`` still
    plays; ``moved``, the share of all where ``after`` plays another move than ``before``;
    ``by_kind``: the same for the decisions where ``before`` draws and where it discards;
    ``sure_before`` and ``sure_after``, the mean probability each network gives its
    likeliest move where it has a choice (a sampling seat plays another move the rest of
    the time: a distillation that flattens the moves shows here)."""
    from agents.kind_swap import KINDS, kind_of

    rows = np.arange(int(len(raw) * (1 - holdout)), len(raw))
    label = raw.action[rows].astype(np.int64)
    old, new = (likeliest(raw, cfg, net, rows) for net in (before, after))
    sure_old, sure_new = (sureness(raw, cfg, net, rows) for net in (before, after))
    kinds = np.array(list(KINDS))[kind_of(old)]
    row = _took(label, old, new, sure_old, sure_new)
    row["by_kind"] = {k: _took(label[kinds == k], old[kinds == k], new[kinds == k],
                               sure_old[kinds == k], sure_new[kinds == k])
                      for k in ("draw", "discard")}
    return row


def sureness(raw: Any, cfg: PPOConfig, checkpoint: pathlib.Path,
             rows: np.ndarray) -> np.ndarray:
    """float (len(rows),): the probability ``checkpoint``'s network gives its likeliest
    move at each of ``raw``'s decisions ``rows``; NaN where it has no other legal move."""
    from agents.learned import ppo as ppo_agent

    net = ppo_agent.load(checkpoint, cfg.rules())
    legal = raw.legal(rows)
    probs = np.concatenate([net.probabilities(raw.obs[part], raw.legal(part))
                            for part in np.array_split(rows, max(1, len(rows) // 2048))])
    return np.where(legal.sum(1) > 1, probs.max(1), np.nan)


def _took(label: np.ndarray, old: np.ndarray, new: np.ndarray, sure_old: np.ndarray,
          sure_new: np.ndarray) -> dict[str, Any]:
    """``learned``'s shares on the decisions given."""
    over = old != label

    def share(hits: np.ndarray) -> float:
        return float(hits.mean()) if hits.size else 0.0

    def mean(sure: np.ndarray) -> float:
        chosen = sure[~np.isnan(sure)]
        return float(chosen.mean()) if chosen.size else 1.0

    return {"labels": int(label.size), "overruled": share(over),
            "corrected": share(new[over] == label[over]),
            "kept": share(new[~over] == label[~over]), "moved": share(new != old),
            "sure_before": mean(sure_old), "sure_after": mean(sure_new)}


def stressed(data: Any, overruled: np.ndarray, weight: int, holdout: float = HOLDOUT) -> Any:
    """``data`` with its overruled labels ``weight`` times over: the copies go in front,
    so the held-out tail (``train.imitation.clone``'s last ``holdout``) holds no copy."""
    n_train = int(len(data) * (1 - holdout))
    copies = np.tile(np.flatnonzero(overruled[:n_train]), weight - 1)
    return data.take(np.concatenate([copies, np.arange(len(data))]))


def save_data(path: pathlib.Path, data: Any) -> None:
    """``TeacherData`` to ``path``, atomically (a killed run never leaves half a part)."""
    tmp = path.with_name(f".{path.stem}.tmp.npz")
    np.savez_compressed(tmp, **dataclasses.asdict(data))
    tmp.replace(path)


def load_data(path: pathlib.Path) -> Any:
    from train.imitation import TeacherData

    with np.load(path) as saved:
        return TeacherData(**{f.name: saved[f.name] for f in dataclasses.fields(TeacherData)})


def distil(plan: ExitPlan, cfg: PPOConfig, r: int, labels: list[Any],
           checkpoint: pathlib.Path, out: pathlib.Path, progress: bool) -> pathlib.Path:
    """Round ``r``'s network: ``checkpoint``'s, taught every round's labels so far; saved
    as ``OUT/round_r/model.zip`` (with its ``train.imitation.CloneReport``)."""
    from agents.learned import legacy
    from agents.learned.build import with_discard_head
    from train.imitation import clone, concat
    from train.ppo import save_checkpoint

    model = legacy.load_model(checkpoint, device="cpu")
    anchor = legacy.load_model(checkpoint, device="cpu").policy if plan.anchor_kl else None
    if plan.discard_head:
        with_discard_head(model, plan.discard_head, cfg.rules(),
                          seed=plan.seed * ROUND_SEED_STRIDE + r)
    report = clone(model.policy, concat(*labels), epochs=plan.epochs,
                   learning_rate=plan.learning_rate, seed=plan.seed * ROUND_SEED_STRIDE + r,
                   progress=progress, anchor=anchor, anchor_kl=plan.anchor_kl,
                   holdout=HOLDOUT)
    folder = round_dir(out, r)
    (folder / "distil.json").write_text(json.dumps(dataclasses.asdict(report), indent=1))
    print(f"round {r}: learned {report.samples:,} labels, {report.epochs} epochs, held-out "
          f"match {report.accuracy:.3f} ({report.seconds:.0f} s)", flush=True)
    return save_checkpoint(model, cfg, folder / "model.zip")


def report_learned(cfg: PPOConfig, r: int, before: pathlib.Path, after: pathlib.Path,
                   out: pathlib.Path) -> dict[str, Any]:
    """``learned`` for round ``r``, kept in ``OUT/round_r/learned.json`` and printed."""
    path = round_dir(out, r) / "learned.json"
    if path.exists():
        return json.loads(path.read_text())
    row = learned(raw_labels(out, r), cfg, before, after)
    path.write_text(json.dumps(row, indent=1))
    print(f"round {r}: on {row['labels']:,} held-out labels the search overruled "
          f"{100 * row['overruled']:.1f}% of the network's moves; the new network plays "
          f"{100 * row['corrected']:.1f}% of those corrections and "
          f"{100 * row['kept']:.1f}% of the moves the search kept (discards: "
          f"{100 * row['by_kind']['discard']['corrected']:.1f}% and "
          f"{100 * row['by_kind']['discard']['kept']:.1f}%); its likeliest discard "
          f"carries {100 * row['by_kind']['discard'].get('sure_after', 1):.0f}% of its "
          f"probability (before: {100 * row['by_kind']['discard'].get('sure_before', 1):.0f}%)",
          flush=True)
    return row


def measure(plan: ExitPlan, cfg: PPOConfig, r: int, checkpoint: pathlib.Path,
            out: pathlib.Path, progress: bool) -> dict[str, Any]:
    """The round's network (its likeliest move) against the planner on held-out deals."""
    from train.evaluate import evaluate_checkpoint, verdict

    rows = evaluate_checkpoint(checkpoint, cfg.rules(), ["planner"], plan.eval_deals, r,
                               plan.seed, EXIT_EVAL_SEED_START, ("argmax",), progress)
    row = rows[0]
    (round_dir(out, r) / "eval.json").write_text(json.dumps(row, indent=1))
    print(f"round {r}: {verdict(row)}", flush=True)
    return row


def run(plan: ExitPlan, out: pathlib.Path, progress: bool = True) -> pathlib.Path:
    """Play, label, distil and measure ``plan.rounds`` rounds (resuming the rounds ``out``
    holds); the last round's network."""
    from agents.learned.ppo import resolve_checkpoint
    from train.ppo import read_config

    cfg = read_config(pathlib.Path(plan.init))
    checkpoint = resolve_checkpoint(plan.init)
    out.mkdir(parents=True, exist_ok=True)
    _check_same_plan(plan, out)
    (out / "config.yaml").write_text((pathlib.Path(plan.init) / "config.yaml").read_text())
    labels: list[Any] = []
    for r in range(1, plan.rounds + 1):
        began = time.time()
        labels.append(round_labels(plan, cfg, r, checkpoint, out, progress))
        labels = labels[-1:] if plan.labels == "round" else labels
        model = round_dir(out, r) / "model.zip"
        before = checkpoint
        checkpoint = (model if model.exists() else
                      distil(plan, cfg, r, labels, checkpoint, out, progress))
        report_learned(cfg, r, before, checkpoint, out)
        done = round_dir(out, r) / "eval.json"
        row = (json.loads(done.read_text()) if done.exists()
               else measure(plan, cfg, r, checkpoint, out, progress))
        _log(out, r, len(labels[-1]), row, time.time() - began)
    final = out / "final.zip"
    for source, target in ((checkpoint.with_suffix(".json"), final.with_suffix(".json")),
                           (checkpoint, final)):  # the zip last: it marks a finished copy
        tmp = target.with_name(f".{target.name}.tmp")
        shutil.copyfile(source, tmp)
        tmp.replace(target)
    return final


def _check_same_plan(plan: ExitPlan, out: pathlib.Path) -> None:
    """A run folder belongs to one plan: resuming with other settings would mix labels."""
    path = out / "exit.json"
    mine = dataclasses.asdict(plan)
    if path.exists():
        theirs = json.loads(path.read_text())
        same_bytes = ("rounds", "workers")  # more rounds, or other processes: the same labels
        default = dataclasses.asdict(ExitPlan(init=plan.init))  # keys older runs lack
        changed = sorted(k for k in mine if k not in same_bytes
                         and theirs.get(k, default[k]) != mine[k])
        if changed:
            raise ValueError(f"{out} holds an expert-iteration run with other settings "
                             f"({', '.join(changed)}); give another --out")
    path.write_text(json.dumps(mine, indent=1))


def _log(out: pathlib.Path, r: int, labels: int, row: dict[str, Any], seconds: float) -> None:
    path = out / "exit.csv"
    fields = ["round", "labels", "vs_planner", "low", "high", "deals", "seconds"]
    rows = list(csv.DictReader(path.open())) if path.exists() else []
    rows = [x for x in rows if int(x["round"]) < r]
    rows.append({"round": r, "labels": labels, "vs_planner": row["score_diff"],
                 "low": row["score_diff_low"], "high": row["score_diff_high"],
                 "deals": row.get("deals", ""), "seconds": round(seconds)})
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        writer.writerows(rows)
