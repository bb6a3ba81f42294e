"""The compiled planner and greedy, one decision per observation row.

Each decision is a pure function of the seat's observation: the turn is planned from
the position the observation shows and its next step is played. A seat that has not
opened and has laid melds this turn plans from the turn's start instead, rebuilt by
taking its new melds back in hand (before opening, a seat lays only into its own new
melds), and plays on along that plan where the position lies on it; so an opening of
several melds and lay-offs is played as it was planned. Nothing is kept between
decisions: a deal plays the same moves alone, in any chunk and in any batch.

The draw (cz/sk: the top discard or sk's bottom card when the planned turn lays it;
jolly: the deepest pick-up worth most), the discard ranking and the fallbacks are here;
the turn search is ``agents.planner.turn_kernel``. The readable per-row planner this
compiles is ``tests/agents/planner_reference``, held to it move for move.
"""

from __future__ import annotations

import numpy as np

from agents.features import rules_of_thumb
from agents.planner.plan_tables import (
    F_DEEP,
    F_PLAYERS,
    W_DANGER,
    W_HELD,
    W_KEEP,
    W_NEAR_OUT,
    W_PENALTY,
    W_PENALTY_DANGER,
    W_PENALTY_OPENED,
    PlanTables,
)
from agents.planner.sim_table import (
    B_ACT,
    B_FREED,
    B_HAND,
    B_MUST,
    B_NACT,
    B_NEXT,
    B_NTAB,
    B_OPENED,
    B_SWAP,
    B_TAKEN,
    JK,
    MAX_ROWS,
    NB,
    RUN,
    T_CELLS,
    T_KEY,
    T_KIND,
    T_NEW,
    T_SLOT,
    TAB_WIDTH,
    fits_table,
    step,
)
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS
from zolik_env.rummy.jit import kernel
from zolik_env.rummy.observe import FLAG_FREED_JOKERS, FLAG_LAID, FLAG_UNDONE, PHASE_DRAW

# entries of ``PlanTables.obs`` (``plan_tables.OBS_FIELDS``' order)
(O_HAND, O_KIND, O_KEY, O_CELLS, O_NEW, O_NEWEST, O_BOTTOM, O_SIZES, O_OPENED, O_KNOWN,
 O_UNSEEN, O_PHASE, O_MAY, O_FLAGS, O_MUST, O_TAKEN) = range(16)
NEVER = 1.0e6  # a discard score at or above it: the joker goes instead
MAX_DEEP = 12  # jolly: deepest pick-up the planner considers
TAKE_GAIN = 6.0  # jolly: score a pick-up must add over drawing from the stock


@kernel
def field(t: PlanTables, obs: np.ndarray, which: int, size: int) -> np.ndarray:
    """The ``size`` entries of observation field ``which`` (an ``O_*`` index)."""
    start = t.obs[which]
    return obs[start:start + size]


