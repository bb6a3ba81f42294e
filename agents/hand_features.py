"""Hand features for learned agents: what the best melds of the seat's own hand are worth.

Whether a hand can open (cz: melds worth 42 points in one turn, one of them a joker-free
run) is an exact search over its cards, not something a small network reads off 53 card
counts: the warm-started PPO agent held an opening it did not lay in about a third of
its turns that had one. ``hand_features`` adds the answer to the observation, computed
from the observation alone (the seat's hand, the top discard, this turn's opening
points), with the hand decomposition of ``agents.hand_search``:

=====================  ==================================================================
``best_points``        meld value of the best disjoint melds in hand (all plans lay a
                       taken discard that must be laid this turn, or are worth 0)
``clean_points``       the same among choices holding a joker-free run (0 if none)
``plan_kept``          hand points of the cards the plan keeps (the plan: the clean choice
                       while an opening still needs a clean run, else the best one)
``can_open``           1 if opened, or if melding is allowed now and laying the plan
                       completes the opening this turn
``need_points``        opening points still missing this turn (0 once opened)
``top_best_points``    draw phase: ``best_points`` with the top discard taken (else 0)
``top_clean_points``   draw phase: ``clean_points`` with the top discard taken (else 0)
``top_gain``           draw phase: how much the top discard adds to the plan's points
``plan_runs`` (53)     cards of each kind in the plan's runs
``plan_sets`` (53)     cards of each kind in the plan's sets
=====================  ==================================================================

Plans keep one card back for the discard that ends the turn, and a cz/sk discard taken
this turn (``must_use``) is in every plan, or the plan is worth nothing. That is feature
**version 4**; networks record the version they were trained on, and version 3 (plans
that could lay the whole hand, the taken card counted per copy, ``can_open`` true once
the points were laid even without the clean run) is still computed for them.

The features are a pure function of the observation, so they carry no more information
than it does. ``FEATURE_SETS`` names the choices: ``""`` (none), ``"hand"``,
``"hand+cards"`` (the per-kind ``agents.card_features`` first, then the hand features, so
the hand features always end the observation) and ``"hand+discard"`` (the same with the
card features' ``held`` field, what ``agents.discard_prior`` reads). A network trained
with them records the name (``agents.ppo.ScaledObs``), and ``ppo:PATH`` adds them to
every observation it is given.
"""

from __future__ import annotations

import functools

import gymnasium
import numpy as np

from agents import obs_view as ov
from agents.card_features import card_features, card_scale, card_width
from agents.hand_search import NEG, Candidate, best_melds
from agents.turn_plan import turn_input
from zolik_env.envs.zolik_common import observation_space
from zolik_env.rummy.cards import JOKER, NUM_KINDS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.observe import critic_view_size
from zolik_env.rummy.options import RuleSet

FEATURE_SETS = ("", "hand", "hand+cards", "hand+discard")
FEATURE_VERSION = 4  # bumped whenever the "hand" features change (names their caches)
SUPPORTED_VERSIONS = (3, 4)  # what ``hand_features`` can still compute, for older networks
UNRECORDED_VERSION = 3  # networks saved before the version was recorded were trained on 3
SCALARS = ("best_points", "clean_points", "plan_kept", "can_open", "need_points",
            "top_best_points", "top_clean_points", "top_gain")
HAND_FEATURES = len(SCALARS) + 2 * NUM_KINDS
PLAN_RUNS = slice(HAND_FEATURES - 2 * NUM_KINDS, HAND_FEATURES - NUM_KINDS)  # in the features
PLAN_SETS = slice(HAND_FEATURES - NUM_KINDS, HAND_FEATURES)
_POINT_SCALARS = {"best_points", "clean_points", "plan_kept", "need_points",
                  "top_best_points", "top_clean_points", "top_gain"}


def check_features(name: str) -> str:
    """``name`` if it is one of ``FEATURE_SETS``, else a ``ValueError`` naming it."""
    if name not in FEATURE_SETS:
        raise ValueError(f"obs_features={name!r} unknown: choose from "
                         f"{', '.join(repr(n) for n in FEATURE_SETS)}")
    return name


def has_hand_features(name: str) -> bool:
    """Whether the feature set ``name`` ends with the hand features (the plan prior's)."""
    return check_features(name) != ""


def _has_cards(name: str) -> bool:
    return check_features(name) in ("hand+cards", "hand+discard")


def _has_held(name: str) -> bool:
    return check_features(name) == "hand+discard"


def feature_size(name: str) -> int:
    """How many entries the feature set ``name`` appends to an observation."""
    return (HAND_FEATURES if has_hand_features(name) else 0) + (
        card_width(_has_held(name)) if _has_cards(name) else 0)


