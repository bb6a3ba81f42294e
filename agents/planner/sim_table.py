"""The compiled turn simulation: a hand and a copy of the table, changed by the lays,
lay-offs and joker swaps a planned turn makes, with the action ids that make them.

A *plan* is two arrays (``new_plan``):

- ``bi`` int64 (NB,): the hand (``B_HAND``), the cards taken this turn and not laid
  (``B_TAKEN``), the cz/sk discard still to use (``B_MUST``, -1 for none), whether the
  seat has opened, the meld value laid, the next free slot, the counts of table rows,
  laid melds and actions, whether a joker freed this turn waits to be laid again
  (``B_FREED``), the meld-table rows laid (``B_LAID``) and the actions
  (``B_ACT``) with, per action, whether it frees a joker (``B_SWAP``);
- ``tab`` int8 (T, TAB_WIDTH): the table's melds in slot order, one per row: meld kind,
  key, slot, whether it was laid this turn (1: before the plan, 2: by the plan), then
  its cells (``docs/core.md``).

What fits where is asked of the core's kernels (``zolik_env.rummy.fits``), and whether
melds meet the opening of ``zolik_env.rummy.table.meets_opening_kernel``: the rules keep
one home. The readable model this compiles is ``tests/agents/planner_reference``.
"""

from __future__ import annotations

import numpy as np

from agents.planner.plan_tables import C_CARDS, C_JOKERS, C_LEN, C_LOW, C_POINTS, C_RUN
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.fits import is_run_end_gap, joker_fits, set_frees_joker
from zolik_env.rummy.jit import kernel
from zolik_env.rummy.table import meets_opening_kernel

RUN, SET, NAT, JK = A.RUN, A.SET, A.NATURAL, A.JOKER_CELL
HIGH = A.MELD_CELLS - 1

B_HAND = 0
B_TAKEN = B_HAND + NUM_KINDS
B_MUST = B_TAKEN + NUM_KINDS
B_OPENED, B_POINTS, B_NEXT, B_NTAB, B_NLAID, B_NACT, B_FREED = range(B_MUST + 1, B_MUST + 8)
MAX_LAID, MAX_ACT = 24, 96
B_LAID = B_FREED + 1
B_ACT = B_LAID + MAX_LAID
B_SWAP = B_ACT + MAX_ACT
NB = B_SWAP + MAX_ACT

T_KIND, T_KEY, T_SLOT, T_NEW, T_CELLS = range(5)
TAB_WIDTH = T_CELLS + A.MELD_CELLS
MAX_ROWS = A.MAX_MELDS + 24


def new_plan() -> tuple[np.ndarray, np.ndarray]:
    """An empty plan's ``bi`` and ``tab`` (see the module docstring)."""
    bi = np.zeros(NB, np.int64)
    bi[B_MUST] = -1
    return bi, np.zeros((MAX_ROWS, TAB_WIDTH), np.int8)


@kernel
def as_rows(items: list) -> np.ndarray:
    """int64 array of a list of meld-table rows (a typed list inside kernels)."""
    out = np.empty(len(items), np.int64)
    for i in range(len(items)):
        out[i] = items[i]
    return out


