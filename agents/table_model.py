"""A small Python model of the table for planning a turn: melds decoded from the
observation, the lay-offs and joker swaps a card allows, and the action ids that lay a
hand meld (a 3-card pattern, then lay-offs on the new slot).

Cells follow ``docs/core.md``: run cells 0..13 are positions 1..14 (low ace .. high ace);
set cells 0..3 are the suits S H D C and cell 4 the joker; 0 empty, 1 natural, 2 joker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agents.hand_search import Candidate
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_SUITS
from zolik_env.rummy.melds import position_value, set_card_value
from zolik_env.rummy.options import RuleSet

NAT, JK = A.NATURAL, A.JOKER_CELL
_PATTERN = {cards: i for i, cards in enumerate(A.MELD_PATTERN_CARDS)}


@dataclass(slots=True)
class TableMeld:
    """One meld on the table (a mutable copy for simulating the turn)."""

    slot: int
    is_run: bool
    key: int  # run suit or set rank
    cells: list[int] = field(default_factory=lambda: [0] * A.MELD_CELLS)

    def ends(self) -> tuple[int, int]:
        used = [c for c, v in enumerate(self.cells) if v]
        return used[0], used[-1]

    def counts(self) -> tuple[int, int]:
        """(naturals, jokers)."""
        return self.cells.count(NAT), self.cells.count(JK)


def decode_table(view: dict[str, np.ndarray]) -> list[TableMeld]:
    kinds, keys, cells = view["meld_kind"], view["meld_key"], view["meld_cells"]
    return [TableMeld(int(m), int(kinds[m]) == A.RUN, int(keys[m]), [int(v) for v in cells[m]])
            for m in np.flatnonzero(kinds)]


def _run_cells_of(kind: int, meld: TableMeld) -> list[int]:
    """Run cells natural ``kind`` could occupy (an ace: low and high)."""
    rank = kind % NUM_RANKS
    return [0, A.MELD_CELLS - 1] if rank == 0 else [rank]


def natural_fit(meld: TableMeld, kind: int) -> tuple[int, int, bool] | None:
    """``(action, cell, is_swap)`` putting natural ``kind`` on ``meld``, or None."""
    suit, rank = divmod(kind, NUM_RANKS)
    if meld.is_run:
        if suit != meld.key:
            return None
        low, high = meld.ends()
        for cell in _run_cells_of(kind, meld):
            if meld.cells[cell] == JK or (meld.cells[cell] == 0 and cell in (low - 1, high + 1)):
                if cell == A.MELD_CELLS - 1:
                    action = A.ACE_HIGH_BASE + meld.slot * NUM_SUITS + suit
                else:
                    action = A.LAYOFF_BASE + meld.slot * NUM_NATURALS + kind
                return action, cell, meld.cells[cell] == JK
        return None
    if rank != meld.key or meld.cells[suit]:
        return None
    naturals, jokers = meld.counts()
    swap = jokers > 0 and naturals == 3
    return A.LAYOFF_BASE + meld.slot * NUM_NATURALS + kind, suit, swap


def joker_fit(meld: TableMeld, rules: RuleSet) -> tuple[int, int] | None:
    """``(action, cell)`` putting a joker on ``meld`` (a run's high end first), or None."""
    naturals, jokers = meld.counts()
    if rules.jokers_fewer_than_naturals and jokers + 1 >= naturals:
        return None
    if not meld.is_run:
        if meld.cells[A.SET_JOKER_CELL] or naturals + jokers >= 4:
            return None
        return A.JOKER_BASE + meld.slot * 2, A.SET_JOKER_CELL
    low, high = meld.ends()
    apart = rules.jokers_adjacent_in_run
    if high + 1 < A.MELD_CELLS and (apart or meld.cells[high] != JK):
        return A.JOKER_BASE + meld.slot * 2 + 1, high + 1
    if low >= 1 and (apart or meld.cells[low] != JK):
        return A.JOKER_BASE + meld.slot * 2, low - 1
    return None


def apply_natural(meld: TableMeld, cell: int, swap: bool) -> None:
    if swap and not meld.is_run:
        meld.cells[A.SET_JOKER_CELL] = 0
    meld.cells[cell] = NAT


def cell_value(meld: TableMeld, cell: int, rules: RuleSet) -> int:
    """Meld value of a card in ``cell`` (jolly scores it for whoever laid it)."""
    if meld.is_run:
        return position_value(cell + 1, rules)
    return set_card_value(meld.key, rules)


Steps = list[tuple[int, tuple[int, ...]]]  # (action, cards it takes from hand)


def meld_steps(cand: Candidate, slot: int) -> tuple[Steps, TableMeld]:
    """Actions laying ``cand`` into ``slot`` (a pattern, then lay-offs on it), and the meld."""
    if not cand.is_run:
        return _set_steps(cand, slot)
    cards = cand.cards
    j = cards.index(JOKER) if JOKER in cards else -1
    first = 0 if j <= 0 else min(j - 1, len(cards) - 3)
    window = cards[first:first + 3]
    steps: Steps = [(A.MELD_BASE + _PATTERN[window], window)]
    order = list(range(first - 1, -1, -1)) + list(range(first + 3, len(cards)))
    for i in order:
        position = cand.low + i
        if position == A.MELD_CELLS:
            action = A.ACE_HIGH_BASE + slot * NUM_SUITS + cards[i] // NUM_RANKS
        else:
            action = A.LAYOFF_BASE + slot * NUM_NATURALS + cards[i]
        steps.append((action, (cards[i],)))
    meld = TableMeld(slot, True, cand.naturals[0] // NUM_RANKS)
    for i, card in enumerate(cards):
        meld.cells[cand.low + i - 1] = JK if card == JOKER else NAT
    return steps, meld


def _set_steps(cand: Candidate, slot: int) -> tuple[Steps, TableMeld]:
    naturals = cand.naturals
    rank = naturals[0] % NUM_RANKS
    if len(naturals) >= 3:
        steps: Steps = [(A.MELD_BASE + _PATTERN[naturals[:3]], naturals[:3])]
        steps += [(A.LAYOFF_BASE + slot * NUM_NATURALS + k, (k,)) for k in naturals[3:]]
        if cand.jokers:
            steps.append((A.JOKER_BASE + slot * 2, (JOKER,)))
    else:
        window = (*naturals, JOKER)
        steps = [(A.MELD_BASE + _PATTERN[window], window)]
    meld = TableMeld(slot, False, rank)
    for k in naturals:
        meld.cells[k // NUM_RANKS] = NAT
    if cand.jokers:
        meld.cells[A.SET_JOKER_CELL] = JK
    return steps, meld