def feature_scale(name: str) -> np.ndarray:
    """float32 (feature_size,): the factor the network applies to each feature (points
    / 100, flags and card counts as they are, card values see ``agents.card_features``)."""
    if not has_hand_features(name):
        return np.zeros(0, np.float32)
    scalars = [0.01 if s in _POINT_SCALARS else 1.0 for s in SCALARS]
    hand = np.array(scalars + [1.0] * 2 * NUM_KINDS, np.float32)
    return np.concatenate([card_scale(_has_held(name)), hand]) if _has_cards(name) else hand


def augmented_space(rules: RuleSet, name: str) -> gymnasium.spaces.Box:
    """The env's observation space with the features of ``name`` appended."""
    info = np.iinfo(np.int16)
    return _widened(observation_space(rules), feature_size(name), info.min, info.max)


def _widened(space: gymnasium.spaces.Box, extra: int, low: int,
             high: int) -> gymnasium.spaces.Box:
    """``space`` with ``extra`` int16 entries in ``[low, high]`` appended."""
    return gymnasium.spaces.Box(np.concatenate([space.low, np.full(extra, low, np.int16)]),
                                np.concatenate([space.high, np.full(extra, high, np.int16)]),
                                (space.shape[0] + extra,), np.int16)


def training_space(rules: RuleSet, features: str, critic: bool) -> gymnasium.spaces.Box:
    """The learner's observation space: the env's, the ``features`` appended, then the
    critic view (``zolik_env.rummy.observe.critic_view``) with ``critic``."""
    space = augmented_space(rules, features)
    return _widened(space, critic_view_size(rules), 0, 127) if critic else space


def augment(obs: np.ndarray, rules: RuleSet, name: str,
            version: int = FEATURE_VERSION) -> np.ndarray:
    """int16 (B, OBS + feature_size): ``obs`` (B, OBS) with the features of each row."""
    obs = np.asarray(obs)
    if feature_size(name) == 0:
        return obs
    cards = [card_features(obs, rules, _has_held(name))] if _has_cards(name) else []
    return np.concatenate([obs, *cards, hand_features(obs, rules, version)], axis=1)


def check_version(version: int, what: str) -> int:
    """``version`` if ``hand_features`` computes it, else a ``ValueError`` naming ``what``."""
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(f"{what} was trained on hand features version {version}; this kit "
                         f"computes versions {', '.join(map(str, SUPPORTED_VERSIONS))}")
    return version


def hand_features(obs: np.ndarray, rules: RuleSet,
                  version: int = FEATURE_VERSION) -> np.ndarray:
    """int16 (B, HAND_FEATURES): the ``"hand"`` features of each observation row, as
    feature ``version`` computes them (3: without the fixes of 4, see ``_decomposition``
    and ``can_open``)."""
    check_version(version, "hand_features")
    out = np.zeros((len(obs), HAND_FEATURES), np.int16)
    for b, row in enumerate(np.asarray(obs, np.int16)):
        out[b] = _row_features(row, rules, version)
    return out


def _row_features(obs: np.ndarray, rules: RuleSet, version: int) -> np.ndarray:
    view = ov.decode(obs, rules)
    hand = view["hand"].astype(np.int64)
    out = np.zeros(HAND_FEATURES, np.int64)
    if ov.phase(view) == ov.PHASE_OVER:
        return out
    must = np.flatnonzero(view["must_use"])
    best, clean, best_plan, clean_plan = _decomposition(rules, hand.tobytes(),
                                                        int(must[0]) if must.size else -1,
                                                        version)
    opened = bool(view["opened"][ov.OBSERVER])
    laid = ov.scalar(view, "opening_points") if ov.flag(view, ov.FLAG_LAID) else 0
    use_clean = not opened and rules.opening_needs_clean_run and not _clean_laid(view, rules)
    plan_points, plan = (clean, clean_plan) if use_clean else (best, best_plan)
    need = 0 if opened else max(0, rules.opening_points - laid)
    may_lay = bool(ov.scalar(view, "melding_allowed")) and not ov.flag(view, ov.FLAG_UNDONE)
    # version 4: a clean run still to lay needs a clean plan, however many points are laid
    clean_ok = version < 4 or not use_clean or bool(plan[0].any() or plan[1].any())
    out[:5] = (best, clean, _kept_points(hand, plan, rules),
               opened or (may_lay and clean_ok and plan_points >= need), need)
    top = int(view["discard_newest"][0])
    if ov.phase(view) == ov.PHASE_DRAW and top >= 0:
        with_top = hand.copy()
        with_top[top] += 1
        t_must = top if rules.discard_pickup == "top_must_use" else -1  # taken: to lay
        t_best, t_clean, _, _ = _decomposition(rules, with_top.tobytes(), t_must, version)
        t_points = t_clean if use_clean else t_best
        out[5:8] = t_best, t_clean, t_points - plan_points
    out[PLAN_RUNS], out[PLAN_SETS] = plan
    return np.clip(out, np.iinfo(np.int16).min, np.iinfo(np.int16).max)


def _clean_laid(view: ov.View, rules: RuleSet) -> bool:
    """Whether this turn's provisional melds hold a joker-free run already."""
    return ov.flag(view, ov.FLAG_LAID) and turn_input(view, rules).clean_laid