@kernel
def fresh(bi: np.ndarray, tab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A plan that starts from the position of ``bi``/``tab`` with nothing done yet
    (``Builder(inp)`` of the readable model)."""
    out, out_tab = bi.copy(), tab.copy()
    out[B_POINTS] = 0
    out[B_NLAID] = 0
    out[B_NACT] = 0
    return out, out_tab


@kernel
def natural_fit(meld_kind: int, meld_key: int, cells: np.ndarray,
                kind: int) -> tuple[int, bool, bool]:
    """(cell, at the high end, frees a joker) where natural ``kind`` goes on the meld (an
    ace on a run: the low end where it fits there); cell -1 where it does not fit."""
    if meld_kind == RUN:
        if kind // NUM_RANKS != meld_key:
            return -1, False, False
        rank = kind % NUM_RANKS
        if cells[rank] == JK or is_run_end_gap(cells, rank):
            return rank, False, cells[rank] == JK
        if rank == 0 and (cells[HIGH] == JK or is_run_end_gap(cells, HIGH)):
            return HIGH, True, cells[HIGH] == JK
    elif meld_kind == SET:
        suit = kind // NUM_RANKS
        if kind % NUM_RANKS == meld_key and cells[suit] == 0:
            return suit, False, set_frees_joker(meld_kind, cells)
    return -1, False, False


@kernel
def joker_fit(rules: np.ndarray, meld_kind: int, cells: np.ndarray) -> tuple[int, bool]:
    """(cell, at the high end) where a joker goes on the meld (a run's high end first);
    cell -1 where it does not fit."""
    ends = np.zeros(2, np.bool_)
    joker_fits(rules, meld_kind, cells, ends)
    if meld_kind == SET:
        return (A.SET_JOKER_CELL, False) if ends[0] else (-1, False)
    if meld_kind != RUN:
        return -1, False
    first, last = -1, -1
    for c in range(A.MELD_CELLS):
        if cells[c] != 0:
            last = c
            if first < 0:
                first = c
    if ends[1]:
        return last + 1, True
    if ends[0]:
        return first - 1, False
    return -1, False


@kernel
def swap_kind(meld_kind: int, meld_key: int, cells: np.ndarray, cell: int) -> int:
    """The natural that swaps out the joker in ``cell`` of the meld, or -1 (a set's joker
    only once the set holds three naturals)."""
    if meld_kind == RUN:
        return meld_key * NUM_RANKS + (cell if cell < HIGH else 0)
    if meld_kind == SET and set_frees_joker(meld_kind, cells):
        for suit in range(NUM_SUITS):
            if cells[suit] == 0:
                return suit * NUM_RANKS + meld_key
    return -1


@kernel
def fit_action(slot: int, kind: int, cell: int, high: bool) -> int:
    """The action id putting ``kind`` (a natural or JOKER) at ``cell`` of meld ``slot``."""
    if kind == JOKER:
        return A.JOKER_BASE + slot * 2 + int(high)
    if high:
        return A.ACE_HIGH_BASE + slot * NUM_SUITS + kind // NUM_RANKS
    return A.LAYOFF_BASE + slot * NUM_NATURALS + kind


@kernel
def cell_points(pv: np.ndarray, meld_kind: int, meld_key: int, cell: int,
                set_value: int) -> int:
    """Meld value of the card in ``cell`` (runs: by position; sets: ``set_value``)."""
    return pv[cell + 1] if meld_kind == RUN else set_value


@kernel
def fits_table(tab: np.ndarray, rows: int, kind: int) -> bool:
    """Natural ``kind`` lays off on some meld of the first ``rows`` rows."""
    for m in range(rows):
        if natural_fit(tab[m, T_KIND], tab[m, T_KEY], tab[m, T_CELLS:], kind)[0] >= 0:
            return True
    return False


@kernel
def free_cards(bi: np.ndarray) -> int:
    """Cards that may end the turn (not taken this turn)."""
    n = 0
    for k in range(NUM_KINDS):
        n += max(bi[B_HAND + k] - bi[B_TAKEN + k], 0)
    return n


@kernel
def step(bi: np.ndarray, action: int, swap: bool) -> None:
    """Append ``action`` to the plan (``swap``: it frees a joker to the hand)."""
    i = bi[B_NACT]
    bi[B_ACT + i] = action
    bi[B_SWAP + i] = swap
    bi[B_NACT] = i + 1


@kernel
def remove(bi: np.ndarray, kind: int) -> None:
    """A card of ``kind`` leaves the hand (for the table): no longer taken or owed."""
    bi[B_HAND + kind] -= 1
    bi[B_TAKEN + kind] = max(bi[B_TAKEN + kind] - 1, 0)
    if kind == bi[B_MUST]:
        bi[B_MUST] = -1


@kernel
def opening_met(rules: np.ndarray, cell_value: np.ndarray, tab: np.ndarray, rows: int,
                extra_kind: np.ndarray, extra_key: np.ndarray, extra_cells: np.ndarray,
                extra: int) -> bool:
    """The core's judgement on the melds laid this turn (rows marked ``T_NEW``) together
    with the first ``extra`` melds given apart."""
    n = rows + extra
    kind = np.zeros(n, np.int8)
    key = np.zeros(n, np.int8)
    cells = np.zeros((n, A.MELD_CELLS), np.int8)
    counted = np.zeros(n, np.bool_)
    for m in range(rows):
        kind[m], key[m], counted[m] = tab[m, T_KIND], tab[m, T_KEY], tab[m, T_NEW] > 0
        cells[m] = tab[m, T_CELLS:]
    for m in range(extra):
        kind[rows + m], key[rows + m] = extra_kind[m], extra_key[m]
        cells[rows + m] = extra_cells[m]
        counted[rows + m] = True
    return meets_opening_kernel(rules, cell_value, kind, key, cells, counted)


@kernel
def meld_form(cand: np.ndarray, row: int, cells: np.ndarray) -> tuple[int, int]:
    """(meld kind, key) of candidate ``row`` laid on the table; its cells into ``cells``."""
    cells[:] = 0
    length, low = cand[row, C_LEN], cand[row, C_LOW]
    if cand[row, C_RUN]:
        suit = -1
        for i in range(length):
            card = cand[row, C_CARDS + i]
            cells[low + i - 1] = JK if card == JOKER else NAT
            if card != JOKER and suit < 0:
                suit = card // NUM_RANKS
        return RUN, suit
    rank = -1
    for i in range(length):
        card = cand[row, C_CARDS + i]
        if card == JOKER:
            cells[A.SET_JOKER_CELL] = JK
        else:
            cells[card // NUM_RANKS] = NAT
            rank = card % NUM_RANKS
    return SET, rank


@kernel
def lay(t_rules: np.ndarray, cell_value: np.ndarray, cand: np.ndarray, pattern: np.ndarray,
        bi: np.ndarray, tab: np.ndarray, row: int) -> None:
    """Lay candidate ``row`` into the next slot: a 3-card pattern (the window holding the
    joker), then lay-offs on the new slot, inner cards first."""
    slot, length = bi[B_NEXT], cand[row, C_LEN]
    cards = cand[row, C_CARDS:C_CARDS + length]
    if cand[row, C_RUN]:
        j = -1
        for i in range(length):
            if cards[i] == JOKER:
                j = i
        first = 0 if j <= 0 else min(j - 1, length - 3)
        step(bi, A.MELD_BASE + pattern[cards[first], cards[first + 1], cards[first + 2]],
             False)
        for i in range(first, first + 3):
            remove(bi, cards[i])
        for i in range(first - 1, -1, -1):
            _extend(bi, cards[i], slot, cand[row, C_LOW] + i)
        for i in range(first + 3, length):
            _extend(bi, cards[i], slot, cand[row, C_LOW] + i)
    else:
        _lay_set(bi, cards, cand[row, C_JOKERS], pattern, slot)
    m = bi[B_NTAB]
    kind, key = meld_form(cand, row, tab[m, T_CELLS:])
    tab[m, T_KIND], tab[m, T_KEY], tab[m, T_SLOT], tab[m, T_NEW] = kind, key, slot, 2
    bi[B_NTAB] = m + 1
    bi[B_NEXT] = slot + 1
    bi[B_POINTS] += cand[row, C_POINTS]
    bi[B_LAID + bi[B_NLAID]] = row
    bi[B_NLAID] += 1
    if not bi[B_OPENED]:
        none = np.zeros(0, np.int8)
        bi[B_OPENED] = opening_met(t_rules, cell_value, tab, bi[B_NTAB], none, none,
                                   np.zeros((0, A.MELD_CELLS), np.int8), 0)


@kernel
def _extend(bi: np.ndarray, card: int, slot: int, position: int) -> None:
    """Lay ``card`` at run ``position`` of the meld just laid into ``slot``."""
    step(bi, fit_action(slot, card, 0, position == A.MELD_CELLS), False)
    remove(bi, card)


@kernel
def _lay_set(bi: np.ndarray, cards: np.ndarray, jokers: int, pattern: np.ndarray,
             slot: int) -> None:
    naturals = cards[cards != JOKER]
    if len(naturals) >= 3:
        step(bi, A.MELD_BASE + pattern[naturals[0], naturals[1], naturals[2]], False)
        for i in range(3):
            remove(bi, naturals[i])
        for i in range(3, len(naturals)):
            step(bi, A.LAYOFF_BASE + slot * NUM_NATURALS + naturals[i], False)
            remove(bi, naturals[i])
        if jokers:
            step(bi, A.JOKER_BASE + slot * 2, False)
            remove(bi, JOKER)
    else:
        step(bi, A.MELD_BASE + pattern[naturals[0], naturals[1], JOKER], False)
        remove(bi, naturals[0])
        remove(bi, naturals[1])
        remove(bi, JOKER)


@kernel
def lay_off(t_rules: np.ndarray, pv: np.ndarray, set_values: np.ndarray, bi: np.ndarray,
            tab: np.ndarray, kind: int, m: int) -> bool:
    """Put ``kind`` (a natural or JOKER) on the meld in row ``m`` if it fits; a natural
    on a joker's cell frees the joker to the hand."""
    meld_kind, key, slot = tab[m, T_KIND], tab[m, T_KEY], tab[m, T_SLOT]
    cells = tab[m, T_CELLS:]
    value = set_values[key] if meld_kind == SET else 0
    if kind == JOKER:
        cell, high = joker_fit(t_rules, meld_kind, cells)
        if cell < 0:
            return False
        step(bi, fit_action(slot, JOKER, cell, high), False)
        cells[cell] = JK
        remove(bi, JOKER)
        bi[B_POINTS] += cell_points(pv, meld_kind, key, cell, value)
        return True
    cell, high, swap = natural_fit(meld_kind, key, cells, kind)
    if cell < 0:
        return False
    step(bi, fit_action(slot, kind, cell, high), swap)
    if swap and meld_kind == SET:
        cells[A.SET_JOKER_CELL] = 0
    cells[cell] = NAT
    remove(bi, kind)
    bi[B_HAND + JOKER] += swap
    if not swap:
        bi[B_POINTS] += cell_points(pv, meld_kind, key, cell, value)
    return True


@kernel
def lay_offs(t_rules: np.ndarray, pv: np.ndarray, set_values: np.ndarray,
             hand_value: np.ndarray, bi: np.ndarray, tab: np.ndarray, jokers: bool) -> None:
    """Lay off every card that fits, highest penalty first (a joker before them when
    ``jokers``), keeping one free card; never a swap (those are chosen apart)."""
    changed = True
    while changed and bi[B_OPENED]:
        changed = False
        kinds = _by_penalty(bi, hand_value, jokers)
        for kind in kinds:
            if free_cards(bi) - (bi[B_TAKEN + kind] == 0) < 1 or not bi[B_HAND + kind]:
                continue
            for m in range(bi[B_NTAB]):
                if kind != JOKER:
                    cell, _, swap = natural_fit(tab[m, T_KIND], tab[m, T_KEY],
                                                tab[m, T_CELLS:], kind)
                    if cell >= 0 and swap:
                        continue
                if lay_off(t_rules, pv, set_values, bi, tab, kind, m):
                    changed = True
                    break


@kernel
def _by_penalty(bi: np.ndarray, hand_value: np.ndarray, jokers: bool) -> np.ndarray:
    """The naturals held, highest penalty first (ties: lower kind first), after JOKER when
    ``jokers`` and one is held."""
    out = np.empty(NUM_KINDS, np.int64)
    n = 0
    if jokers and bi[B_HAND + JOKER]:
        out[0] = JOKER
        n = 1
    first = n
    for k in range(NUM_NATURALS):
        if bi[B_HAND + k] > 0:
            i = n
            while i > first and hand_value[out[i - 1]] < hand_value[k]:
                out[i] = out[i - 1]
                i -= 1
            out[i] = k
            n += 1
    return out[:n]
