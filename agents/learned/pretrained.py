"""``pretrained:NAME``: PPO bots that ship with the kit, playable without training.

A bot is three files in ``agents/learned/bots/`` (package data): ``NAME.pt``, the
actor-critic's weights in float16 with its ``NetSpec`` (the network's shape, features,
priors and the rules it was trained for; a few MB, written by ``train.export``);
``NAME.json``, the same rules plus the strength table measured on held-out duplicate
deals; and ``NAME.md``, its model card (how it was
trained, what it scores). ``pretrained:NAME`` rebuilds the network in float32 and plays
it like ``ppo:PATH``: sampling its moves at the bot's own play temperature (saved in its
``.pt``; 1 unless the export chose a lower one, ``agents.learned.ppo.sharpen``);
``pretrained:NAME:argmax`` plays the most likely move, ``pretrained:NAME:t=T`` samples at
temperature ``T`` instead. A bot exported with ``views`` above 1 plays the likeliest move of
its network's distribution averaged over that many renamings of the suits
(``agents.suit_average``; ``pretrained:NAME:views=N`` for N renamings, ``:argmax`` for the
network alone).
Other rules than the bot's are a ``ValueError`` naming the difference.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import torch

from agents.learned import legacy
from agents.learned.build import network
from agents.learned.net_spec import NetSpec
from agents.learned.ppo import (
    PPOPolicy,
    check_temperature,
    rules_difference,
    split_mode,
    temperature_of,
)
from agents.learned.ppo_net import LeanMaskablePolicy
from agents.suit_average import SuitAveraged, check_views
from zolik_env.rummy.options import RuleSet

BOTS = Path(__file__).with_name("bots")
FORMAT = 3  # version of the ``.pt`` layout: the net spec, the weights, the play temperature
OLD_FORMATS = (1, 2)  # 1: flat fields beside the weights (``legacy.spec_from_bot_v1``);
# 2: format 3 without a play temperature (it plays at 1)


def names(bots: Path = BOTS) -> list[str]:
    """The bots that ship (or those in the folder ``bots``), by name."""
    return sorted(p.stem for p in bots.glob("*.pt"))


def card(name: str, bots: Path = BOTS) -> dict[str, Any]:
    """A bot's ``NAME.json``: its rules and its measured strength."""
    path = bots / f"{name}.json"
    if not path.exists():
        raise ValueError(f"no pretrained bot {name!r}: choose from {', '.join(names(bots))}")
    meta: dict[str, Any] = json.loads(path.read_text())
    return meta


def digest(name: str, bots: Path = BOTS) -> str:
    """sha256 of a bot's weights file: a figure measured against one file (a best response's
    margin) does not carry over to another file of the same name."""
    return hashlib.sha256((bots / f"{name}.pt").read_bytes()).hexdigest()


def pack(policy: Any, rules: RuleSet, temperature: float = 1.0,
         views: int = 1) -> dict[str, Any]:
    """What a bot's ``.pt`` holds: the network's ``NetSpec``, its float16 weights, the
    play temperature ``pretrained:NAME`` samples at and the renamings of the suits its
    play averages over (``views``; above 1 it plays the likeliest averaged move)."""
    weights = {k: v.half() if v.is_floating_point() else v
               for k, v in policy.state_dict().items()}
    temperature = check_temperature(temperature, "a bot's play temperature")
    if views != 1 and temperature != 0.0:
        raise ValueError(f"a bot averaged over {views} renamings plays its likeliest move: "
                         f"give play temperature 0, not {temperature:g}")
    return {"format": FORMAT, "net_spec": legacy.spec_of(policy, rules).to_dict(),
            "state_dict": weights, "temperature": temperature,
            "views": check_views(f"views={views}")}


def temperature(saved: dict[str, Any]) -> float:
    """The play temperature of a bot's ``.pt`` contents (1 for the formats before 3)."""
    return float(saved.get("temperature", 1.0))


