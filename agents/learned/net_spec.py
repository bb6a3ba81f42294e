"""``NetSpec``: everything that shapes a learned bot's network, saved with it.

A network's shape, the features its observations carry, its priors and the rules it
plays are one frozen, versioned record. Training builds the network from it
(``agents.learned.build``), every checkpoint's sidecar and every shipped bot stores it
(``to_dict``), and ``ppo:PATH``, ``pretrained:NAME``, the pool's snapshots and
``zolik export`` read it back (``from_dict``). Files saved before the spec existed are
turned into one by ``agents.learned.legacy``, the only place that knows older layouts.

Fields:

=====================  ==============================================================
``rules``              the rules it was trained for: ``{"rules", "num_players",
                       "rule_options"}`` (``rules_meta``; ``{}``: not recorded)
``net_arch``           hidden layer widths of the actor and of the critic
``obs_features``       the feature set appended to the observation
                       (``agents.features.hand_features``; ``""``: none)
``feature_version``    the version of the hand features it was trained on
``critic_extra``       entries of the privileged critic's view (0: none)
``plan_prior``         the plan prior adds to the logits
``plan_pending``       the plan prior has its third row (an opening under way)
``discard_prior``      the discard prior's spec (``agents.learned.discard_prior``), or None
``prior_scale``        each prior's coefficients are this times its parameters
=====================  ==============================================================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from agents.features.hand_features import FEATURE_VERSION
from zolik_env.rummy.options import RuleSet, preset, rule_options_of

SPEC_VERSION = 1  # bumped when a field is added, removed or changes meaning


@dataclass(frozen=True)
class NetSpec:
    """What shapes a learned bot (see the module docstring)."""

    rules: dict[str, Any]
    net_arch: tuple[int, ...]
    obs_features: str = ""
    feature_version: int = FEATURE_VERSION
    critic_extra: int = 0
    plan_prior: bool = False
    plan_pending: bool = False
    discard_prior: dict[str, Any] | None = None
    prior_scale: float = 1.0
    version: int = field(default=SPEC_VERSION)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able values (tuples as lists)."""
        out = dataclasses.asdict(self)
        out["net_arch"] = list(self.net_arch)
        return out

    @classmethod
    def from_dict(cls, saved: Any, source: str = "net spec") -> NetSpec:
        """The spec of ``to_dict``'s output; ``ValueError`` naming ``source`` and the bad
        part for anything else (another version, unknown or missing fields)."""
        if not isinstance(saved, dict):
            raise ValueError(f"{source}: the net spec is {type(saved).__name__}, not a mapping")
        if saved.get("version") != SPEC_VERSION:
            raise ValueError(f"{source}: net spec version {saved.get('version')!r}; this kit "
                             f"reads version {SPEC_VERSION}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown, missing = sorted(set(saved) - names), sorted(names - set(saved))
        if unknown or missing:
            raise ValueError(f"{source}: net spec fields unknown {unknown}, missing {missing}")
        try:
            return cls(**{**saved, "net_arch": tuple(int(w) for w in saved["net_arch"])})
        except (TypeError, ValueError) as error:
            raise ValueError(f"{source}: bad net_arch {saved['net_arch']!r} ({error})") from None

    def rule_set(self) -> RuleSet:
        """The rules the network was trained for."""
        return preset(self.rules["rules"], num_players=self.rules["num_players"],
                      **self.rules.get("rule_options", {}))


def rules_meta(rules: RuleSet | None) -> dict[str, Any]:
    """What a spec and a checkpoint's sidecar record of ``rules`` (``{}``: not known)."""
    if rules is None:
        return {}
    return {"rules": rules.name, "num_players": rules.num_players,
            "rule_options": rule_options_of(rules)}


__all__ = ["SPEC_VERSION", "NetSpec", "rules_meta"]
