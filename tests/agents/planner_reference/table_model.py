"""A small Python model of the table for planning a turn: melds decoded from the
observation, the lay-offs and joker swaps a card allows (asked of the core's
``zolik_env.rummy.fits``, the rules' one home), and the action ids that lay a hand meld
(a 3-card pattern, then lay-offs on the new slot).

Cells follow ``docs/core.md``: run cells 0..13 are positions 1..14 (low ace .. high ace);
set cells 0..3 are the suits S H D C and cell 4 the joker; 0 empty, 1 natural, 2 joker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agents.search.hand_search import Candidate
from zolik_env.rummy import actions as A
from zolik_env.rummy import fits, table
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

    @property
    def kind(self) -> int:
        """``RUN`` or ``SET`` (the observation's ``meld_kind``)."""
        return A.RUN if self.is_run else A.SET


def decode_table(view: dict[str, np.ndarray]) -> list[TableMeld]:
    kinds, keys, cells = view["meld_kind"], view["meld_key"], view["meld_cells"]
    return [TableMeld(int(m), int(kinds[m]) == A.RUN, int(keys[m]), [int(v) for v in cells[m]])
            for m in np.flatnonzero(kinds)]


def natural_fit(meld: TableMeld, kind: int) -> tuple[int, int, bool] | None:
    """``(action, cell, is_swap)`` putting natural ``kind`` on ``meld`` (an ace on a run: the
    low end where it fits there), or None; the core's ``fits.natural_places`` decides."""
    places = fits.natural_places(meld.kind, meld.key, meld.cells, kind)
    if not places:
        return None
    place = places[0]
    return fits.lay_off_action(meld.slot, kind, place), place.cell, place.swap


def joker_fit(meld: TableMeld, rules: RuleSet) -> tuple[int, int] | None:
    """``(action, cell)`` putting a joker on ``meld`` (a run's high end first), or None; the
    core's ``fits.joker_places`` decides."""
    places = fits.joker_places(rules, meld.kind, meld.key, meld.cells)
    if not places:
        return None
    place = max(places, key=lambda p: p.high)
    return fits.lay_off_action(meld.slot, JOKER, place), place.cell


def swap_kind(meld: TableMeld, cell: int) -> int:
    """The natural kind that swaps the joker in ``cell`` of ``meld`` out, or -1 (a set's
    joker only once the set holds three naturals)."""
    for kind, places in enumerate(fits.all_natural_places(meld.kind, meld.key, meld.cells)):
        if any(p.swap and (p.cell == cell or not meld.is_run) for p in places):
            return kind
    return -1


def meets_opening(rules: RuleSet, melds: list[TableMeld]) -> bool:
    """Whether ``melds``, laid in one turn by a seat that has not opened, meet the opening
    requirement, by the core's own judgement (``table.meets_opening``)."""
    kind = np.array([[m.kind for m in melds]], np.int8).reshape(1, -1)
    key = np.array([[m.key for m in melds]], np.int8).reshape(1, -1)
    cells = np.array([[m.cells for m in melds]], np.int8).reshape(1, len(melds), A.MELD_CELLS)
    counted = np.ones(kind.shape, bool)
    return bool(table.meets_opening(rules, kind, key, cells, counted)[0])


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
