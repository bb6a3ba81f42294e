"""A run dir holding a shipped bot, so that what starts from a run (``zolik exit --init
pretrained:NAME``) can start from a bot that ships (``run_of_bot``)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import torch
import yaml

from agents.learned import pretrained
from train.config import to_dict
from train.export import card_training


def run_of_bot(name: str, cfg: Any, run_dir: pathlib.Path,
               bots: pathlib.Path = pretrained.BOTS) -> pathlib.Path:
    """A run dir holding the shipped bot ``name`` (``config.yaml``, ``final.zip`` with the
    bot's weights widened from float16, ``bot.json`` naming the file's sha256), so that
    what starts from a run (``zolik exit --init``) can start from a bot that ships. ``cfg``
    is the recipe its card names; ``ValueError`` when that builds another network (another
    ``NetSpec``) than the bot's, or when ``run_dir`` holds another file of the bot."""
    from agents.learned.build import with_discard_head
    from train.ppo import _new_model, save_checkpoint
    from train.selfplay import OpponentPool, PoolVecEnv

    run_dir = pathlib.Path(run_dir)
    record = {"bot": name, "bot_sha256": pretrained.digest(name, bots)}
    if (run_dir / "final.zip").exists():
        path = run_dir / "bot.json"
        theirs = json.loads(path.read_text()) if path.exists() else {}
        if {k: theirs.get(k) for k in record} != record:
            raise ValueError(f"{run_dir} holds another bot's network ({theirs.get('bot')}, "
                             f"sha256 {str(theirs.get('bot_sha256'))[:12]}...)")
        return run_dir
    saved = torch.load(bots / f"{name}.pt", map_location="cpu", weights_only=True)
    differ, head = recipe_differences(cfg, pretrained.spec_of_bot(saved, name).to_dict())
    if differ:
        raise ValueError(f"config {cfg.exp_name!r} builds another network than "
                         f"pretrained:{name} ({', '.join(differ)} differ)")
    rules = cfg.rules()
    env = PoolVecEnv(1, rules, OpponentPool(rules, cfg.pool, cfg.pool_size, cfg.seed),
                     cfg.reward, cfg.seed, features=cfg.obs_features)
    model = _new_model(cfg, env)
    if head:
        with_discard_head(model, head["width"], rules)
    model.policy.load_state_dict(pretrained.widened(saved))
    model.num_timesteps = int(pretrained.card(name, bots).get("steps", 0))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False))
    (run_dir / "bot.json").write_text(json.dumps(
        {**record, "training": card_training(name, bots)}, indent=1))
    save_checkpoint(model, cfg, run_dir / "final.zip")  # last: it marks a finished copy
    return run_dir


def recipe_differences(cfg: Any, spec: dict[str, Any]) -> tuple[list[str], Any]:
    """The ``NetSpec`` fields (``spec``: a bot's, as a dict) in which the network that the
    recipe ``cfg`` builds differs, and the bot's discard head (None if it has none). A head
    joins a network after its recipe's training (``zolik exit --discard-head``), so a bot
    with one fits the recipe of the network it was added to."""
    from train.ppo import net_spec

    mine = net_spec(cfg).to_dict()
    head = (spec.get("discard_prior") or {}).get("head")
    if head and mine.get("discard_prior"):
        mine["discard_prior"] = {**mine["discard_prior"], "head": head}
    return sorted(k for k in {*mine, *spec} if mine.get(k) != spec.get(k)), head


__all__ = ["recipe_differences", "run_of_bot"]
