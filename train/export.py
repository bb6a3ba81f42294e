"""Turn a PPO run into a pretrained bot (``pretrained:NAME``, see ``agents.learned.pretrained``).

    zolik export runs/ppo_cz2p__1__20261130-190213 --name cz_2p --deals 400

Writes ``NAME.pt`` (float16 weights, a third of the checkpoint, which also holds Adam's
state), then plays the bot as it will ship, from that file, against each baseline on
held-out duplicate deals (seeds from ``EVAL_SEED_START + 3·10^6``: distinct from the
training, periodic, main-job and strength-benchmark deals) and writes ``NAME.json``
(rules, source, strength rows) and the model card ``NAME.md``.

The three files are written as a set: into a staging folder ``.NAME.export`` first, then
moved into place under a commit marker (``.NAME.export.commit``). An export killed
before the marker leaves the shipped files as they were (the staging folder is removed
by the next export); one killed after it is completed by the next export
(``finish_interrupted``). A bot that ships is replaced only with ``force``.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
from collections.abc import Sequence
from typing import Any

import torch

from agents.learned import ppo as ppo_agent
from agents.learned import pretrained
from agents.learned.legacy import load_model
from train.evaluate import PLAY_MODES, evaluate_modes, format_table
from train.ppo import read_config
from zolik_env.seeds import EVAL_SEED_START

EXPORT_SEED_START = EVAL_SEED_START + 3_000_000


BOT_FILES = (".pt", ".json", ".md")


def export(run_dir: str | pathlib.Path, name: str, deals: int = 400,
           opponents: Sequence[str] = ("random", "greedy", "planner"),
           out_dir: pathlib.Path = pretrained.BOTS, note: str = "",
           force: bool = False, temperature: float = 1.0, views: int = 1) -> dict[str, Any]:
    """Write the bot files for the run's final checkpoint as a set; the ``NAME.json``
    contents. ``temperature``: the play temperature ``pretrained:NAME`` samples at (its
    ``sample`` rows are measured at it); 0: its likeliest move (``argmax`` rows alone);
    ``views`` > 1 (temperature 0): averaged over that many renamings of the suits.
    ``ValueError`` when the bot ships already and ``force`` is not given, or a bad value."""
    temperature = ppo_agent.check_temperature(temperature, "--temperature")
    out_dir = pathlib.Path(out_dir)
    finish_interrupted(out_dir)
    shipped = [out_dir / f"{name}{suffix}" for suffix in BOT_FILES
               if (out_dir / f"{name}{suffix}").exists()]
    if shipped and not force:
        raise ValueError(f"pretrained:{name} ships already ({shipped[0]}): give --force to "
                         f"replace it, or another --name")
    run = pathlib.Path(run_dir)
    cfg = read_config(run)
    checkpoint = ppo_agent.resolve_checkpoint(run)
    rules = cfg.rules()
    model = load_model(checkpoint, device="cpu")
    stage = out_dir / f".{name}.export"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    torch.save(pretrained.pack(model.policy, rules, temperature, views), stage / f"{name}.pt")
    saved = torch.load(stage / f"{name}.pt", map_location="cpu", weights_only=True)
    rows = evaluate_modes(  # the shipped file, sampling its moves and its likeliest move
        lambda argmax: pretrained.player(saved, rules, name, "", argmax, temperature, views),
        rules, opponents, deals, int(model.num_timesteps), cfg.seed, EXPORT_SEED_START,
        played_modes(temperature), progress=True)
    print(format_table(rows))
    meta = {**ppo_agent.rules_meta(rules), "source": str(checkpoint),
            "steps": int(model.num_timesteps), "config": cfg.exp_name, "seed": cfg.seed,
            "temperature": temperature, "views": views,
            "deals": deals, "seed_start": EXPORT_SEED_START, "strength": rows,
            "best_response": unmeasured_best_response(
                name, rules_flags(rules.name, rules.num_players))}
    (stage / f"{name}.json").write_text(json.dumps(meta, indent=1))
    (stage / f"{name}.md").write_text(model_card(name, meta, run, note))
    commit(out_dir, name)
    return meta


def played_modes(temperature: float) -> tuple[str, ...]:
    """The play modes a bot's card measures: both, or ``argmax`` alone for a bot that
    plays its likeliest move (its sampled play would repeat those rows)."""
    return ("argmax",) if temperature == 0.0 else PLAY_MODES


def commit(out_dir: pathlib.Path, name: str) -> None:
    """Move the staged files of bot ``name`` into ``out_dir`` as a set: the commit marker
    first, so that a kill midway is completed by ``finish_interrupted``."""
    stage = out_dir / f".{name}.export"
    missing = [s for s in BOT_FILES if not (stage / f"{name}{s}").is_file()]
    if missing:
        raise ValueError(f"the staged export of {name} lacks {missing}")
    marker = out_dir / f".{name}.export.commit"
    marker.write_text(name)
    _move_staged(out_dir, name)


def _move_staged(out_dir: pathlib.Path, name: str) -> None:
    stage = out_dir / f".{name}.export"
    for suffix in BOT_FILES:
        staged = stage / f"{name}{suffix}"
        if staged.exists():
            os.replace(staged, out_dir / f"{name}{suffix}")
    (out_dir / f".{name}.export.commit").unlink(missing_ok=True)
    shutil.rmtree(stage, ignore_errors=True)


def finish_interrupted(out_dir: pathlib.Path) -> list[str]:
    """Complete the exports killed after their commit marker, and drop the staging
    folders of those killed before it; the names completed."""
    done = []
    for marker in sorted(out_dir.glob(".*.export.commit")):
        name = marker.name[1:-len(".export.commit")]
        _move_staged(out_dir, name)
        done.append(name)
    for stage in out_dir.glob(".*.export"):
        if stage.is_dir():
            shutil.rmtree(stage, ignore_errors=True)
    return done


def _minutes(run: pathlib.Path) -> str:
    """Wall-clock minutes of the run's sessions, as logged (``time/time_elapsed``)."""
    import csv

    total = 0.0
    for log in sorted(run.glob("progress*.csv")):
        rows = list(csv.DictReader(log.open()))
        if rows:
            total += float(rows[-1]["time/time_elapsed"]) / 60
    return f"{total:.0f}"


