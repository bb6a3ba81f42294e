"""A PPO network from its ``NetSpec``: what training constructs and loaders rebuild.

``network_kwargs`` is the one translation of a spec into the policy's constructor
arguments (sb3-contrib's ``policy_kwargs``), so a network built for training, one
rebuilt from a shipped bot and the pool's snapshots have the same shape by construction.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gymnasium import spaces

from agents.features.hand_features import FEATURE_VERSION, training_space
from agents.learned.discard_prior import discard_prior_spec
from agents.learned.legacy import spec_of
from agents.learned.net_spec import NetSpec, rules_meta
from agents.learned.ppo import ScaledObs, obs_scale
from agents.learned.ppo_net import LeanMaskablePolicy
from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.rummy.options import RuleSet


def make_spec(rules: RuleSet, net_arch: list[int] | tuple[int, ...], obs_features: str = "",
              *, critic_extra: int = 0, plan_prior: bool = False, plan_pending: bool = False,
              discard_prior: bool | dict[str, Any] = False,
              prior_scale: float = 1.0) -> NetSpec:
    """The spec of a network for ``rules``: ``discard_prior`` True takes the prior's spec
    for the default planner (``discard_prior_spec``), a mapping is a prior's spec."""
    prior = discard_prior if isinstance(discard_prior, dict) else (
        discard_prior_spec(rules) if discard_prior else None)
    return NetSpec(rules=rules_meta(rules), net_arch=tuple(int(w) for w in net_arch),
                   obs_features=obs_features, feature_version=FEATURE_VERSION,
                   critic_extra=critic_extra, plan_prior=plan_prior,
                   plan_pending=plan_pending, discard_prior=prior, prior_scale=prior_scale)


def network_kwargs(spec: NetSpec, rules: RuleSet, plan_open_start: float = 0.0,
                   plan_pending_start: float = 0.0) -> dict[str, Any]:
    """``policy_kwargs`` of a ``LeanMaskablePolicy`` of ``spec`` for ``rules``; the two
    starts are the plan prior's initial coefficients (training's; a network about to be
    loaded does not care)."""
    return {"net_arch": list(spec.net_arch), "features_extractor_class": ScaledObs,
            "plan_prior": spec.plan_prior, "discard_prior": spec.discard_prior,
            "prior_scale": spec.prior_scale, "plan_open_start": plan_open_start,
            "plan_pending_start": plan_pending_start if spec.plan_pending else None,
            "net_spec": spec.to_dict(),
            "features_extractor_kwargs": {
                "scale": obs_scale(rules, spec.obs_features, spec.critic_extra).tolist(),
                "features": spec.obs_features, "feature_version": spec.feature_version,
                "critic_extra": spec.critic_extra}}


def network(spec: NetSpec, rules: RuleSet) -> LeanMaskablePolicy:
    """An untrained network of ``spec`` for ``rules`` (weights to be loaded)."""
    space = training_space(rules, spec.obs_features, spec.critic_extra > 0)
    return LeanMaskablePolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 0.0,
                              **network_kwargs(spec, rules))


def add_discard_head(policy: LeanMaskablePolicy, head: dict[str, Any]) -> None:
    """Give ``policy``'s discard prior a discard head of spec ``head``
    (``agents.learned.discard_head.head_spec``): the moves stay as they were until it is
    trained; its net spec, its saved constructor arguments and its optimizer follow, so
    the network saves and loads with its head."""
    if policy.discard_prior_spec is None:
        raise ValueError("a discard head needs a network with the discard prior "
                         "(discard_prior: true)")
    if policy.discard_prior.head is not None:
        raise ValueError("the network already has a discard head")
    policy.discard_prior_spec = {**policy.discard_prior_spec, "head": head}
    policy.discard_prior.add_head(head)
    if policy.net_spec is not None:
        policy.net_spec = dataclasses.replace(policy.net_spec,
                                              discard_prior=policy.discard_prior_spec)
    policy.optimizer = policy.optimizer_class(
        policy.parameters(), lr=policy.optimizer.defaults["lr"], **policy.optimizer_kwargs)


def with_discard_head(model: Any, width: int, rules: RuleSet, seed: int = 0) -> None:
    """Give a loaded model's network (a sb3-contrib ``MaskablePPO``) a discard head of
    ``width`` units (``agents.learned.discard_head``) unless it has one; a new head changes
    no move until trained. Its hidden layers start from ``seed`` alone, not from torch's
    global generator, whose state depends on what the process drew before (a resumed run
    draws differently). The model's ``policy_kwargs`` follow, since a saved model is
    rebuilt from them."""
    import torch

    from agents.learned.discard_head import head_spec

    policy = model.policy
    if (policy.discard_prior_spec or {}).get("head"):
        return
    with torch.random.fork_rng(devices=[]):  # the caller's generator is left as it was
        torch.manual_seed(seed)
        add_discard_head(policy, head_spec(rules, width))
    model.policy_kwargs = {**model.policy_kwargs, "discard_prior": policy.discard_prior_spec,
                           "net_spec": spec_of(policy, rules).to_dict()}


__all__ = ["add_discard_head", "make_spec", "network", "network_kwargs", "with_discard_head"]
