"""The compiled part of ``agents.features.hand_features``: each hand's decomposition, for a batch.

A learner's observation needs up to two hand searches (the hand, and in the draw phase the
hand with the top discard), and version 4 searches again without one card when a plan
lays the whole hand. In Python around the compiled search these cost more than the rest
of a training step; here the candidates (``agents.search.meld_table``), the searches and the
choice between them run in one compiled loop over the rows.

A *plan* is int64 (2, 53): the cards of each kind in its runs, then in its sets (a joker
at index 52). ``decompose`` returns, per row, the best plan's points and the best
clean plan's (one holding a joker-free run), with both plans, as the module docstring of
``agents.features.hand_features`` defines them; ``tests/agents/hand_features_reference.py`` is
that definition in readable Python, one row at a time, and the tests hold this module to
it.
"""

from __future__ import annotations

import numpy as np

from agents.search.hand_search_kernel import NEG
from agents.search.meld_table import search_hand
from zolik_env.rummy.jit import kernel

MUST_LAY = -1000.0  # dead value of a card that must be laid this turn: any plan lays it
BEST, CLEAN = 0, 1  # a row's two plans
RUNS, SETS = 0, 1  # a plan's two parts


@kernel
def _add_melds(plan: np.ndarray, rows: np.ndarray, naturals: np.ndarray, sizes: np.ndarray,
               jokers: np.ndarray, is_run: np.ndarray) -> None:
    """Count the cards of the table ``rows`` into ``plan`` (2, 53)."""
    joker = plan.shape[1] - 1
    for row in rows:
        part = RUNS if is_run[row] else SETS
        for j in range(sizes[row]):
            plan[part, naturals[row, j]] += 1
        plan[part, joker] += jokers[row]


@kernel
def _plan_points(value: float, plan: np.ndarray, hand: np.ndarray, must: int) -> int:
    """The meld points of a plan whose search value was ``value``: without the must-lay
    penalty of copies kept, and 0 when the plan does not lay the ``must`` card at all."""
    if must < 0:
        return int(value)
    laid = plan[RUNS, must] + plan[SETS, must]
    if laid == 0:
        return 0
    return int(value - MUST_LAY * (hand[must] - laid))


@kernel
def _search(hand: np.ndarray, must: int, points: np.ndarray, group: np.ndarray,
            naturals: np.ndarray, sizes: np.ndarray, absent: np.ndarray,
            jokers: np.ndarray, clean: np.ndarray, is_run: np.ndarray
            ) -> tuple[int, int, np.ndarray]:
    """(best points, clean points, plans (2, 2, 53)) of one search of ``hand`` (53,): with
    ``must`` (a kind, -1: none) to be laid, a choice that cannot lay it is worth 0."""
    dead = np.zeros(len(hand))
    if must >= 0:
        dead[must] = MUST_LAY
    value, best, clean_value, clean_rows = search_hand(
        hand, hand[len(hand) - 1], dead, points, group, naturals, sizes, absent, jokers,
        clean)
    plans = np.zeros((2, 2, len(hand)), np.int64)
    _add_melds(plans[BEST], best, naturals, sizes, jokers, is_run)
    best_points = _plan_points(value, plans[BEST], hand, must)
    if clean_value <= NEG / 2:
        return best_points, 0, plans
    _add_melds(plans[CLEAN], clean_rows, naturals, sizes, jokers, is_run)
    return best_points, _plan_points(clean_value, plans[CLEAN], hand, must), plans


@kernel
def _decompose_one(hand: np.ndarray, must: int, version: int, points: np.ndarray,
                   group: np.ndarray, naturals: np.ndarray, sizes: np.ndarray,
                   absent: np.ndarray, jokers: np.ndarray, clean: np.ndarray,
                   is_run: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """(best points, clean points) of ``hand``, their plans written into ``out`` (2, 2,
    53). Version 4 keeps a card back for the discard that ends the turn (of the searches
    of the hand and of the hand less one card, the best plan that does not lay all), and
    with two copies of ``must`` one laid is enough; version 3 is the plain search."""
    args = (points, group, naturals, sizes, absent, jokers, clean, is_run)
    best, clean_points, plans = _search(hand, must, *args)
    if version < 4:
        out[:] = plans
        return best, clean_points
    total = hand.sum()
    state = np.zeros(4, np.int64)  # best points, has best, clean points, has clean
    out[:] = 0
    whole = _fold(best, clean_points, plans, total, state, out)
    less = hand.copy()
    if must >= 0 and hand[must] >= 2:  # one copy laid meets the obligation
        less[must] -= 1
        b, c, p = _search(less, must, *args)
        whole = _fold(b, c, p, total, state, out) or whole
        less[must] += 1
    if whole:
        for kind in range(len(hand)):
            if hand[kind] == 0 or (kind == must and hand[kind] < 2):
                continue
            less[kind] -= 1
            b, c, p = _search(less, must, *args)
            _fold(b, c, p, total, state, out)
            less[kind] += 1
    return state[0], state[2]


@kernel
def _fold(best: int, clean_points: int, plans: np.ndarray, total: int, state: np.ndarray,
          out: np.ndarray) -> bool:
    """Keep this search's plans where they beat the ones kept (the first of equals stays):
    the best plan if it keeps a card, the clean one if it also lays one. Whether either
    plan lays the whole hand."""
    laid_best = plans[BEST].sum()
    laid_clean = plans[CLEAN].sum()
    if laid_best < total and (state[1] == 0 or best > state[0]):
        state[0], state[1] = best, 1
        out[BEST] = plans[BEST]
    if 0 < laid_clean < total and (state[3] == 0 or clean_points > state[2]):
        state[2], state[3] = clean_points, 1
        out[CLEAN] = plans[CLEAN]
    return bool(laid_best == total or laid_clean == total)


@kernel
def decompose(hands: np.ndarray, musts: np.ndarray, active: np.ndarray, version: int,
              points: np.ndarray, group: np.ndarray, naturals: np.ndarray, sizes: np.ndarray,
              absent: np.ndarray, jokers: np.ndarray, clean: np.ndarray, is_run: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``hands`` (B, 53) int64: best points, clean points (B,) and the plans
    (B, 2, 2, 53), for the rows ``active``; 0 elsewhere. ``musts`` (B,): the kind each
    hand must lay this turn, or -1."""
    n = len(hands)
    best = np.zeros(n, np.int64)
    clean_points = np.zeros(n, np.int64)
    plans = np.zeros((n, 2, 2, hands.shape[1]), np.int64)
    for b in range(n):
        if active[b]:
            best[b], clean_points[b] = _decompose_one(
                hands[b], musts[b], version, points, group, naturals, sizes, absent, jokers,
                clean, is_run, plans[b])
    return best, clean_points, plans