def rules_flags(preset: str, players: int) -> str:
    """The command-line flags that seat a bot at its own rules (`` --preset sk --players
    4``; nothing for the default cz with 2 players), so that the commands on its card run
    as printed. Rule options have no flag: the card names them."""
    flags = "" if preset == "cz" else f" --preset {preset}"
    return flags + ("" if players == 2 else f" --players {players}")


def unmeasured_best_response(name: str, flags: str = "") -> dict[str, Any]:
    """A new bot's ``best_response`` entry: a margin measured against another file does
    not carry over, so it starts unmeasured, with the command that measures it (``flags``:
    ``rules_flags`` of its rules)."""
    return {"margin": None,
            "status": "not measured yet: a best response trained 60 minutes against this "
                      "bot, its margin on 2,000 held-out duplicate deals (docs/yardsticks.md)",
            "command": f"zolik strength exploit --agent pretrained:{name}{flags} --minutes 60 "
                       f"--seed 1 --no-reference"}


def best_response_paragraph(entry: dict[str, Any]) -> str:
    """The card's **Best-response margin.** paragraph for its ``best_response`` entry:
    unmeasured (with the command that measures it) or the figure ``record_best_response``
    wrote."""
    margin = entry.get("margin")
    if margin is None:
        return ("**Best-response margin.** Not measured yet: how much a best response trained "
                "60 minutes\nagainst this bot wins on 2,000 held-out duplicate deals, a lower "
                "bound on how exploitable\nit is (`docs/yardsticks.md`). Measure it with\n"
                f"`{entry['command']}`,\n"
                "then record it here with `zolik export --best-response RUN_DIR`.")
    warm = (f"a warm start imitating `{entry['warm_start']}`" if entry["warm_start"]
            else "no warm start")
    reference = entry.get("reference")
    against_planner = "" if reference is None else (
        f" A best response to the planner by the same recipe{_steps_of(reference)}, the "
        f"reference: {_interval(reference)} on {reference['deals']:,} deals.")
    session = (f"for a\n{entry['minutes']:g}-minute session" if entry["minutes"]
               else "without a\ntime budget")
    head = (f"**Best-response margin.** A best response trained against `{entry['target']}` "
            f"{session}")
    return f"""{head} (seed {entry['seed']}, {warm}, {entry['steps']:,} learner
steps, run `{entry['run']}`) scores **{_interval(margin)}** points per deal against it on
{margin['deals']:,} held-out duplicate deals (win share {margin['win_share']:.3f}).{against_planner}
It is a lower bound on how exploitable this file is (`docs/yardsticks.md`): a margin below
zero says that this learner, in this budget, did not find how to beat the bot, not that no
one can. Measured with `{entry['command']}`."""


