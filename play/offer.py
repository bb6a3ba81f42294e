"""Which agents and rule options a request may name, for one game's rules.

The form's rule options are a short list (``FORM_OPTIONS``) checked by the core's own
``options.preset`` (a bad value is its ``ValueError``, a 400). The agents a game offers
(its hint menu) are the server's offered specs that play its rules: a shipped bot
(``pretrained:NAME``) only for the rules it was trained for, read from its card without
loading the network; a spec ``zolik play`` was given is built once per rule set to see.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from agents.learned.net_spec import rules_meta
from agents.learned.pretrained import card
from agents.registry import make_agent
from zolik_env.rummy.options import RuleSet

# the rule options the form may set besides preset and players, with their type
FORM_OPTIONS: dict[str, type] = {"opening_points": int, "opening_needs_clean_run": bool,
                                 "no_meld_rounds": int, "match_deals": int,
                                 "match_target": int}
BASELINES = ("random", "greedy", "planner")


def form_options(value: Any) -> dict[str, Any]:
    """The ``options`` of a new-game request: a JSON object of ``FORM_OPTIONS`` names with
    values of their type; ``ValueError`` naming the first that is not."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"options must be an object of rule options, got {str(value)[:40]}")
    for name, given in value.items():
        want = FORM_OPTIONS.get(name)
        if want is None:
            raise ValueError(f"rule option {str(name)[:40]!r} cannot be set here: choose "
                             f"from {', '.join(FORM_OPTIONS)}")
        if isinstance(given, bool) != (want is bool) or not isinstance(given, want):
            raise ValueError(f"rule option {name}={str(given)[:20]} must be "
                             f"{'true or false' if want is bool else 'an integer'}")
    return dict(value)


def plays(spec: str, rules: RuleSet) -> bool:
    """Whether agent ``spec`` plays ``rules`` (a shipped bot: its card's rules)."""
    if spec in BASELINES:
        return True
    if spec.startswith("pretrained:"):
        name = spec.split(":")[1]
        try:
            trained = card(name)
        except ValueError:
            return False
        return all(trained.get(k) == v for k, v in rules_meta(rules).items())
    return _builds(spec, rules)


@functools.lru_cache(maxsize=256)
def _builds(spec: str, rules: RuleSet) -> bool:
    try:
        make_agent(spec, rules)
    except (ValueError, TypeError):
        return False
    return True


def agents_for(offered: Iterable[str], rules: RuleSet) -> list[str]:
    """The offered specs that play ``rules``, the planner first."""
    return sorted((s for s in offered if plays(s, rules)), key=lambda s: (s != "planner", s))
