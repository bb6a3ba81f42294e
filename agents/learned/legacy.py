"""The one converter from older saved files to today's ``NetSpec`` and module names.

Everything that knows an older layout lives here, so that the loaders read one spec:

- ``old_module_names``, ``load_model``: checkpoints (sb3-contrib zips) name the
  network's classes by module path, and the agents' modules moved into role
  subpackages; while a zip loads, the old paths resolve to the new modules.
- ``spec_of``: the spec of a loaded network; networks saved before the spec existed get
  one made from what they carry (their features extractor and prior settings).
- ``spec_from_bot_v1``: the spec of a shipped bot's ``.pt`` of format 1 (flat fields).
- ``upgrade_run_config``: a run dir's ``config.yaml`` from before later keys existed.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from typing import Any

from agents.features.hand_features import UNRECORDED_VERSION
from agents.learned.discard_prior import discard_prior_spec
from agents.learned.net_spec import NetSpec, rules_meta
from zolik_env.rummy.options import RuleSet, preset

# module paths of classes pickled by earlier versions -> where they live now
OLD_MODULES = {
    "agents.ppo": "agents.learned.ppo",
    "agents.ppo_net": "agents.learned.ppo_net",
    "agents.ppo_joint": "agents.learned.ppo_joint",
    "agents.discard_prior": "agents.learned.discard_prior",
    "agents.masked_softmax": "agents.learned.masked_softmax",
    "agents.rllib_net": "agents.learned.rllib_net",
    "agents.hand_features": "agents.features.hand_features",
    "agents.card_features": "agents.features.card_features",
    "agents.planner_weights": "agents.planner.planner_weights",
    "agents.dice_net": "agents.dice.dice_net",
    "agents.dice_turn_net": "agents.dice.dice_turn_net",
}
# keys a run's config.yaml lacks when it was started before they existed, and their
# values then
RUN_CONFIG_DEFAULTS = {"obs_features": "", "plan_prior": False, "discard_prior": False,
                       "privileged_critic": False, "duplicate_reference": ""}


@contextlib.contextmanager
def old_module_names() -> Iterator[None]:
    """While open, ``import agents.ppo_net`` (and the other ``OLD_MODULES``) gives the
    module's new home, so pickles that name the old path load."""
    added = [old for old in OLD_MODULES if old not in sys.modules]
    for old in added:
        sys.modules[old] = importlib.import_module(OLD_MODULES[old])
    try:
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)


def load_model(path: Any, **kwargs: Any) -> Any:
    """``MaskablePPO.load(path, **kwargs)`` with the old module paths resolving."""
    from sb3_contrib import MaskablePPO

    with old_module_names():
        return MaskablePPO.load(path, **kwargs)


def spec_of(net: Any, rules: RuleSet | None = None) -> NetSpec:
    """The spec of a network: the one it was built with, or (saved before specs) one made
    from its features extractor and prior settings, with ``rules`` as its rules; the
    result is kept on the network."""
    spec = getattr(net, "net_spec", None)
    if isinstance(spec, NetSpec):
        return spec
    spec = spec_from_network(net, rules)
    net.net_spec = spec
    return spec


def spec_from_network(net: Any, rules: RuleSet | None) -> NetSpec:
    """A spec for a network built before specs existed (or any MaskablePPO policy)."""
    extractor = net.pi_features_extractor
    arch = net.net_arch
    return NetSpec(
        rules=rules_meta(rules),
        net_arch=tuple(arch if isinstance(arch, list) else arch["pi"]),
        obs_features=str(getattr(extractor, "features", "")),
        feature_version=int(getattr(extractor, "feature_version", UNRECORDED_VERSION)),
        critic_extra=int(getattr(extractor, "critic_extra", 0)),
        plan_prior=bool(getattr(net, "use_plan_prior", False)),
        plan_pending=getattr(net, "plan_pending_start", None) is not None,
        discard_prior=getattr(net, "discard_prior_spec", None),
        prior_scale=float(getattr(net, "prior_scale", 1.0)))


def spec_from_bot_v1(saved: dict[str, Any]) -> NetSpec:
    """The spec of a bot ``.pt`` of format 1: flat fields beside the weights, each
    added later defaulting to what bots before it had."""
    rules = saved["rules"]
    prior = None
    if saved.get("discard_prior", False):
        prior = saved.get("discard_prior_spec") or discard_prior_spec(
            preset(rules["rules"], num_players=rules["num_players"],
                   **rules.get("rule_options", {})))
    return NetSpec(
        rules=rules, net_arch=tuple(int(w) for w in saved["net_arch"]),
        obs_features=str(saved.get("obs_features", "")),
        feature_version=int(saved.get("feature_version", UNRECORDED_VERSION)),
        critic_extra=int(saved.get("critic_extra", 0)),
        plan_prior=bool(saved.get("plan_prior", False)),
        plan_pending=bool(saved.get("plan_pending", False)),
        discard_prior=prior, prior_scale=float(saved.get("prior_scale", 1.0)))


def upgrade_run_config(raw: Any) -> Any:
    """A run's ``config.yaml`` mapping with the keys it predates filled in as they were."""
    if isinstance(raw, dict):
        for key, value in RUN_CONFIG_DEFAULTS.items():
            raw.setdefault(key, value)
    return raw


__all__ = ["OLD_MODULES", "load_model", "old_module_names", "spec_from_bot_v1", "spec_of",
           "upgrade_run_config"]