def play_views(saved: dict[str, Any]) -> int:
    """The renamings of the suits a bot's own play averages over (``agents.suit_average``;
    1, the network alone, for bots exported before there were any)."""
    return int(saved.get("views", 1))


def spec_of_bot(saved: dict[str, Any], name: str) -> NetSpec:
    """The ``NetSpec`` of a bot's ``.pt`` contents, of this format or an older one."""
    fmt = saved.get("format")
    if fmt == 1:
        return legacy.spec_from_bot_v1(saved)
    if fmt not in (*OLD_FORMATS, FORMAT):
        raise ValueError(f"pretrained bot {name!r} has format {fmt!r}; this kit reads "
                         f"formats {', '.join(map(str, (*OLD_FORMATS, FORMAT)))}")
    return NetSpec.from_dict(saved.get("net_spec"), f"pretrained bot {name!r}")


def widened(saved: dict[str, Any]) -> dict[str, Any]:
    """The weights of a bot's ``.pt`` contents in float32, as the network computes."""
    return {k: v.float() if v.is_floating_point() else v
            for k, v in saved["state_dict"].items()}


def unpack(saved: dict[str, Any], rules: RuleSet, name: str) -> LeanMaskablePolicy:
    """The network of a bot's ``.pt`` contents, after checking it fits ``rules``."""
    spec = spec_of_bot(saved, name)
    detail = rules_difference(spec.rules, rules, "bot")
    if detail:
        raise ValueError(f"pretrained bot {name!r} plays other rules ({detail})")
    net = network(spec, rules)
    net.load_state_dict(widened(saved))
    net.optimizer = None  # a player needs no Adam state
    net.set_training_mode(False)
    return net


def load(name: str, rules: RuleSet, deterministic: bool = False,
         play_temperature: float | None = None,
         views: int | None = None) -> PPOPolicy | SuitAveraged:
    """The bot ``name`` as a Policy for ``rules``: as it plays (its own play temperature and
    renamings of the suits), sampling at ``play_temperature``, playing the network's
    likeliest move when ``deterministic``, or averaged over ``views`` renamings."""
    card(name)  # names the bots when ``name`` is unknown
    saved = torch.load(BOTS / f"{name}.pt", map_location="cpu", weights_only=True)
    suffix = (":argmax" if deterministic else f":views={views}" if views else
              "" if play_temperature is None else f":t={play_temperature:g}")
    own = not deterministic and play_temperature is None
    chosen_views = views or (play_views(saved) if own else 1)
    chosen = temperature(saved) if play_temperature is None else play_temperature
    return player(saved, rules, name, suffix, deterministic, chosen, chosen_views)


def player(saved: dict[str, Any], rules: RuleSet, name: str, suffix: str,
           deterministic: bool, play_temperature: float,
           views: int) -> PPOPolicy | SuitAveraged:
    """The Policy of a bot's ``.pt`` contents, named ``pretrained:NAME`` + ``suffix``: its
    network, averaged over ``views`` renamings of the suits when above 1."""
    label = f"pretrained:{name}{suffix}"
    network = PPOPolicy(unpack(saved, rules, name), label, deterministic or views > 1, rules,
                        play_temperature)
    return network if views == 1 else SuitAveraged(network, rules, views, name=label)


def make(rules: RuleSet, argument: str = "") -> PPOPolicy | SuitAveraged:
    """Registry factory for ``pretrained:NAME`` (``pretrained:NAME:argmax``,
    ``pretrained:NAME:t=T``, ``pretrained:NAME:views=N``)."""
    if not argument:
        raise ValueError(f"pretrained needs a bot name: pretrained:NAME, NAME one of "
                         f"{', '.join(names())}")
    head, _, last = argument.rpartition(":")
    if head and last.startswith("views="):  # the network averaged over renamings
        return load(head, rules, views=check_views(last))
    name, mode = split_mode(argument, "pretrained", temperatures=True)
    if mode.startswith("t="):
        return load(name, rules, play_temperature=temperature_of(mode))
    return load(name, rules, mode == "argmax")