def _steps_of(margin: dict[str, Any]) -> str:
    """`` (N learner steps)``, or nothing where a report did not keep them (0)."""
    return f" ({margin['steps']:,} learner steps)" if margin["steps"] else ""


def _interval(margin: dict[str, Any]) -> str:
    return f"{margin['difference']:+.2f} [{margin['low']:+.2f}, {margin['high']:+.2f}]"


BEST_RESPONSE_PARAGRAPH = re.compile(r"\*\*Best-response margin\.\*\*.*?(?=\n\nPlay it:)", re.S)


def record_best_response(run_dir: str | pathlib.Path,
                         out_dir: pathlib.Path = pretrained.BOTS) -> tuple[str, dict[str, Any]]:
    """Write a best-response run's measured margin (``zolik strength exploit``: its
    ``exploit.json``) into the card of the shipped bot it was trained against, ``NAME.json``
    and the paragraph of ``NAME.md``; the bot's name and the new entry.

    Raises:
        ValueError: naming the run when it is not a best response to a bot of ``out_dir``,
            has no measured margin, or was trained against another file of that bot.
    """
    from train.best_response import read_target_record, shipped_bot

    run, out_dir = pathlib.Path(run_dir), pathlib.Path(out_dir)
    record = read_target_record(run)
    if record is None:
        raise ValueError(f"{run} is not a best-response run (no exploit_target.json)")
    name = shipped_bot(record["target"])
    if name is None or not (out_dir / f"{name}.json").is_file():
        raise ValueError(f"{run} is a best response to {record['target']!r}, not to a bot "
                         f"that ships (pretrained:NAME)")
    report = run / "exploit.json"
    if not report.is_file():
        raise ValueError(f"{run} has no measured margin (exploit.json): run zolik strength "
                         f"exploit --agent {record['target']} --run {run} --no-reference")
    trained_on = record.get("bot_sha256")
    if trained_on is not None and trained_on != pretrained.digest(name, out_dir):
        raise ValueError(f"{run} was trained against another file of pretrained:{name}; its "
                         f"margin says nothing about the bot that ships now")
    measured = json.loads(report.read_text(encoding="utf-8"))
    final, reference = measured["final"], measured.get("reference")
    meta = json.loads((out_dir / f"{name}.json").read_text(encoding="utf-8"))
    cfg = read_config(run)
    entry = {"margin": _margin_fields(final), "target": record["target"],
             "steps": int(final["step"]), "minutes": cfg.time_budget_minutes,
             "seed": cfg.seed, "warm_start": cfg.teacher, "run": run.name,
             "reference": None if reference is None else _reference_fields(reference),
             "bot_sha256": trained_on,  # None: an older run did not record its file
             "command": meta["best_response"]["command"]}
    card = (out_dir / f"{name}.md").read_text(encoding="utf-8")
    if not BEST_RESPONSE_PARAGRAPH.search(card):
        raise ValueError(f"the card {out_dir / name}.md has no best-response paragraph")
    meta["best_response"] = entry
    card = BEST_RESPONSE_PARAGRAPH.sub(lambda _: best_response_paragraph(entry), card)
    _replace_text(out_dir / f"{name}.json", json.dumps(meta, indent=1))
    _replace_text(out_dir / f"{name}.md", card)
    return name, entry