def _kept_points(hand: np.ndarray, plan: tuple[np.ndarray, np.ndarray], rules: RuleSet) -> int:
    kept = hand - plan[0] - plan[1]
    return sum(int(kept[k]) * hand_card_value(k, rules) for k in np.flatnonzero(kept))


Plan = tuple[np.ndarray, np.ndarray]  # int64 (53,) cards in the runs, in the sets


_MUST_LAY = -1000.0  # dead value of a card that must be laid this turn: any plan lays it


Found = tuple[int, int, Plan, Plan]  # best points, clean points, best plan, clean plan
_NO_PLAN: Plan = (np.zeros(NUM_KINDS, np.int64), np.zeros(NUM_KINDS, np.int64))
for _part in _NO_PLAN:
    _part.setflags(write=False)


@functools.lru_cache(maxsize=65536)
def _decomposition(rules: RuleSet, hand_bytes: bytes, must: int, version: int) -> Found:
    """(best points, clean points, best plan, clean plan) of one hand (its int64 counts as
    bytes); cached, as a hand recurs across the decisions of a turn.

    Version 4 keeps a card back for the discard that ends the turn (a plan laying the
    whole hand is replaced by the best one that keeps one card), and when the hand holds
    two copies of the ``must`` card, laying one of them is enough (version 3 searched
    ``_search`` alone)."""
    if version < 4:
        return _search(rules, hand_bytes, must)
    hand = np.frombuffer(hand_bytes, np.int64)
    found = [_search(rules, hand_bytes, must)]
    if must >= 0 and hand[must] >= 2:  # one copy laid meets the obligation
        found.append(_search(rules, _without(hand, must), must))
    total = int(hand.sum())
    if any(_laid(f[2]) == total or _laid(f[3]) == total for f in found):
        found += [_search(rules, _without(hand, kind), must) for kind in np.flatnonzero(hand)
                  if kind != must or hand[kind] >= 2]
    best = max(((f[0], f[2]) for f in found if _laid(f[2]) < total),
               key=lambda pair: pair[0], default=(0, _NO_PLAN))
    clean = max(((f[1], f[3]) for f in found if 0 < _laid(f[3]) < total),
                key=lambda pair: pair[0], default=(0, _NO_PLAN))
    return best[0], clean[0], best[1], clean[1]


def _without(hand: np.ndarray, kind: int) -> bytes:
    """``hand`` less one card of ``kind``, as bytes."""
    less = hand.copy()
    less[kind] -= 1
    return less.tobytes()


def _laid(plan: Plan) -> int:
    return int(plan[0].sum() + plan[1].sum())


@functools.lru_cache(maxsize=65536)
def _search(rules: RuleSet, hand_bytes: bytes, must: int) -> Found:
    """The hand search of one hand: with ``must`` (a kind; -1: none), the cz/sk taken
    discard that has to be laid this turn, the plans lay it where they can, and a choice
    that cannot is worth 0 points."""
    hand = np.frombuffer(hand_bytes, np.int64)
    dead = None
    if must >= 0:
        dead = [0.0] * NUM_KINDS
        dead[must] = _MUST_LAY
    found = best_melds(hand, int(hand[JOKER]), rules, _meld_points, dead)
    has_clean = found.clean_value > NEG / 2
    best_plan = _plan(found.melds)
    clean_plan = _plan(found.clean_melds if has_clean else ())
    best = _plan_points(found.value, best_plan, hand, must)
    clean = _plan_points(found.clean_value, clean_plan, hand, must) if has_clean else 0
    return best, clean, best_plan, clean_plan


def _plan_points(value: float, plan: Plan, hand: np.ndarray, must: int) -> int:
    """The meld points of a plan whose search value was ``value``: without the must-lay
    penalty of copies kept, and 0 when the plan does not lay the ``must`` card at all."""
    if must < 0:
        return int(value)
    laid = int(plan[0][must] + plan[1][must])
    if laid == 0:
        return 0
    return int(value - _MUST_LAY * (int(hand[must]) - laid))


def _meld_points(cand: Candidate) -> float:
    return float(cand.points)


def _plan(melds: tuple[Candidate, ...]) -> Plan:
    runs, sets = np.zeros(NUM_KINDS, np.int64), np.zeros(NUM_KINDS, np.int64)
    for cand in melds:
        for kind in cand.cards:
            (runs if cand.is_run else sets)[kind] += 1
    runs.setflags(write=False)
    sets.setflags(write=False)
    return runs, sets


__all__ = [
    "FEATURE_SETS",
    "FEATURE_VERSION",
    "HAND_FEATURES",
    "PLAN_RUNS",
    "PLAN_SETS",
    "SCALARS",
    "SUPPORTED_VERSIONS",
    "UNRECORDED_VERSION",
    "augment",
    "augmented_space",
    "check_features",
    "check_version",
    "feature_scale",
    "feature_size",
    "hand_features",
    "has_hand_features",
]