@kernel
def read_input(t: PlanTables, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """The plan input the observation shows (``bi``, ``tab``) and whether it may lay."""
    bi = np.zeros(NB, np.int64)
    tab = np.zeros((MAX_ROWS, TAB_WIDTH), np.int8)
    bi[B_HAND:B_HAND + NUM_KINDS] = field(t, obs, O_HAND, NUM_KINDS)
    bi[B_TAKEN:B_TAKEN + NUM_KINDS] = field(t, obs, O_TAKEN, NUM_KINDS)
    flags = field(t, obs, O_FLAGS, 5)
    kinds, keys = field(t, obs, O_KIND, A.MAX_MELDS), field(t, obs, O_KEY, A.MAX_MELDS)
    new = field(t, obs, O_NEW, A.MAX_MELDS)
    cells = field(t, obs, O_CELLS, A.MAX_MELDS * A.MELD_CELLS)
    n = 0
    for slot in range(A.MAX_MELDS):
        if kinds[slot] == 0:
            continue
        tab[n, T_KIND], tab[n, T_KEY], tab[n, T_SLOT] = kinds[slot], keys[slot], slot
        tab[n, T_NEW] = 1 if flags[FLAG_LAID] and new[slot] else 0
        tab[n, T_CELLS:] = cells[slot * A.MELD_CELLS:(slot + 1) * A.MELD_CELLS]
        bi[B_NEXT] = slot + 1
        n += 1
    bi[B_NTAB] = n
    bi[B_OPENED] = field(t, obs, O_OPENED, 1)[0] > 0
    bi[B_FREED] = flags[FLAG_FREED_JOKERS] > 0
    bi[B_MUST] = -1
    must = field(t, obs, O_MUST, NUM_KINDS)
    for k in range(NUM_KINDS):
        if must[k]:
            bi[B_MUST] = k
            break
    may = field(t, obs, O_MAY, 1)[0] > 0 and not flags[FLAG_UNDONE]
    return bi, tab, may


@kernel
def turn_start(bi: np.ndarray, tab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The input at the start of an unopened seat's turn: its new melds back in hand."""
    out = bi.copy()
    out_tab = np.zeros_like(tab)
    n = 0
    out[B_NEXT] = 0
    for m in range(bi[B_NTAB]):
        if tab[m, T_NEW]:
            _take_back(out, tab[m])
            continue
        out_tab[n] = tab[m]
        out[B_NEXT] = tab[m, T_SLOT] + 1
        n += 1
    out[B_NTAB] = n
    return out, out_tab


@kernel
def _take_back(bi: np.ndarray, meld: np.ndarray) -> None:
    for c in range(A.MELD_CELLS):
        value = meld[T_CELLS + c]
        if value == JK:
            bi[B_HAND + JOKER] += 1
        elif value != 0 and meld[T_KIND] == RUN:
            bi[B_HAND + meld[T_KEY] * NUM_RANKS + (c if c < NUM_RANKS else 0)] += 1
        elif value != 0:
            bi[B_HAND + c * NUM_RANKS + meld[T_KEY]] += 1


@kernel
def in_danger(t: PlanTables, w: np.ndarray, obs: np.ndarray) -> bool:
    """An opened opponent is down to ``near_out`` cards or fewer."""
    players = t.flags[F_PLAYERS]
    sizes, opened = field(t, obs, O_SIZES, players), field(t, obs, O_OPENED, players)
    for seat in range(1, players):  # noqa: SIM110 (a loop: numba compiles it)
        if sizes[seat] <= w[W_NEAR_OUT] and opened[seat] > 0:
            return True
    return False


@kernel
def held_back(t: PlanTables, bi: np.ndarray) -> np.ndarray:
    """int64 (53,): an unopened plan's cards in its best joker-free melds by points."""
    out = np.zeros(NUM_KINDS, np.int64)
    if not bi[B_OPENED]:
        rules_of_thumb.held_row(bi[B_HAND:B_HAND + NUM_KINDS].copy(), t.points, t.group,
                                t.naturals, t.sizes, t.absent, t.jokers, t.clean, out)
    return out


@kernel
def discard_scores(t: PlanTables, w: np.ndarray, obs: np.ndarray, bi: np.ndarray,
                   view_tab: np.ndarray, view_rows: int, free: np.ndarray) -> np.ndarray:
    """float64 (52,): each free natural's score, lower = better to throw (future value
    plus danger plus held-back protection minus what holding it costs); NaN for the
    kinds not free. ``view_tab`` is the table the observation shows."""
    players = t.flags[F_PLAYERS]
    hand = bi[B_HAND:B_HAND + NUM_KINDS].copy()
    unseen = field(t, obs, O_UNSEEN, NUM_KINDS).astype(np.int64)
    keep = rules_of_thumb.keep_rows(hand.reshape(1, NUM_KINDS), unseen.reshape(1, NUM_KINDS),
                                    t.sets, t.near, t.far, t.ends, t.middle)[0]
    fits = np.zeros(NUM_NATURALS, np.bool_)
    for k in range(NUM_NATURALS):
        fits[k] = free[k] > 0 and fits_table(view_tab, view_rows, k)
    known = field(t, obs, O_KNOWN, players * NUM_KINDS).astype(np.int64)
    opened = field(t, obs, O_OPENED, players).astype(np.int64)
    danger = np.zeros(NUM_NATURALS)
    rules_of_thumb.danger_row(t.related, known.reshape(players, NUM_KINDS), opened, fits,
                              t.danger_weights, danger)
    protected = held_back(t, bi)
    weight = w[W_PENALTY]
    if opened[0] > 0 or t.flags[F_DEEP]:
        weight += w[W_PENALTY_OPENED]
    if in_danger(t, w, obs):
        weight += w[W_PENALTY_DANGER]
    out = np.full(NUM_NATURALS, np.nan)
    for k in range(NUM_NATURALS):
        if free[k] > 0:
            value = w[W_KEEP] * keep[k] + w[W_HELD] * protected[k]
            value += w[W_DANGER] * danger[k]
            out[k] = value - weight * t.hand_value[k]
    return out


@kernel
def planner_discard(scores: np.ndarray, free: np.ndarray) -> int:
    """The free natural with the lowest score (the first such kind); a joker only when
    no natural may go (or every natural scores ``NEVER``)."""
    best = JOKER
    for k in range(NUM_NATURALS):
        if free[k] > 0 and (best == JOKER or scores[k] < scores[best]):
            best = k
    if best != JOKER and scores[best] >= NEVER:
        best = JOKER
    if best != JOKER or free[JOKER]:
        return best
    for k in range(NUM_KINDS):
        if free[k]:
            return k
    return JOKER


@kernel
def greedy_discard(t: PlanTables, hand: np.ndarray, free: np.ndarray) -> int:
    """The highest-penalty loose card among the free naturals (ties: the higher kind);
    else the highest natural; a joker only when nothing else may go."""
    best, best_loose = -1, False
    for k in range(NUM_NATURALS):
        if not free[k]:
            continue
        is_loose = rules_of_thumb.loose(t.sets, t.near, k, hand)
        if best < 0 or (is_loose and not best_loose) or (
                is_loose == best_loose and t.hand_value[k] >= t.hand_value[best]):
            best, best_loose = k, is_loose
    return JOKER if best < 0 else best


@kernel
def safe_action(t: PlanTables, mask: np.ndarray, hand: np.ndarray) -> int:
    """A legal fallback: greedy's discard among the legal ones, else UNDO, else a draw,
    else the first legal action."""
    free = mask[A.DISCARD_BASE:A.DISCARD_BASE + NUM_KINDS].astype(np.int64)
    if free.any():
        return A.DISCARD_BASE + greedy_discard(t, hand, free)
    if mask[A.UNDO]:
        return A.UNDO
    if mask[A.DRAW_STOCK]:
        return A.DRAW_STOCK
    for a in range(len(mask)):
        if mask[a]:
            return a
    return A.DRAW_STOCK


@kernel
def discard_into(bi: np.ndarray, kind: int) -> None:
    """End the plan with the discard of ``kind``."""
    step(bi, A.DISCARD_BASE + kind, False)
    bi[B_HAND + kind] -= 1


@kernel
def free_of(bi: np.ndarray) -> np.ndarray:
    """int64 (53,): the cards of each kind that may end the turn (not taken this turn)."""
    return np.maximum(bi[B_HAND:B_HAND + NUM_KINDS] - bi[B_TAKEN:B_TAKEN + NUM_KINDS], 0)


@kernel
def phase_draw(t: PlanTables, obs: np.ndarray) -> bool:
    """The seat is to draw (the turn's first decision)."""
    return np.argmax(field(t, obs, O_PHASE, 3)) == PHASE_DRAW


@kernel
def hand_on_plan(start: np.ndarray, plan: np.ndarray, hand: np.ndarray, mask: np.ndarray,
                 patterns: np.ndarray) -> int:
    """The plan's action at the first step whose hand before it is ``hand`` and whose
    action is legal, or -1; the hands are replayed from the plan's ``start`` hand."""
    now = start.copy()
    for i in range(plan[B_NACT]):
        action = plan[B_ACT + i]
        if (now == hand).all() and mask[action]:
            return action
        _apply(now, action, plan[B_SWAP + i], patterns)
    return -1


@kernel
def _apply(hand: np.ndarray, action: int, swap: int, patterns: np.ndarray) -> None:
    """Take out of ``hand`` the cards ``action`` lays or throws (a swap frees a joker)."""
    if A.MELD_BASE <= action < A.LAYOFF_BASE:
        for card in patterns[action - A.MELD_BASE]:
            if card >= 0:
                hand[card] -= 1
    elif A.LAYOFF_BASE <= action < A.ACE_HIGH_BASE:
        hand[(action - A.LAYOFF_BASE) % NUM_NATURALS] -= 1
    elif A.ACE_HIGH_BASE <= action < A.JOKER_BASE:
        hand[((action - A.ACE_HIGH_BASE) % 4) * NUM_RANKS] -= 1
    elif A.JOKER_BASE <= action < A.UNDO:
        hand[JOKER] -= 1
    elif action >= A.DISCARD_BASE:
        hand[action - A.DISCARD_BASE] -= 1
    hand[JOKER] += swap
