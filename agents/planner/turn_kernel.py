"""The compiled turn search: which melds, lay-offs and joker swaps make the best turn.

Each option is simulated on a plan (``agents.planner.sim_table``) and scored by what the
position is worth after it: minus the penalty of the naturals still held, plus a keep
value per joker held (so a joker is laid only where it lays more than that; when an
opponent may go out a held joker costs its full penalty instead), plus the meld value
laid (jolly scores it), plus a bonus for going out. The melds come from the exact hand
search (``agents.search.meld_table.search_hand``).

``t`` is the rule set's ``PlanTables`` and ``w`` the weights array
(``agents.planner.plan_tables``); an *input* is a plan with nothing done yet, read from
the observation (``choice_kernel.read_input``).
"""

from __future__ import annotations

import numpy as np

from agents.planner.plan_tables import (
    C_CARDS,
    C_LEN,
    C_PENALTY,
    C_SHRINK,
    F_LAID_SCORING,
    MAX_SHRINK,
    W_JOKER_KEEP,
    W_JOKER_KEEP_DANGER,
    W_OUT_BONUS,
    PlanTables,
)
from agents.planner.sim_table import (
    B_FREED,
    B_HAND,
    B_MUST,
    B_NTAB,
    B_OPENED,
    B_POINTS,
    B_TAKEN,
    JK,
    RUN,
    T_CELLS,
    T_KEY,
    T_KIND,
    T_NEW,
    as_rows,
    free_cards,
    fresh,
    lay,
    lay_off,
    lay_offs,
    meld_form,
    natural_fit,
    opening_met,
    swap_kind,
)
from agents.search.meld_table import search_hand
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS
from zolik_env.rummy.jit import R_CLEAN_RUN, kernel

MUST = -1000.0  # dead value of a taken cz/sk discard: any meld that uses it wins


@kernel
def search(t: PlanTables, counts: np.ndarray, jokers: int, values: np.ndarray,
           dead: np.ndarray, clean: bool) -> np.ndarray:
    """Meld-table rows of the hand's best melds (``clean``: best with a clean run)."""
    _, best, _, clean_best = search_hand(counts, jokers, dead, values, t.group, t.naturals,
                                         t.sizes, t.absent, t.jokers, t.clean)
    return clean_best if clean else best


@kernel
def dead_values(t: PlanTables, bi: np.ndarray, tab: np.ndarray, opened: bool) -> np.ndarray:
    """float64 (53,) what keeping a card is worth to the search: an opened hand's cards
    that lay off (not by a swap) count as laid; the discard it must use, ``MUST``."""
    dead = np.zeros(NUM_KINDS)
    if opened:
        for k in range(NUM_NATURALS):
            if bi[B_HAND + k] == 0:
                continue
            for m in range(bi[B_NTAB]):
                cell, _, swap = natural_fit(tab[m, T_KIND], tab[m, T_KEY], tab[m, T_CELLS:], k)
                if cell >= 0 and not swap:
                    dead[k] = t.hand_value[k]
                    break
    if bi[B_MUST] >= 0:
        dead[bi[B_MUST]] = MUST
    return dead


@kernel
def _cards_less(cand: np.ndarray, a: int, b: int) -> bool:
    """The cards of row ``a`` sort before those of row ``b`` (as tuples)."""
    la, lb = cand[a, C_LEN], cand[b, C_LEN]
    for i in range(min(la, lb)):
        if cand[a, C_CARDS + i] != cand[b, C_CARDS + i]:
            return cand[a, C_CARDS + i] < cand[b, C_CARDS + i]
    return la < lb


