"""The planner's turn search: which melds, lay-offs and joker swaps make the best turn.

Each option is simulated with ``turn_plan.Builder`` and scored by what the position is
worth after it: minus the penalty of the naturals still held, plus a keep value per joker
held (so a joker is laid only where it lays more than that; when an opponent may go out a
held joker costs its full penalty instead),
plus the meld value laid (jolly scores it), plus a bonus for going out.
"""

from __future__ import annotations

import numpy as np

from agents.planner.planner_weights import DEFAULT_WEIGHTS, PlannerWeights
from agents.search.hand_search import Candidate, best_melds
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet

from .table_model import natural_fit, swap_kind
from .turn_plan import Builder, TurnInput, opening_met, trim_for_discard

MUST = -1000.0  # dead value of a taken cz/sk discard: any meld that uses it wins


class TurnSearch:
    """Best turn for one rule set; results memoised per position within a turn."""

    def __init__(self, rules: RuleSet, weights: PlannerWeights = DEFAULT_WEIGHTS) -> None:
        self.rules = rules
        self.weights = weights  # joker_keep, joker_keep_danger, out_bonus
        self.values = np.array([hand_card_value(k, rules) for k in range(JOKER + 1)], float)
        self.memo: dict[bytes, Builder] = {}

    def meld_value(self, cand: Candidate) -> float:
        laid = float(cand.penalty)
        return laid + cand.points if self.rules.scoring == "laid" else laid

    def score(self, b: Builder, danger: bool = False) -> float:
        keep = self.weights.joker_keep_danger if danger else self.weights.joker_keep
        held = float(self.values[:JOKER] @ b.hand[:JOKER]) - keep * b.hand[JOKER]
        laid = b.points if self.rules.scoring == "laid" else 0
        out = self.weights.out_bonus if b.hand.sum() == 1 and b.free_cards() == 1 else 0.0
        return laid - held + out - (0 if b.must_use < 0 else -MUST)

    def fits_table(self, inp: TurnInput, kind: int) -> bool:
        return any(natural_fit(m, kind) is not None for m in inp.table)

    def dead_values(self, inp: TurnInput) -> list[float]:
        """Per kind: what keeping a card is worth to the search (lay-offs count as laid)."""
        dead = [0.0] * (JOKER + 1)
        if inp.opened:
            for k in np.flatnonzero(inp.hand[:JOKER]):
                fit = [natural_fit(m, int(k)) for m in inp.table]
                if any(f is not None and not f[2] for f in fit):
                    dead[k] = float(self.values[k])
        if inp.must_use >= 0:
            dead[inp.must_use] = MUST
        return dead

    def best_turn(self, inp: TurnInput, danger: bool = False) -> Builder:
        key = (inp.hand.tobytes() + inp.taken_unlaid.tobytes() + bytes([inp.opened, danger,
               inp.freed,
               inp.may_lay, inp.must_use + 1, len(inp.provisional), *inp.provisional])
               + b"".join(bytes(m.cells) for m in inp.table))
        if key not in self.memo:
            if len(self.memo) > 512:
                self.memo.clear()
            self.memo[key] = self._best_turn(inp, danger)
        return self.memo[key].clone()

    def _best_turn(self, inp: TurnInput, danger: bool) -> Builder:
        if not inp.may_lay:
            return Builder(inp)
        if not inp.opened:
            return self.opening_turn(inp)
        if inp.freed and inp.hand[JOKER]:  # the freed joker must be laid again this turn
            return self.lay_turn(Builder(inp), jokers=True)
        plans = [self.lay_turn(Builder(inp), jokers=False)]
        if inp.hand[JOKER]:
            plans.append(self.lay_turn(Builder(inp), jokers=True))
        plans += self.swap_turns(inp)
        return max(plans, key=lambda b: self.score(b, danger))

    def opening_turn(self, inp: TurnInput) -> Builder:
        """The first melding: joker-free if that reaches the requirement, else with jokers."""
        dead = self.dead_values(inp)
        clean = self.rules.opening_needs_clean_run and not inp.clean_laid
        for jokers in sorted({0, int(inp.hand[JOKER])}):
            best = best_melds(inp.hand, jokers, self.rules, _points, dead)
            melds = trim_for_discard(list(best.clean_melds if clean else best.melds),
                                     inp.hand, inp.taken_unlaid, self.rules)
            if opening_met(inp, melds):
                builder = Builder(inp)
                for cand in melds:
                    builder.lay(cand)
                builder.lay_offs(jokers=False)
                return builder
        return Builder(inp)

    def lay_turn(self, builder: Builder, jokers: bool) -> Builder:
        """Lay the best melds of what ``builder`` holds, then every lay-off."""
        inp = builder.inp
        now = TurnInput(self.rules, builder.hand, builder.table, True, True,
                        must_use=builder.must_use, taken_unlaid=builder.taken)
        best = best_melds(builder.hand, int(builder.hand[JOKER]) if jokers else 0, self.rules,
                          self.meld_value, self.dead_values(now))
        for cand in trim_for_discard(list(best.melds), builder.hand, builder.taken, inp.rules):
            builder.lay(cand)
        builder.lay_offs(jokers=jokers)
        return builder

    def swap_turns(self, inp: TurnInput) -> list[Builder]:
        """One joker swap each (a natural from hand onto a table joker's cell), the freed
        joker re-laid in the same turn; options that cannot re-lay it are dropped."""
        out = []
        for index, meld in enumerate(inp.table):
            for cell in (c for c, v in enumerate(meld.cells) if v == A.JOKER_CELL):
                kind = swap_kind(meld, cell)
                if kind < 0 or not inp.hand[kind] or inp.taken_unlaid[kind] >= inp.hand[kind]:
                    continue
                builder = Builder(inp)
                fit = natural_fit(builder.table[index], kind)
                if fit is None or not fit[2] or not builder.lay_off(kind, builder.table[index]):
                    continue
                builder = self.lay_turn(builder, jokers=True)
                if builder.hand[JOKER] <= inp.hand[JOKER]:
                    out.append(builder)
        return out


def _points(cand: Candidate) -> float:
    """Opening search value: meld points, a joker slightly discouraged."""
    return float(cand.points) - 2.0 * cand.jokers
