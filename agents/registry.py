"""Build agents from short specs: a registered kind, ``ppo:PATH``, or an import path.

A spec is ``[NAME=]KIND[:ARGUMENT]``:

- ``random``, ``greedy``, ``planner[:KEY=VALUE,...]`` (``agents.planner.planner_weights``),
  ``pimc[:KEY=VALUE,...]`` (search, ``agents.search.pimc``), ``search:net=SPEC[,...]`` (a
  network that searches at play time, ``agents.search.net_search``), ``swap:net=SPEC,kinds=...``
  (an agent with some kinds of its moves the planner's, ``agents.kind_swap``),
  ``suits:net=SPEC[,views=N]`` (a network averaged over renamings of the suits,
  ``agents.suit_average``),
  ``oracle:planner[:...]`` and
  ``oracle:pimc[:...]`` (privileged yardsticks that see the true deal, evaluation only:
  ``agents.search.oracle``),
  ``ppo:PATH``, ``rllib:PATH`` (``agents.learned.rllib_policy``), ``pretrained:NAME``
  (bots that ship, ``agents.learned.pretrained``) and kinds added with ``register``:
  a registered kind name always wins.
- ``package.module:factory[:ARGUMENT]``: any other spec with a ``:`` is an import path.
  The module is imported and ``factory(rules)`` is called (``factory(rules, ARGUMENT)``
  when the spec has a trailing ``:ARGUMENT``); it must return a Policy (``act`` and
  ``act_batch``, see ``agents.base``). A class whose ``__init__`` takes the rules is a
  factory too. Evaluation workers import it again by name, so the module must be
  importable in a fresh process (on ``sys.path``, or in the current directory).
- ``path/to/file.py:factory[:ARGUMENT]``: the same with a Python file instead of a
  module; the file is loaded by its path (relative to the current directory), so it
  need not be importable. Evaluation workers load it again from the same path.
- ``NAME=`` in front gives the agent a display name for tables and replays:
  ``mine=mypkg.mymod:make_agent``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import math
import re
import sys
from collections.abc import Callable, Collection
from typing import Any

from agents.base import Policy
from zolik_env.rummy.options import RuleSet

# name -> "module:factory"; a factory takes (rules, argument) and returns a Policy
AGENTS: dict[str, str] = {
    "random": "agents.random_policy:make",
    "ppo": "agents.learned.ppo:make",
    "rllib": "agents.learned.rllib_policy:make",
    "pretrained": "agents.learned.pretrained:make",
    "greedy": "agents.planner.greedy:make",
    "planner": "agents.planner.planner:make",
    "pimc": "agents.search.pimc:make",
    "oracle": "agents.search.oracle:make",
    "search": "agents.search.net_search:make",
    "swap": "agents.kind_swap:make",
    "suits": "agents.suit_average:make",
}

_NAMED = re.compile(r"([\w.#+-]+)=(.+)")
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_FILE = re.compile(r".+\.py")


def _is_file(kind: str) -> bool:
    """A spec's kind names a Python file: ``*.py`` with a folder in it or found as a file
    (``pkg.py`` alone is a module ``py`` of ``pkg`` unless such a file exists)."""
    from pathlib import Path

    return bool(_FILE.fullmatch(kind)) and ("/" in kind or "\\" in kind or Path(kind).is_file())


def register(name: str, target: str) -> None:
    """Add an agent kind (``"module:factory"``; the factory takes ``(rules, argument)``).

    Evaluation workers receive the registry as it is when the evaluation starts, so a
    kind registered under ``if __name__ == "__main__":`` works with ``workers > 1``.
    """
    AGENTS[name] = target


def key_values(agent: str, argument: str, keys: Collection[str]) -> dict[str, str]:
    """``{"rollouts": "64", ...}`` from an agent's ``"rollouts=64,..."`` argument, naming a
    malformed part or a key not among ``keys`` (for ``pimc:`` and ``planner:`` specs)."""
    out: dict[str, str] = {}
    for part in filter(None, argument.split(",")):
        key, eq, value = part.partition("=")
        if not eq or key not in keys:
            raise ValueError(f"{agent}: {part!r} is not KEY=VALUE with KEY one of "
                             f"{', '.join(keys)}")
        out[key] = value
    return out


def number_value(agent: str, key: str, text: str, low: float,
                 kind: Callable[[str], float] = float) -> float:
    """``kind(text)`` for the spec key ``key=text`` of ``agent``, finite and at least
    ``low``; a ValueError naming the key and the bad value otherwise."""
    try:
        value = kind(text)
    except ValueError:
        raise ValueError(f"{agent}: {key}={text!r} is not a number") from None
    if not value >= low or not math.isfinite(value):
        raise ValueError(f"{agent}: {key}={text!r} must be at least {low:g}")
    return value


def split_name(spec: str) -> tuple[str | None, str]:
    """``("mine", "pkg.mod:make")`` for ``"mine=pkg.mod:make"``; ``(None, spec)`` without a name."""
    match = _NAMED.fullmatch(spec)
    if match and ":" not in match.group(1):
        return match.group(1), match.group(2)
    return None, spec


def is_privileged_spec(spec: str) -> bool:
    """Whether ``spec`` names an oracle (``oracle:...``, ``agents.search.oracle``): a
    privileged agent that sees the true deal. Read from the spec alone, nothing built."""
    return split_name(spec)[1].partition(":")[0] == "oracle"


def display_name(spec: str) -> str:
    """The name shown for ``spec`` in tables and replays: its ``NAME=`` or the spec."""
    name, rest = split_name(spec)
    return name or rest


def _load_file(path: str, spec: str) -> Any:
    """The module of the Python file ``path``, loaded once per resolved path."""
    from pathlib import Path

    resolved = Path(path).resolve()
    if not resolved.is_file():
        raise ValueError(f"agent {spec!r}: no file {path!r}")
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", resolved.stem)
    name = f"zolik_agent_file_{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.util.spec_from_file_location(name, resolved)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        loader.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise ValueError(f"agent {spec!r}: loading {path!r} failed: {type(error).__name__}: "
                         f"{str(error)[:200]}") from None
    return module


def _import(target: str, spec: str) -> Any:
    module, _, attr = target.partition(":")
    if _is_file(module):
        found = _load_file(module, spec)
    else:
        try:
            found = importlib.import_module(module)
        except ImportError as error:
            raise ValueError(f"agent {spec!r}: cannot import {module!r} ({error})") from error
    try:
        return getattr(found, attr)
    except AttributeError:
        raise ValueError(f"agent {spec!r}: module {module!r} has no {attr!r}") from None


def make_agent(spec: str, rules: RuleSet) -> Policy:
    """The agent named by ``spec`` (see the module docstring) for ``rules``.

    Raises:
        ValueError: naming an unknown kind, an import that fails, or a factory that
            fails or returns no Policy.
    """
    name, spec = split_name(spec)
    kind, _, argument = spec.partition(":")
    if kind in AGENTS:
        build: Callable[[RuleSet, str], Policy] = _import(AGENTS[kind], spec)
        policy = build(rules, argument)
    elif argument and (_MODULE.fullmatch(kind) or _is_file(kind)):
        attr, _, argument = argument.partition(":")
        factory = _import(f"{kind}:{attr}", spec)
        try:
            policy = factory(rules, argument) if argument else factory(rules)
        except Exception as err:  # not a factory of agents, or one that failed
            raise ValueError(f"agent {spec!r}: {kind}:{attr}(rules) failed: "
                             f"{type(err).__name__}: {str(err)[:200]}") from None
        if not (callable(getattr(policy, "act", None))
                and callable(getattr(policy, "act_batch", None))):
            raise ValueError(f"agent {spec!r}: {kind}:{attr}(rules) returned "
                             f"{type(policy).__name__}, not a Policy with act and act_batch "
                             f"(agents.base; the mixins BatchedFromSingle and "
                             f"SingleFromBatched add one from the other)")
    else:
        raise ValueError(f"unknown agent {spec!r}: choose from {', '.join(sorted(AGENTS))} "
                         f"(ppo takes ppo:PATH, rllib takes rllib:PATH, pretrained takes "
                         f"pretrained:NAME), or give package.module:factory or "
                         f"path/to/file.py:factory")
    if name is not None or not isinstance(getattr(policy, "name", None), str):
        with contextlib.suppress(AttributeError):  # a read-only name stays as it is
            policy.name = name or spec
    return policy