@kernel
def _cheapest_shrink(t: PlanTables, chosen: list, left: np.ndarray,
                     taken: np.ndarray) -> tuple[int, int]:
    """(index in ``chosen``, smaller row) of the meld whose end card kept in hand costs
    least (the first such), or (-1, -1): none can shrink."""
    cand = t.cand
    pick, pick_small, pick_kept = -1, -1, -1
    for i in range(len(chosen)):
        for j in range(MAX_SHRINK):
            small = cand[chosen[i], C_SHRINK + 2 * j]
            kept = cand[chosen[i], C_SHRINK + 2 * j + 1]
            if small < 0 or taken[kept] > left[kept]:
                continue
            if pick < 0 or t.hand_value[kept] < t.hand_value[pick_kept] or (
                    t.hand_value[kept] == t.hand_value[pick_kept] and kept < pick_kept):
                pick, pick_small, pick_kept = i, small, kept
    return pick, pick_small


@kernel
def trim(t: PlanTables, rows: np.ndarray, hand: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """Keep one card that may be discarded: shorten a 4+ card meld by an end card (the
    cheapest kept), else drop melds, least penalty first."""
    chosen = list(rows)
    cand = t.cand
    while len(chosen):
        left = hand.copy()
        for row in chosen:
            for i in range(cand[row, C_LEN]):
                left[cand[row, C_CARDS + i]] -= 1
        if np.maximum(left - taken, 0).sum() >= 1:
            break
        pick, pick_small = _cheapest_shrink(t, chosen, left, taken)
        if pick >= 0:
            chosen[pick] = pick_small
            continue
        drop = 0
        for i in range(1, len(chosen)):
            a, b = chosen[i], chosen[drop]
            if cand[a, C_PENALTY] < cand[b, C_PENALTY] or (
                    cand[a, C_PENALTY] == cand[b, C_PENALTY] and _cards_less(cand, a, b)):
                drop = i
        chosen.pop(drop)
    return as_rows(chosen)


@kernel
def melds_open(t: PlanTables, bi: np.ndarray, tab: np.ndarray, rows: np.ndarray) -> bool:
    """Laying ``rows`` completes the opening (or the seat has opened already)."""
    if bi[B_OPENED]:
        return True
    n = len(rows)
    kinds = np.zeros(n, np.int8)
    keys = np.zeros(n, np.int8)
    cells = np.zeros((n, A.MELD_CELLS), np.int8)
    for i in range(n):
        kind, key = meld_form(t.cand, rows[i], cells[i])
        kinds[i], keys[i] = kind, key
    return opening_met(t.rules, t.cell_value, tab, bi[B_NTAB], kinds, keys, cells, n)


@kernel
def lay_all(t: PlanTables, bi: np.ndarray, tab: np.ndarray, rows: np.ndarray, jokers: bool) -> None:
    """Lay ``rows``, then every lay-off (jokers too when ``jokers``)."""
    for row in rows:
        lay(t.rules, t.cell_value, t.cand, t.pattern, bi, tab, row)
    lay_offs(t.rules, t.position_value, t.set_value, t.hand_value, bi, tab, jokers)


@kernel
def clean_laid(bi: np.ndarray, tab: np.ndarray) -> bool:
    """A joker-free run among the melds laid this turn before the plan."""
    for m in range(bi[B_NTAB]):
        if tab[m, T_NEW] == 1 and tab[m, T_KIND] == RUN and not (tab[m, T_CELLS:] == JK).any():
            return True
    return False


@kernel
def opening_turn(t: PlanTables, bi: np.ndarray, tab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first melding: joker-free if that reaches the requirement, else with jokers."""
    dead = dead_values(t, bi, tab, False)
    clean = t.rules[R_CLEAN_RUN] != 0 and not clean_laid(bi, tab)
    hand, taken = bi[B_HAND:B_HAND + NUM_KINDS], bi[B_TAKEN:B_TAKEN + NUM_KINDS]
    for jokers in (0, hand[JOKER]):
        rows = trim(t, search(t, hand, jokers, t.open_value, dead, clean), hand, taken)
        if melds_open(t, bi, tab, rows):
            out, out_tab = fresh(bi, tab)
            lay_all(t, out, out_tab, rows, False)
            return out, out_tab
        if hand[JOKER] == 0:
            break
    return fresh(bi, tab)


@kernel
def lay_turn(t: PlanTables, bi: np.ndarray, tab: np.ndarray, jokers: bool) -> None:
    """Lay the best melds of what the plan holds, then every lay-off (in place)."""
    dead = dead_values(t, bi, tab, True)
    hand, taken = bi[B_HAND:B_HAND + NUM_KINDS].copy(), bi[B_TAKEN:B_TAKEN + NUM_KINDS].copy()
    rows = search(t, hand, hand[JOKER] if jokers else 0, t.turn_value, dead, False)
    lay_all(t, bi, tab, trim(t, rows, hand, taken), jokers)


@kernel
def score(t: PlanTables, w: np.ndarray, bi: np.ndarray, danger: bool) -> float:
    """What the position after the plan is worth (see the module docstring)."""
    keep = w[W_JOKER_KEEP_DANGER] if danger else w[W_JOKER_KEEP]
    held = 0.0
    for k in range(NUM_NATURALS):
        held += t.hand_value[k] * bi[B_HAND + k]
    held -= keep * bi[B_HAND + JOKER]
    laid = bi[B_POINTS] if t.flags[F_LAID_SCORING] else 0
    cards = bi[B_HAND:B_HAND + NUM_KINDS].sum()
    out = w[W_OUT_BONUS] if cards == 1 and free_cards(bi) == 1 else 0.0
    return laid - held + out - (0.0 if bi[B_MUST] < 0 else -MUST)


@kernel
def best_turn(t: PlanTables, w: np.ndarray, bi: np.ndarray, tab: np.ndarray, may_lay: bool,
              danger: bool) -> tuple[np.ndarray, np.ndarray]:
    """The best turn from the input ``bi``/``tab``: nothing where laying is not allowed,
    the opening for an unopened seat, else the best of laying joker-free, laying with
    jokers and each joker swap (the first best on ties, in that order). A joker freed
    by a swap this turn must be laid again: then only laying with jokers."""
    if not may_lay:
        return fresh(bi, tab)
    if not bi[B_OPENED]:
        return opening_turn(t, bi, tab)
    best, best_tab = fresh(bi, tab)
    if bi[B_FREED] and bi[B_HAND + JOKER]:
        lay_turn(t, best, best_tab, True)
        return best, best_tab
    lay_turn(t, best, best_tab, False)
    best_score = score(t, w, best, danger)
    if bi[B_HAND + JOKER]:
        plan, plan_tab = fresh(bi, tab)
        lay_turn(t, plan, plan_tab, True)
        value = score(t, w, plan, danger)
        if value > best_score:
            best, best_tab, best_score = plan, plan_tab, value
    for m in range(bi[B_NTAB]):
        for cell in range(A.MELD_CELLS):
            if tab[m, T_CELLS + cell] != JK:
                continue
            plan, plan_tab = swap_turn(t, bi, tab, m, cell)
            if plan[0] < 0:
                continue
            value = score(t, w, plan, danger)
            if value > best_score:
                best, best_tab, best_score = plan, plan_tab, value
    return best, best_tab


@kernel
def swap_turn(t: PlanTables, bi: np.ndarray, tab: np.ndarray, m: int,
              cell: int) -> tuple[np.ndarray, np.ndarray]:
    """A natural from hand onto the joker in ``cell`` of row ``m``, the freed joker re-laid
    in the same turn; a plan with ``[0] == -1`` where that cannot be done."""
    none = np.full(1, -1, np.int64), tab
    kind = swap_kind(tab[m, T_KIND], tab[m, T_KEY], tab[m, T_CELLS:], cell)
    if kind < 0 or not bi[B_HAND + kind] or bi[B_TAKEN + kind] >= bi[B_HAND + kind]:
        return none
    plan, plan_tab = fresh(bi, tab)
    fit, _, swap = natural_fit(tab[m, T_KIND], tab[m, T_KEY], tab[m, T_CELLS:], kind)
    if fit < 0 or not swap or not lay_off(t.rules, t.position_value, t.set_value, plan,
                                          plan_tab, kind, m):
        return none
    lay_turn(t, plan, plan_tab, True)
    if plan[B_HAND + JOKER] > bi[B_HAND + JOKER]:
        return none
    return plan, plan_tab
