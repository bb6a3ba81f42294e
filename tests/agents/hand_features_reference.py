"""The hand features in readable Python, one row and one search at a time: the
definition ``agents.features.hand_features`` (compiled, batched) is held to.

It is the kit's former implementation: a row is decoded into named views, its hand
searched with ``agents.search.hand_search.best_melds`` (the meld values given as a Python
function, so the searches take the path that is not ``meld_table.search_hand``), and the
version 4 choices made with Python's ``max``.
"""

from __future__ import annotations

import functools

import numpy as np

from agents import obs_view as ov
from agents.features.hand_features import HAND_FEATURES, PLAN_RUNS, PLAN_SETS
from agents.search.hand_search import NEG, Candidate, best_melds
from tests.agents.planner_reference.turn_plan import turn_input
from zolik_env.rummy.cards import JOKER, NUM_KINDS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet


def reference_hand_features(obs: np.ndarray, rules: RuleSet, version: int) -> np.ndarray:
    """int16 (B, HAND_FEATURES): the ``"hand"`` features of each observation row, as
    feature ``version`` computes them (3: without the fixes of 4, see ``_decomposition``
    and ``can_open``)."""
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
