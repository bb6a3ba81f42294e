"""The compiled planner and greedy over a batch: one legal action per observation row.

``planner_actions`` and ``greedy_actions`` are what ``PlannerPolicy.act_batch`` and
``GreedyPolicy.act_batch`` call; ``ranked_discards`` gives search agents the planner's
discard order. Every row is decided on its own, from its observation alone (see
``agents.planner.choice_kernel``).
"""

from __future__ import annotations

import numpy as np

from agents.features import rules_of_thumb
from agents.planner.choice_kernel import (
    MAX_DEEP,
    O_BOTTOM,
    O_NEWEST,
    TAKE_GAIN,
    discard_into,
    discard_scores,
    field,
    free_of,
    greedy_discard,
    hand_on_plan,
    in_danger,
    phase_draw,
    planner_discard,
    read_input,
    safe_action,
    turn_start,
)
from agents.planner.plan_tables import C_JOKERS, C_LEN, C_PENALTY, F_DEEP, PlanTables
from agents.planner.sim_table import (
    B_ACT,
    B_HAND,
    B_MUST,
    B_NACT,
    B_NTAB,
    B_OPENED,
    B_TAKEN,
    T_NEW,
    as_rows,
    fits_table,
    fresh,
)
from agents.planner.turn_kernel import _cards_less, best_turn, lay_all, melds_open, score, trim
from agents.search.meld_table import select
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS
from zolik_env.rummy.jit import kernel

PLANNER, GREEDY = 0, 1


@kernel
def with_cards(bi: np.ndarray, cards: np.ndarray, must_use: bool) -> np.ndarray:
    """The input after taking ``cards`` from the discard pile (or the bottom card)."""
    out = bi.copy()
    for k in cards:
        out[B_HAND + k] += 1
        out[B_TAKEN + k] += 1
    out[B_MUST] = cards[0] if must_use else -1
    return out


@kernel
def planner_plan(t: PlanTables, w: np.ndarray, obs: np.ndarray, bi: np.ndarray,
                 tab: np.ndarray, may: bool) -> np.ndarray:
    """The planner's turn from the input: its best lays, then its discard."""
    plan, _ = best_turn(t, w, bi, tab, may, in_danger(t, w, obs))
    free = free_of(plan)
    if free.any():
        scores = discard_scores(t, w, obs, plan, tab, bi[B_NTAB], free)
        discard_into(plan, planner_discard(scores, free))
    return plan


@kernel
def greedy_melds(t: PlanTables, hand: np.ndarray) -> np.ndarray:
    """Melds picked one at a time, most cards first, then the highest penalty (then by
    their cards), each while the hand still holds it."""
    rows = select(hand, hand[JOKER], t.group, t.naturals, t.sizes, t.absent, t.jokers)[0]
    order = list(rows)
    for i in range(1, len(order)):  # insertion sort: few candidates
        j = i
        while j > 0 and _greedy_before(t.cand, order[j], order[j - 1]):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    left = hand.copy()
    chosen = []
    for row in order:
        if t.cand[row, C_JOKERS] > left[JOKER]:
            continue
        if not all_held(t, row, left):
            continue
        for j in range(t.sizes[row]):
            left[t.naturals[row, j]] -= 1
        left[JOKER] -= t.cand[row, C_JOKERS]
        chosen.append(row)
    return as_rows(chosen)


@kernel
def all_held(t: PlanTables, row: int, left: np.ndarray) -> bool:
    for j in range(t.sizes[row]):  # noqa: SIM110 (a loop: numba compiles it)
        if left[t.naturals[row, j]] == 0:
            return False
    return True


@kernel
def _greedy_before(cand: np.ndarray, a: int, b: int) -> bool:
    if cand[a, C_LEN] != cand[b, C_LEN]:
        return cand[a, C_LEN] > cand[b, C_LEN]
    if cand[a, C_PENALTY] != cand[b, C_PENALTY]:
        return cand[a, C_PENALTY] > cand[b, C_PENALTY]
    return _cards_less(cand, a, b)


@kernel
def greedy_plan(t: PlanTables, bi: np.ndarray, tab: np.ndarray, may: bool) -> np.ndarray:
    """Greedy's turn: its melds and every lay-off when they open (or it has opened), then
    its highest loose card."""
    plan, plan_tab = fresh(bi, tab)
    if may:
        hand, taken = bi[B_HAND:B_HAND + NUM_KINDS].copy(), bi[B_TAKEN:B_TAKEN + NUM_KINDS]
        rows = trim(t, greedy_melds(t, hand), hand, taken.copy())
        if melds_open(t, bi, tab, rows):
            lay_all(t, plan, plan_tab, rows, True)
    discard_into(plan, greedy_discard(t, plan[B_HAND:B_HAND + NUM_KINDS].copy(),
                                      free_of(plan)))
    return plan


@kernel
def play_step(t: PlanTables, w: np.ndarray, obs: np.ndarray, mask: np.ndarray,
              who: int) -> int:
    """The next step of the turn planned from the observation (see the module docstring
    of ``choice_kernel``); a safe legal move where the plan's step is not allowed."""
    bi, tab, may = read_input(t, obs)
    hand = bi[B_HAND:B_HAND + NUM_KINDS].copy()
    if not bi[B_OPENED] and (tab[:bi[B_NTAB], T_NEW] > 0).any():
        start, start_tab = turn_start(bi, tab)
        plan = (planner_plan(t, w, obs, start, start_tab, may) if who == PLANNER
                else greedy_plan(t, start, start_tab, may))
        action = hand_on_plan(start[B_HAND:B_HAND + NUM_KINDS], plan, hand, mask, t.patterns)
        if action >= 0:
            return action
    plan = (planner_plan(t, w, obs, bi, tab, may) if who == PLANNER
            else greedy_plan(t, bi, tab, may))
    if plan[B_NACT] > 0 and mask[plan[B_ACT]]:
        return plan[B_ACT]
    return safe_action(t, mask, hand)


