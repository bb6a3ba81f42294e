"""A whole turn planned at once: the melds, lay-offs and joker swaps to make and the discard
that ends it, as a list of action ids with the hand expected before each one.

Both heuristic agents decide *what* to lay; ``Builder`` turns the decision into actions on a
simulated table (the slots new melds take, ace-high lay-offs, joker re-lays), and
``next_step`` plays a plan's next step: every decision plans again from what the
observation shows (an unopened seat that laid this turn: from the turn's start).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from agents import obs_view as ov
from agents.search.hand_search import Candidate, shrink
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet

from .table_model import (
    TableMeld,
    apply_natural,
    cell_value,
    decode_table,
    joker_fit,
    meets_opening,
    meld_steps,
    natural_fit,
)


@dataclass(slots=True)
class TurnInput:
    """What a turn plan starts from (read from the observation, or made up to test a draw)."""

    rules: RuleSet
    hand: np.ndarray  # int64 (53,)
    table: list[TableMeld]
    opened: bool
    may_lay: bool  # melding allowed, not undone
    provisional: tuple[int, ...] = ()  # slots of the melds laid this turn (before opening)
    must_use: int = -1  # cz/sk: the taken top discard still to lay
    taken_unlaid: np.ndarray = field(default_factory=lambda: np.zeros(NUM_KINDS, np.int64))
    freed: bool = False  # a joker freed by a swap this turn waits to be laid again

    @property
    def provisional_melds(self) -> list[TableMeld]:
        return [m for m in self.table if m.slot in self.provisional]

    @property
    def clean_laid(self) -> bool:
        """A joker-free run among the provisional melds."""
        return any(m.is_run and A.JOKER_CELL not in m.cells for m in self.provisional_melds)

    def with_cards(self, cards: list[int], must_use: bool) -> TurnInput:
        """This input after taking ``cards`` from the discard pile (or the bottom card)."""
        hand, taken = self.hand.copy(), self.taken_unlaid.copy()
        for k in cards:
            hand[k] += 1
            taken[k] += 1
        return TurnInput(self.rules, hand, [TableMeld(m.slot, m.is_run, m.key, list(m.cells))
                                            for m in self.table], self.opened, self.may_lay,
                         self.provisional, cards[0] if must_use else -1, taken)


def turn_input(view: ov.View, rules: RuleSet) -> TurnInput:
    table = decode_table(view)
    new = view["meld_new"]
    provisional = tuple(m.slot for m in table if new[m.slot]) if ov.flag(view, ov.FLAG_LAID) else ()
    must = np.flatnonzero(view["must_use"])
    may = bool(ov.scalar(view, "melding_allowed")) and not ov.flag(view, ov.FLAG_UNDONE)
    opened = bool(view["opened"][ov.OBSERVER])
    return TurnInput(rules, view["hand"].astype(np.int64), table, opened, may, provisional,
                     int(must[0]) if must.size else -1, view["taken_unlaid"].astype(np.int64),
                     ov.flag(view, ov.FLAG_FREED_JOKERS))


def opening_met(inp: TurnInput, melds: list[Candidate] | tuple[Candidate, ...]) -> bool:
    """Whether laying ``melds`` completes the opening (or the seat has opened already): the
    core's judgement on this turn's provisional melds together with ``melds``."""
    if inp.opened:
        return True
    first = len(inp.table)  # the slots the melds would take (their values do not depend on it)
    laid = [meld_steps(cand, first + i)[1] for i, cand in enumerate(melds)]
    return meets_opening(inp.rules, inp.provisional_melds + laid)


def discardable(hand: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """int (53,) copies of each kind that may end the turn."""
    return np.maximum(hand - taken, 0)


class Builder:
    """Simulates the turn: lays, lay-offs and swaps on a copy of the hand and table."""

    def __init__(self, inp: TurnInput) -> None:
        self.inp = inp
        self.hand = inp.hand.copy()
        self.taken = inp.taken_unlaid.copy()
        self.table = [TableMeld(m.slot, m.is_run, m.key, list(m.cells)) for m in inp.table]
        self.next_slot = max((m.slot for m in self.table), default=-1) + 1
        self.actions: list[int] = []
        self.hands: list[bytes] = []
        self.points = 0  # meld value laid this turn
        self.laid_melds: list[Candidate] = []
        self.opened = inp.opened
        self.must_use = inp.must_use

    def clone(self) -> Builder:
        other = Builder.__new__(Builder)
        other.inp, other.hand, other.taken = self.inp, self.hand.copy(), self.taken.copy()
        other.table = [TableMeld(m.slot, m.is_run, m.key, list(m.cells)) for m in self.table]
        other.next_slot, other.actions, other.hands = self.next_slot, list(self.actions), list(
            self.hands)
        other.points, other.laid_melds = self.points, list(self.laid_melds)
        other.opened, other.must_use = self.opened, self.must_use
        return other

    def _step(self, action: int) -> None:
        self.actions.append(action)
        self.hands.append(self.hand.astype(np.int16).tobytes())

    def _remove(self, kind: int) -> None:
        self.hand[kind] -= 1
        self.taken[kind] = max(self.taken[kind] - 1, 0)
        if kind == self.must_use:
            self.must_use = -1

    def free_cards(self) -> int:
        return int(discardable(self.hand, self.taken).sum())

    def lay(self, cand: Candidate) -> None:
        steps, meld = meld_steps(cand, self.next_slot)
        for action, cards in steps:
            self._step(action)
            for k in cards:
                self._remove(k)
        self.table.append(meld)
        self.next_slot += 1
        self.points += cand.points
        self.laid_melds.append(cand)
        self.opened = self.opened or opening_met(self.inp, self.laid_melds)

    def lay_off(self, kind: int, meld: TableMeld) -> bool:
        """Put ``kind`` (a natural or JOKER) on ``meld`` if it fits; a swap frees a joker."""
        if kind == JOKER:
            fit = joker_fit(meld, self.inp.rules)
            if fit is None:
                return False
            self._step(fit[0])
            meld.cells[fit[1]] = A.JOKER_CELL
            self._remove(JOKER)
            self.points += cell_value(meld, fit[1], self.inp.rules)
            return True
        natural = natural_fit(meld, kind)
        if natural is None:
            return False
        action, cell, swap = natural
        self._step(action)
        apply_natural(meld, cell, swap)
        self._remove(kind)
        self.hand[JOKER] += swap
        self.points += cell_value(meld, cell, self.inp.rules) * (not swap)
        return True

    def lay_offs(self, jokers: bool, keep: int = 1) -> None:
        """Lay off every card that fits, highest penalty first, keeping ``keep`` free cards;
        never a swap (those are chosen apart)."""
        rules = self.inp.rules
        changed = True
        while changed and self.opened:
            changed = False
            kinds = [int(k) for k in np.flatnonzero(self.hand[:JOKER])]
            kinds.sort(key=lambda k: -hand_card_value(k, rules))
            if jokers and self.hand[JOKER]:
                kinds.insert(0, JOKER)
            for kind in kinds:
                if self.free_cards() - (self.taken[kind] == 0) < keep or not self.hand[kind]:
                    continue
                for meld in self.table:
                    fit = natural_fit(meld, kind) if kind != JOKER else None
                    if fit is not None and fit[2]:
                        continue
                    if self.lay_off(kind, meld):
                        changed = True
                        break

    def discard(self, kind: int) -> None:
        self._step(A.DISCARD_BASE + kind)
        self.hand[kind] -= 1


def trim_for_discard(melds: list[Candidate], hand: np.ndarray, taken: np.ndarray,
                     rules: RuleSet) -> list[Candidate]:
    """Keep one card that may be discarded: shorten a 4+ card meld by an end card (the
    discard that goes out), else drop melds, least penalty first."""
    chosen = list(melds)
    while chosen:
        left = hand.copy()
        for cand in chosen:
            for k in cand.cards:
                left[k] -= 1
        if discardable(left, taken).sum() >= 1:
            break
        shorter = [(kept, i, small) for i, cand in enumerate(chosen)
                   for small, kept in shrink(cand, rules) if taken[kept] <= left[kept]]
        if shorter:
            _, i, small = min(shorter, key=lambda t: (hand_card_value(t[0], rules), t[0]))
            chosen[i] = small
            continue
        chosen.remove(min(chosen, key=lambda c: (c.penalty, c.cards)))
    return chosen


def turn_start(obs: np.ndarray, rules: RuleSet) -> np.ndarray | None:
    """The observation at the start of the turn of a seat that has not opened and has
    laid melds this turn: its new melds back in its hand (before opening a seat lays only
    into its own new melds); None for any other position."""
    view = ov.decode(obs, rules)
    if not ov.flag(view, ov.FLAG_LAID) or view["opened"][ov.OBSERVER]:
        return None
    start = obs.copy()
    out = ov.decode(start, rules)
    for slot in np.flatnonzero(out["meld_new"]):
        kind, key = int(out["meld_kind"][slot]), int(out["meld_key"][slot])
        cells = out["meld_cells"][slot]
        for cell in np.flatnonzero(cells):
            if cells[cell] == A.JOKER_CELL:
                card = JOKER
            elif kind == A.RUN:
                card = key * NUM_RANKS + (int(cell) if cell < NUM_RANKS else 0)
            else:
                card = int(cell) * NUM_RANKS + key
            out["hand"][card] += 1
        for name in ("meld_kind", "meld_key", "meld_cells", "meld_new"):
            out[name][slot] = 0
    out["turn_flags"][ov.FLAG_LAID] = 0
    return start


def next_step(plan: Callable[[ov.View], Builder], obs: np.ndarray, mask: np.ndarray,
              rules: RuleSet, fallback: Callable[[np.ndarray], int]) -> int:
    """The next step of the turn ``plan`` makes from the observation: from the turn's
    start where ``turn_start`` rebuilds it and the position lies on that plan (the first
    step whose hand before it is the hand now and whose action is legal), else from the
    position itself; ``fallback(hand)`` where the planned step is not legal."""
    view = ov.decode(obs, rules)
    hand = view["hand"].astype(np.int64)
    start = turn_start(obs, rules)
    if start is not None:
        builder = plan(ov.decode(start, rules))
        here = view["hand"].astype(np.int16).tobytes()
        for before, action in zip(builder.hands, builder.actions, strict=True):
            if before == here and mask[action]:
                return int(action)
    builder = plan(view)
    if builder.actions and mask[builder.actions[0]]:
        return int(builder.actions[0])
    return fallback(hand)