def _margin_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The figures of an ``exploit.json`` margin row that a card keeps."""
    return {"steps": int(row["step"]),
            **{k: row[k] for k in ("difference", "low", "high", "deals", "win_share")}}


def _reference_fields(row: dict[str, Any]) -> dict[str, Any]:
    """``_margin_fields`` of the reference row; its steps read from its run's checkpoints
    where the report did not keep them (reports before 2026-12-05 wrote 0)."""
    from eval.exploit import step_of

    fields = _margin_fields(row)
    if not fields["steps"]:
        fields["steps"] = step_of(pathlib.Path(str(row["agent"]).removeprefix("ppo:")))
    return fields


def _replace_text(path: pathlib.Path, text: str) -> None:
    """Write ``path`` whole or not at all (a kill midway leaves the old file)."""
    staged = path.with_name(f".{path.name}.new")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, path)


def model_card(name: str, meta: dict[str, Any], run: pathlib.Path, note: str) -> str:
    rows = "\n".join(
        f"| {r.get('play', 'sample')} | {r['opponent']} | {r['score_diff']:+.1f} "
        f"[{r['score_diff_low']:+.1f}, "
        f"{r['score_diff_high']:+.1f}] | {r['win']:.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}] |"
        for r in meta["strength"])
    flags = rules_flags(meta["rules"], meta["num_players"])
    options = (f"\nIts rules have options ({meta['rule_options']}), which no flag sets: give "
               f"them as `rule_options` in an eval config (`zolik eval --config FILE`)."
               if meta["rule_options"] else "")
    return f"""# pretrained:{name}

A MaskablePPO actor-critic for {meta['rules']} with {meta['num_players']} players
(options {meta['rule_options'] or 'none'}), stored as float16 weights.

**Training.** {training_paragraph(run, meta['steps'])}
{note}

**Strength.** {meta['deals']} duplicate deals per baseline (each deal once per seat
rotation) on held-out seeds from {meta['seed_start']:,}, played from the shipped file;
score difference in points per deal (bot minus baseline) and win share, 95% cluster
bootstrap intervals ({_play_modes(name, meta)}):

| play | opponent | score difference | win share |
|---|---|---|---|
{rows}

{best_response_paragraph(meta['best_response'])}

Play it: `zolik eval --agents pretrained:{name} planner{flags} --deals 100`
{_other_play(name, meta)}{options}
"""


def _play_modes(name: str, meta: dict[str, Any]) -> str:
    """The card's key to its ``play`` column."""
    if pretrained.play_views(meta) > 1:
        return (f"play: `argmax` plays the likeliest move of its distribution averaged over "
                f"{pretrained.play_views(meta)} renamings of the suits, as "
                f"`pretrained:{name}` does")
    if pretrained.temperature(meta) == 0.0:
        return (f"play: `argmax` always plays its likeliest move, as `pretrained:{name}` "
                f"does")
    return (f"play: `sample` draws its moves from the policy{_at(meta)}, as "
            f"`pretrained:{name}` does; `argmax` always plays its likeliest move, as "
            f"`pretrained:{name}:argmax` does")


def _other_play(name: str, meta: dict[str, Any]) -> str:
    """The card's line on the bot's other way to play."""
    if pretrained.play_views(meta) > 1:
        return (f"(`pretrained:{name}:argmax` plays the network's own likeliest move, "
                f"without the renamings).")
    if pretrained.temperature(meta) == 0.0:
        return (f"(it plays its likeliest move; `pretrained:{name}:t=1` samples from the "
                f"policy instead).")
    return f"(`pretrained:{name}:argmax` plays the most likely move instead of sampling)."


def _at(meta: dict[str, Any]) -> str:
    """`` at play temperature T`` for a bot that samples at a temperature other than 1."""
    t = pretrained.temperature(meta)
    return "" if t == 1.0 else (f" at play temperature {t:g} (each move's probability to "
                                f"the power {1 / t:g}, renormalized)")