@kernel
def top_pickup(t: PlanTables, w: np.ndarray, obs: np.ndarray, mask: np.ndarray,
               bi: np.ndarray, tab: np.ndarray) -> int:
    """cz/sk: the top discard when the planned turn lays it (and opens, if needed); sk's
    bottom card on the same terms."""
    danger = in_danger(t, w, obs)
    if mask[A.TAKE_DISCARD_BASE]:
        top = np.full(1, field(t, obs, O_NEWEST, 1)[0], np.int64)
        plan, _ = best_turn(t, w, with_cards(bi, top, True), tab, True, danger)
        if plan[B_MUST] < 0 and plan[B_OPENED]:
            return A.TAKE_DISCARD_BASE
    if mask[A.TAKE_BOTTOM]:
        bottom = np.full(1, np.argmax(field(t, obs, O_BOTTOM, NUM_KINDS)), np.int64)
        plan, _ = best_turn(t, w, with_cards(bi, bottom, False), tab, True, danger)
        if plan[B_OPENED] and plan[B_HAND + bottom[0]] <= bi[B_HAND + bottom[0]]:
            return A.TAKE_BOTTOM
    return A.DRAW_STOCK


@kernel
def deep_pickup(t: PlanTables, w: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                bi: np.ndarray, tab: np.ndarray) -> int:
    """jolly: the depth whose turn scores most over not drawing, if by ``TAKE_GAIN``."""
    if not bi[B_OPENED]:
        return A.DRAW_STOCK
    danger = in_danger(t, w, obs)
    base = score(t, w, best_turn(t, w, bi, tab, True, danger)[0], False)
    raw = field(t, obs, O_NEWEST, A.MAX_PICKUP)
    newest = raw[raw >= 0].astype(np.int64)
    best, best_gain = A.DRAW_STOCK, TAKE_GAIN
    pool = bi[B_HAND:B_HAND + NUM_KINDS].copy()
    for n in range(1, min(MAX_DEEP, len(newest)) + 1):
        deepest = newest[n - 1]
        if n > 1:
            pool[newest[n - 2]] += 1
        if not mask[A.TAKE_DISCARD_BASE + n - 1] or (
                deepest != JOKER and rules_of_thumb.loose(t.sets, t.near, deepest, pool)
                and not fits_table(tab, bi[B_NTAB], deepest)):
            continue
        plan, _ = best_turn(t, w, with_cards(bi, newest[:n], False), tab, True, danger)
        gain = score(t, w, plan, False) - base
        if gain > best_gain:
            best, best_gain = A.TAKE_DISCARD_BASE + n - 1, gain
    return best


@kernel
def draw_step(t: PlanTables, w: np.ndarray, obs: np.ndarray, mask: np.ndarray,
              who: int) -> int:
    """The draw: greedy always the stock; the planner as ``top_pickup``/``deep_pickup``."""
    bi, tab, may = read_input(t, obs)
    action = A.DRAW_STOCK
    if who == PLANNER and may:
        action = (deep_pickup(t, w, obs, mask, bi, tab) if t.flags[F_DEEP]
                  else top_pickup(t, w, obs, mask, bi, tab))
    if mask[action]:
        return action
    return safe_action(t, mask, bi[B_HAND:B_HAND + NUM_KINDS].copy())


@kernel
def batch_actions(t: PlanTables, w: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                  who: int) -> np.ndarray:
    """int64 (B,): each row's action (a finished deal's: DRAW_STOCK, which step ignores)."""
    out = np.zeros(len(obs), np.int64)
    for b in range(len(obs)):
        if not mask[b].any():
            out[b] = A.DRAW_STOCK
        elif phase_draw(t, obs[b]):
            out[b] = draw_step(t, w, obs[b], mask[b], who)
        else:
            out[b] = play_step(t, w, obs[b], mask[b], who)
    return out


@kernel
def ranked_discards(t: PlanTables, w: np.ndarray, obs: np.ndarray,
                    mask: np.ndarray) -> np.ndarray:
    """The legal discard actions, best first by the planner's discard score after the
    lays its plan would still make; a joker last."""
    bi, tab, may = read_input(t, obs)
    plan, _ = best_turn(t, w, bi, tab, may, in_danger(t, w, obs))
    free = mask[A.DISCARD_BASE:A.DISCARD_BASE + NUM_KINDS].astype(np.int64)
    scores = discard_scores(t, w, obs, plan, tab, bi[B_NTAB], free)
    kinds = np.array([k for k in range(NUM_NATURALS) if free[k]], np.int64)
    order = np.empty(len(kinds), np.int64)
    for i in range(len(kinds)):  # by (score, kind): a stable sort of ascending kinds
        j = i
        while j > 0 and scores[kinds[order[j - 1]]] > scores[kinds[i]]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    out = np.empty(len(kinds) + (1 if free[JOKER] else 0), np.int64)
    for i in range(len(kinds)):
        out[i] = A.DISCARD_BASE + kinds[order[i]]
    if free[JOKER]:
        out[-1] = A.DISCARD_BASE + JOKER
    return out
