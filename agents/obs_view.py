"""Named numpy views of one flat Žolík observation, for the heuristic agents.

    view = decode(obs, rules)        # dict of views, no copies
    view["hand"]                     # int16 (53,) own cards by kind
    view["known_taken"]              # int16 (P, 53), seat 0 = the observer

The slices and shapes are ``zolik_env.rummy.observe.obs_layout``, and the named columns
(phases, turn flags) are that module's constants, re-exported here; nothing here reads the
core's State. Imports only numpy and the public ``zolik_env.rummy`` modules.
"""

from __future__ import annotations

import functools

import numpy as np

from zolik_env.rummy.observe import (
    FLAG_FREED_JOKERS,
    FLAG_LAID,
    FLAG_OPENED_BEFORE,
    FLAG_TOOK_PILE,
    FLAG_UNDONE,
    OBSERVER,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PLAY,
    obs_layout,
)
from zolik_env.rummy.options import RuleSet

__all__ = [
    "FLAG_FREED_JOKERS",
    "FLAG_LAID",
    "FLAG_OPENED_BEFORE",
    "FLAG_TOOK_PILE",
    "FLAG_UNDONE",
    "OBSERVER",
    "PHASE_DRAW",
    "PHASE_OVER",
    "PHASE_PLAY",
    "View",
    "decode",
    "flag",
    "phase",
    "scalar",
    "slices",
    "turn_key",
]

View = dict[str, np.ndarray]


@functools.lru_cache(maxsize=64)
def slices(rules: RuleSet) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``(name, start, stop, shape)`` of every slice of the (unprivileged) observation."""
    out, start = [], 0
    for name, shape in obs_layout(rules):
        size = int(np.prod(shape))
        out.append((name, start, start + size, shape))
        start += size
    return tuple(out)


def decode(obs: np.ndarray, rules: RuleSet) -> View:
    """Views of ``obs`` int16 (OBS,) by slice name, shaped as ``obs_layout`` says."""
    return {name: obs[start:stop].reshape(shape) for name, start, stop, shape in slices(rules)}


def phase(view: View) -> int:
    """``PHASE_DRAW``, ``PHASE_PLAY`` or ``PHASE_OVER``."""
    return int(np.argmax(view["phase"]))


def scalar(view: View, name: str) -> int:
    """A one-value slice as an int (``stock_size``, ``round``, ``opening_points``, ...)."""
    return int(view[name][0])


def flag(view: View, column: int) -> bool:
    """One ``turn_flags`` column (``FLAG_LAID``, ...) as a bool."""
    return bool(view["turn_flags"][column])


def turn_key(view: View) -> bytes:
    """A fingerprint of the seat's position within one turn: the hand, then what the seat's
    own lays leave alone: the piles, the round, the unseen cards (laying moves cards from
    the hand to the table) and the other seats' public facts. Deals that share a key look
    alike to the seat, so one planned turn serves all of them (searches play many deals
    that look alike in one batch)."""
    extra = np.array([scalar(view, "stock_size"), scalar(view, "discard_size"),
                      scalar(view, "round"), phase(view)], np.int16)
    others = [view[name][OBSERVER + 1:] for name in ("hand_sizes", "opened", "known_taken")]
    return b"".join(part.tobytes() for part in (
        view["hand"], extra, view["unseen"], view["discard_newest"], view["bottom_card"],
        *others))