def training_paragraph(run: pathlib.Path, steps: int) -> str:
    """How a run's network was trained, for its model card: a PPO run's warm start and
    recipe, an expert-iteration run's rounds and the network it started from, or, for a
    copy of a shipped bot (``train.bot_run.run_of_bot``: exported again, e.g. at another
    play temperature), that bot's own paragraph, as its card gave it."""
    if (run / "exit.json").exists():
        return _exit_paragraph(run)
    if (run / "bot.json").exists():
        return json.loads((run / "bot.json").read_text()).get("training", "(not recorded)")
    warm = run / "warm_start.json"
    teacher = json.loads(warm.read_text()) if warm.exists() else None
    start = (f"a warm start imitating `{teacher['teacher']}` ({teacher['samples']:,} decisions, "
             f"{teacher['accuracy']:.1%} held-out move match), then " if teacher else "")
    cfg = read_config(run)
    recipe = ", ".join(f"{k} {getattr(cfg, k)}" for k in (
        "num_envs", "n_steps", "n_epochs", "learning_rate", "ent_coef", "gamma", "net_arch",
        "pool", "pool_focus", "shaping", "obs_features", "plan_prior", "discard_prior"))
    return (f"`zolik train` (run `{cfg.exp_name}`, seed {cfg.seed}): {start}PPO\n"
            f"self-play against an opponent pool for {steps:,} learner steps, about\n"
            f"{_minutes(run)} minutes on a 2-core CPU. Recipe: {recipe}.")


def _exit_paragraph(run: pathlib.Path) -> str:
    """An expert-iteration run (``train.expert_iteration``): its plan, its rounds' time
    (``exit.csv``) and, after it, how the network it started from was trained."""
    import csv

    plan = json.loads((run / "exit.json").read_text())
    log = run / "exit.csv"
    rounds = list(csv.DictReader(log.open())) if log.exists() else []
    to_beat = (" with its likeliest move as the one to beat"
               if plan.get("anchor", "network") == "network" else "")
    kl = (f", a KL anchor of weight {plan['anchor_kl']:g}" if plan.get("anchor_kl") else "")
    head = plan.get("discard_head", 0)
    kl += (f", the network given a discard head of {head} units "
           f"(`agents/learned/discard_head.py`)" if head else "")
    weight = plan.get("deviation_weight", 1)
    renamed = " (the copies in renamed suits)" if plan.get("renamed_repeats") else ""
    stress = f", the labels that overrule it counted {weight} times{renamed}" if weight > 1 else ""
    text = (f"`zolik exit` (expert iteration, seed {plan['seed']}): {len(rounds)} "
            f"round{'s, each' * (len(rounds) != 1)} of {plan['decisions']:,} decisions of its "
            f"own play labelled by `{plan['labeller']}`{to_beat}{stress}, distilled for "
            f"{plan['epochs']} epoch{'s' * (plan['epochs'] != 1)} at step "
            f"{plan['learning_rate']:g}{kl}; about "
            f"{sum(float(r['seconds']) for r in rounds) / 60:.0f} minutes on a 2-core CPU. ")
    init = pathlib.Path(plan["init"])
    if (init / "bot.json").exists():
        bot = json.loads((init / "bot.json").read_text())
        return (text + f"It started from `pretrained:{bot['bot']}` as it shipped then (sha256 "
                f"{bot['bot_sha256'][:12]}), trained so: {bot.get('training', '(not recorded)')}")
    checkpoint = ppo_agent.resolve_checkpoint(init)
    side = checkpoint.with_suffix(".json")
    steps = int(json.loads(side.read_text()).get("step", 0)) if side.exists() else 0
    return text + f"It started from the run `{init.name}`: " + training_paragraph(init, steps)


def card_training(name: str, bots: pathlib.Path = pretrained.BOTS) -> str:
    """The training paragraph of a shipped bot's model card, on one line ("" if none)."""
    path = bots / f"{name}.md"
    found = re.search(r"\*\*Training\.\*\* (.*?)\n\n\*\*Strength", path.read_text(), re.S) \
        if path.exists() else None
    return " ".join(found.group(1).split()) if found else ""
