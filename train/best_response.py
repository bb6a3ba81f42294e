"""Best responses: the kit's PPO recipe trained against one frozen agent (``zolik strength
exploit``, ``docs/yardsticks.md``).

How much a best response wins against its target on held-out duplicate deals is a lower
bound on the target's exploitability (local best response, as in the approximate
best-response studies of poker agents): a stronger learner, or a longer run, may win more.

The recipe is the packaged PPO config of the table (``configs/ppo/{preset}_{players}p.yaml``
by default) with:

- ``pool``: the target alone (weight 1), so every opponent seat of every training deal is
  the target; no snapshots of the learner, no baselines. A search target (``pimc``) sits
  in the pool by its import path (``agents.search.pimc:make:ARGUMENT``, the form a pool
  accepts for any factory) and plays each of its seats from that seat's information state
  (``zolik_env.envs.zolik_common.opponent_actions``).
- ``teacher``: the warm start imitates ``greedy`` by default. It must not be the target, or
  a close copy of it, so that the network learns to beat the target rather than to copy
  it: a teacher of the target's family is refused (``FAMILY``: ``pimc`` plays the planner's
  moves wherever it does not search, so planner teachers count as its copies). A greedy
  target gets the planner as its default teacher. The new network's discard prior still
  starts at the planner's discard weights (``train.config.teacher_weights``), as in every
  run of the recipe; the cloning then fits the teacher's moves.
- ``eval_every: 0``: no periodic evaluation against the config's opponents; the learning
  curve is measured afterwards on the checkpoints, every ``checkpoint_every`` steps
  (``eval.exploit``).
- ``time_budget_minutes``: the session's budget, the warm start inside it.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

from agents import registry
from train.config import PPOConfig, is_agent_spec, make_config, to_dict

FAMILY = {"planner": "planner", "pimc": "planner", "greedy": "greedy"}
TARGET_FILE = "exploit_target.json"


def family(spec: str) -> str:
    """The family of an agent spec (``FAMILY``), or the spec's kind."""
    kind = registry.split_name(spec)[1].partition(":")[0]
    return FAMILY.get(kind, kind)


def default_teacher(target: str) -> str:
    """``greedy``, or ``planner`` for a target of greedy's family."""
    return "planner" if family(target) == "greedy" else "greedy"


def check_teacher(target: str, teacher: str) -> None:
    """Refuse a warm start that would copy the target (see the module docstring)."""
    if teacher and family(teacher) == family(target):
        raise ValueError(f"teacher {teacher!r} is the target {target!r} or a copy of it (both "
                         f"of the {family(target)} family): a best response must not start as "
                         f"its target; use {default_teacher(target)!r} or \"\" (no warm start)")


def pool_entry(target: str) -> str:
    """The target as a training pool holds it: the spec itself, or for a registered kind
    the pool does not list (``pimc``) its factory's import path and argument."""
    name, spec = registry.split_name(target)
    if name is not None:
        raise ValueError(f"target {target!r}: give the agent's spec without a NAME= (the pool "
                         f"names its opponents by spec)")
    if registry.is_privileged_spec(spec):
        raise ValueError(f"target {target!r} is an oracle: it sees every card and cannot sit "
                         f"in a training pool (agents.search.oracle)")
    if is_agent_spec(spec):
        return spec
    kind, colon, argument = spec.partition(":")
    if kind in registry.AGENTS:
        return registry.AGENTS[kind] + (f":{argument}" if colon and argument else "")
    raise ValueError(f"target {target!r} is not an agent a pool can hold")


def slug(spec: str) -> str:
    """A folder-safe name of an agent spec."""
    return re.sub(r"[^\w.-]+", "_", spec).strip("_")[:60] or "agent"


def config_for(base: PPOConfig, target: str, minutes: float, teacher: str | None = None,
               checkpoint_every: int = 50_000) -> PPOConfig:
    """``base`` turned into the best-response recipe against ``target`` (module docstring).

    Raises:
        ValueError: naming a target a pool cannot hold or a teacher that copies it.
    """
    teacher = default_teacher(target) if teacher is None else teacher
    check_teacher(target, teacher)
    entry = pool_entry(target)
    values: dict[str, Any] = to_dict(base)
    values.update(pool={entry: 1.0}, pool_focus=0.0, teacher=teacher, eval_every=0,
                  time_budget_minutes=minutes, checkpoint_every=checkpoint_every,
                  exp_name=f"exploit_{slug(target)}_{base.preset}{base.players}p")
    return make_config(values, f"best response to {target!r}")


def shipped_bot(target: str) -> str | None:
    """The NAME of a ``pretrained:NAME`` (or ``pretrained:NAME:MODE``) target, else None."""
    kind, _, argument = registry.split_name(target)[1].partition(":")
    if kind != "pretrained":
        return None
    return argument.partition(":")[0] or None


def target_record(target: str) -> dict[str, Any]:
    """What ``TARGET_FILE`` keeps: the target's spec and, for a shipped bot, the sha256 of
    the weights file the best response was trained against (``pretrained.digest``)."""
    from agents.learned import pretrained

    name = shipped_bot(target)
    return {"target": target, **({"bot_sha256": pretrained.digest(name)} if name else {})}


def train(cfg: PPOConfig, target: str) -> pathlib.Path:
    """Train the best response of ``cfg`` (from ``config_for``); its run dir, in which
    ``TARGET_FILE`` names the target (``target_record``)."""
    from train.ppo import run

    record = target_record(target)  # before the hour: the file it trains against
    result = run(cfg)
    (result.run_dir / TARGET_FILE).write_text(json.dumps(record), encoding="utf-8")
    return result.run_dir


def target_of(run_dir: pathlib.Path) -> str | None:
    """The target a best-response run was trained against (``TARGET_FILE``), if it says."""
    record = read_target_record(run_dir)
    return None if record is None else str(record["target"])


def read_target_record(run_dir: pathlib.Path) -> dict[str, Any] | None:
    """A best-response run's ``TARGET_FILE`` (``target_record``), if it has one."""
    path = pathlib.Path(run_dir) / TARGET_FILE
    if not path.is_file():
        return None
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record
