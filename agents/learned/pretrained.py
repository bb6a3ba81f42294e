"""``pretrained:NAME``: PPO bots that ship with the kit, playable without training.

A bot is three files in ``agents/learned/bots/`` (package data): ``NAME.pt``, the actor-critic's
weights in float16 with the network's shape and the rules it was trained for (a few MB,
written by ``train.export``); ``NAME.json``, the same rules plus the strength table
measured on held-out duplicate deals; and ``NAME.md``, its model card (how it was
trained, what it scores). ``pretrained:NAME`` rebuilds the network in float32 and plays
it like ``ppo:PATH`` (sampling; ``pretrained:NAME:argmax`` plays the most likely move).
Other rules than the bot's are a ``ValueError`` naming the difference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from gymnasium import spaces

from agents.features.hand_features import FEATURE_VERSION, UNRECORDED_VERSION, training_space
from agents.learned.discard_prior import discard_prior_spec
from agents.learned.ppo import (
    PPOPolicy,
    ScaledObs,
    critic_extra_of,
    feature_version_of,
    features_of,
    obs_scale,
    rules_difference,
    rules_meta,
    split_mode,
)
from agents.learned.ppo_net import LeanMaskablePolicy
from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.rummy.options import RuleSet

BOTS = Path(__file__).with_name("bots")
FORMAT = 1  # version of the ``.pt`` layout below


def names() -> list[str]:
    """The bots that ship, by name."""
    return sorted(p.stem for p in BOTS.glob("*.pt"))


def card(name: str) -> dict[str, Any]:
    """A bot's ``NAME.json``: its rules and its measured strength."""
    path = BOTS / f"{name}.json"
    if not path.exists():
        raise ValueError(f"no pretrained bot {name!r}: choose from {', '.join(names())}")
    meta: dict[str, Any] = json.loads(path.read_text())
    return meta


def network(net_arch: list[int], rules: RuleSet, features: str = "",
            plan_prior: bool = False, feature_version: int = FEATURE_VERSION,
            critic_extra: int = 0, discard_prior: bool = False,
            prior_scale: float = 1.0,
            prior_spec: dict[str, Any] | None = None,
            plan_pending: bool = False) -> LeanMaskablePolicy:
    """An untrained actor-critic of the trainer's shape for ``rules`` (observations with
    the ``features`` of ``agents.features.hand_features`` appended; ``plan_prior``,
    ``discard_prior`` and a privileged critic of ``critic_extra`` entries: see
    ``agents.learned.ppo_net``); ``prior_spec``: a saved discard prior's spec (default: the
    rules' own); ``plan_pending``: the plan prior has its third row
    (``plan_pending_start``; its start does not matter to a network about to be loaded)."""
    space = training_space(rules, features, critic_extra > 0)
    spec = (prior_spec or discard_prior_spec(rules)) if discard_prior else None
    return LeanMaskablePolicy(space, spaces.Discrete(NUM_ACTIONS),
                              lambda _: 0.0, net_arch=list(net_arch), plan_prior=plan_prior,
                              discard_prior=spec, prior_scale=prior_scale,
                              plan_pending_start=0.0 if plan_pending else None,
                              features_extractor_class=ScaledObs,
                              features_extractor_kwargs={
                                  "scale": obs_scale(rules, features,
                                                     critic_extra).tolist(),
                                  "features": features,
                                  "feature_version": feature_version,
                                  "critic_extra": critic_extra})


def pack(policy: Any, rules: RuleSet) -> dict[str, Any]:
    """What a bot's ``.pt`` holds: float16 weights, the hidden layers and the rules."""
    arch = policy.net_arch
    net_arch = list(arch) if isinstance(arch, list) else list(arch["pi"])
    weights = {k: v.half() if v.is_floating_point() else v
               for k, v in policy.state_dict().items()}
    return {"format": FORMAT, "net_arch": net_arch, "rules": rules_meta(rules),
            "obs_features": features_of(policy),
            "feature_version": feature_version_of(policy),
            "critic_extra": critic_extra_of(policy),
            "plan_prior": bool(getattr(policy, "use_plan_prior", False)),
            "discard_prior": getattr(policy, "discard_prior_spec", None) is not None,
            "discard_prior_spec": getattr(policy, "discard_prior_spec", None),
            "prior_scale": float(getattr(policy, "prior_scale", 1.0)),
            "plan_pending": getattr(policy, "plan_pending_start", None) is not None,
            "state_dict": weights}


def unpack(saved: dict[str, Any], rules: RuleSet, name: str) -> LeanMaskablePolicy:
    """The network of a bot's ``.pt`` contents, after checking it fits ``rules``."""
    if saved.get("format") != FORMAT:
        raise ValueError(f"pretrained bot {name!r} has format {saved.get('format')!r}; this "
                         f"kit reads format {FORMAT}")
    detail = rules_difference(saved["rules"], rules, "bot")
    if detail:
        raise ValueError(f"pretrained bot {name!r} plays other rules ({detail})")
    net = network(saved["net_arch"], rules, str(saved.get("obs_features", "")),
                  bool(saved.get("plan_prior", False)),
                  int(saved.get("feature_version", UNRECORDED_VERSION)),
                  int(saved.get("critic_extra", 0)), bool(saved.get("discard_prior", False)),
                  float(saved.get("prior_scale", 1.0)), saved.get("discard_prior_spec"),
                  bool(saved.get("plan_pending", False)))
    net.load_state_dict({k: v.float() if v.is_floating_point() else v
                         for k, v in saved["state_dict"].items()})
    net.optimizer = None  # a player needs no Adam state
    net.set_training_mode(False)
    return net


def load(name: str, rules: RuleSet, deterministic: bool = False) -> PPOPolicy:
    """The bot ``name`` as a Policy for ``rules``."""
    card(name)  # names the bots when ``name`` is unknown
    saved = torch.load(BOTS / f"{name}.pt", map_location="cpu", weights_only=True)
    suffix = ":argmax" if deterministic else ""
    return PPOPolicy(unpack(saved, rules, name), f"pretrained:{name}{suffix}", deterministic,
                     rules)


def make(rules: RuleSet, argument: str = "") -> PPOPolicy:
    """Registry factory for ``pretrained:NAME`` (``pretrained:NAME:argmax``)."""
    if not argument:
        raise ValueError(f"pretrained needs a bot name: pretrained:NAME, NAME one of "
                         f"{', '.join(names())}")
    name, mode = split_mode(argument, "pretrained")
    return load(name, rules, mode == "argmax")
