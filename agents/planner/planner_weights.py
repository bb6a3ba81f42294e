"""The planner's weights: every number its choices trade off, with the defaults it ships.

``planner`` plays with ``PlannerWeights()``; ``planner:KEY=VALUE,...`` changes some of
them (``planner:penalty_danger=1.2,near_out=5``), for experiments and for a teacher that a
warm start imitates. A spec that names an unknown key or a bad value is a one-line error.

=====================  ========  ==================================================
key                    default   what it weighs (``agents.planner.choice_kernel``,
                                 ``agents.planner.turn_kernel``, ``agents.planner.planner_kernel``)
=====================  ========  ==================================================
``keep``               1.0       times a card's future value (partners, live outs)
``held``               40.0      protection of cards held for the opening's melds
``danger``             1.0       times the danger of feeding an opponent
``penalty``            0.3       times a card's hand penalty, before opening
``penalty_opened``     0.5       ... added once the seat has opened (or jolly)
``penalty_danger``     0.7       ... added when an opponent may go out soon
``near_out``           4         an opened opponent with this many cards may go out
``joker_keep``         20.0      a kept joker's worth to the turn search
``joker_keep_danger``  -50.0     ... when an opponent may go out soon
``out_bonus``          100.0     the turn search's bonus for going out
=====================  ========  ==================================================
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from agents.registry import key_values


@dataclass(frozen=True, slots=True)
class PlannerWeights:
    """See the module docstring for what each weight means."""

    keep: float = 1.0
    held: float = 40.0
    danger: float = 1.0
    penalty: float = 0.3
    penalty_opened: float = 0.5
    penalty_danger: float = 0.7
    near_out: int = 4
    joker_keep: float = 20.0
    joker_keep_danger: float = -50.0
    out_bonus: float = 100.0

    def spec(self) -> str:
        """The ``KEY=VALUE,...`` argument of the weights that differ from the defaults."""
        default = PlannerWeights()
        return ",".join(f"{f.name}={getattr(self, f.name):g}" for f in dataclasses.fields(self)
                        if getattr(self, f.name) != getattr(default, f.name))


DEFAULT_WEIGHTS = PlannerWeights()  # what ``planner`` plays with
_KEYS = tuple(f.name for f in dataclasses.fields(PlannerWeights))


def parse_weights(argument: str) -> PlannerWeights:
    """``PlannerWeights`` from ``"KEY=VALUE,..."`` (empty: the defaults), naming a
    malformed part, an unknown key or a value that is not a finite number."""
    given = {key: _value(key, text)
             for key, text in key_values("planner", argument, _KEYS).items()}
    return PlannerWeights(**given)  # type: ignore[arg-type]


def _value(key: str, text: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"planner: {key}={text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"planner: {key}={text!r} is not a finite number")
    if key == "near_out":
        if value != int(value) or value < 0:
            raise ValueError(f"planner: near_out={text!r} must be a whole number >= 0")
        return int(value)
    return value
