"""What the compiled planner reads of a rule set, as arrays: built once per rule set.

The planner's kernels (``sim_table``, ``turn_kernel``, ``choice_kernel``) take one
``PlanTables`` (a named tuple of arrays, which numba passes whole) and one weights array
(``weight_array``). The candidate melds are the rows of the rule set's
``agents.search.meld_table.MeldTable``, addressed by row number; ``CAND`` packs what the
turn simulation needs of each row (its cards in table order, first position, points,
penalty, and the smaller melds left when an end card stays in hand).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from agents import obs_view as ov
from agents.features.rules_of_thumb import danger_weights, relation_tables
from agents.planner.planner_weights import PlannerWeights
from agents.search.hand_search import shrink
from agents.search.meld_table import meld_table
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS
from zolik_env.rummy.jit import by_identity, params
from zolik_env.rummy.melds import hand_card_value, position_value, set_card_value
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.values import cell_value_table

# columns of ``PlanTables.cand`` (int64 (T, CAND_WIDTH)), one row per meld-table row
C_LEN, C_LOW, C_RUN, C_PENALTY, C_POINTS, C_JOKERS = range(6)
C_CARDS = 6  # 14 cards in table order (JOKER for the joker), -1 after the last
C_SHRINK = C_CARDS + A.MELD_CELLS  # up to 4 (smaller row, card kept) pairs, -1 padded
MAX_SHRINK = 4
CAND_WIDTH = C_SHRINK + 2 * MAX_SHRINK

# entries of the weights array (``weight_array``), in ``PlannerWeights`` field order
(W_KEEP, W_HELD, W_DANGER, W_PENALTY, W_PENALTY_OPENED, W_PENALTY_DANGER, W_NEAR_OUT,
 W_JOKER_KEEP, W_JOKER_KEEP_DANGER, W_OUT_BONUS) = range(10)

# entries of ``PlanTables.flags``
F_LAID_SCORING, F_DEEP, F_PLAYERS = range(3)

OBS_FIELDS = ("hand", "meld_kind", "meld_key", "meld_cells", "meld_new", "discard_newest",
              "bottom_card", "hand_sizes", "opened", "known_taken", "unseen", "phase",
              "melding_allowed", "turn_flags", "must_use", "taken_unlaid")


class PlanTables(NamedTuple):
    """A rule set's arrays for the planner's kernels (see the module docstring)."""

    rules: np.ndarray  # int64: the core's ``params``
    cell_value: np.ndarray  # int16 (3, 13, C): ``values.cell_value_table``
    hand_value: np.ndarray  # float64 (53,): a card's penalty in hand
    position_value: np.ndarray  # int64 (15,): meld value of run position 1..14
    set_value: np.ndarray  # int64 (13,): meld value of a set's card by rank
    cand: np.ndarray  # int64 (T, CAND_WIDTH): see the C_* columns
    open_value: np.ndarray  # float64 (T,): the opening search's meld value
    turn_value: np.ndarray  # float64 (T,): the turn search's meld value
    points: np.ndarray  # float64 (T,): meld points (the held-back melds' search)
    group: np.ndarray  # the meld table's search arrays (``meld_table.search_args``)
    naturals: np.ndarray
    sizes: np.ndarray
    absent: np.ndarray
    jokers: np.ndarray
    clean: np.ndarray
    pattern: np.ndarray  # int32 (53, 53, 53): the pattern id of three cards, or -1
    patterns: np.ndarray  # int64 (490, 13): the cards of each pattern id, -1 padded
    sets: np.ndarray  # the rules of thumb's relation tables
    near: np.ndarray
    far: np.ndarray
    ends: np.ndarray
    middle: np.ndarray
    related: np.ndarray
    danger_weights: np.ndarray  # float64 (P - 1,)
    flags: np.ndarray  # int64: F_LAID_SCORING, F_DEEP, F_PLAYERS
    obs: np.ndarray  # int64 (len(OBS_FIELDS),): where each field starts in the observation


@by_identity
def plan_tables(rules: RuleSet) -> PlanTables:
    """The ``PlanTables`` of ``rules`` (cached by the rule set's identity)."""
    table = meld_table(rules)
    laid = rules.scoring == "laid"
    rel = relation_tables()
    starts = {name: start for name, start, _, _ in ov.slices(rules)}
    return PlanTables(
        params(rules), np.ascontiguousarray(cell_value_table(rules)),
        np.array([hand_card_value(k, rules) for k in range(NUM_KINDS)], np.float64),
        np.array([0] + [position_value(p, rules) for p in range(1, 15)], np.int64),
        np.array([set_card_value(rank, rules) for rank in range(NUM_RANKS)], np.int64),
        _cand_rows(rules),
        np.array([c.points - 2.0 * c.jokers for c in table.cands], np.float64),
        np.array([c.penalty + (c.points if laid else 0) for c in table.cands], np.float64),
        table.points, table.group, table.naturals, table.sizes, table.absent, table.jokers,
        table.clean, _pattern_ids(), _pattern_cards(), rel["sets"], rel["near"], rel["far"],
        rel["ends"], rel["middle"], rel["related"], np.array(danger_weights(rules), np.float64),
        np.array([laid, rules.discard_pickup == "deep", rules.num_players], np.int64),
        np.array([starts[name] for name in OBS_FIELDS], np.int64))


def _cand_rows(rules: RuleSet) -> np.ndarray:
    table = meld_table(rules)
    row_of = {cand: i for i, cand in enumerate(table.cands)}
    out = np.full((len(table.cands), CAND_WIDTH), -1, np.int64)
    for i, cand in enumerate(table.cands):
        out[i, :C_CARDS] = (len(cand.cards), cand.low, cand.is_run, cand.penalty,
                            cand.points, cand.jokers)
        out[i, C_CARDS:C_CARDS + len(cand.cards)] = cand.cards
        for j, (small, kept) in enumerate(shrink(cand, rules)):
            out[i, C_SHRINK + 2 * j:C_SHRINK + 2 * j + 2] = (row_of[small], kept)
    return out


def _pattern_ids() -> np.ndarray:
    out = np.full((NUM_KINDS, NUM_KINDS, NUM_KINDS), -1, np.int32)
    for i, cards in enumerate(A.MELD_PATTERN_CARDS):
        if len(cards) == 3:
            out[cards] = i
    return out


def _pattern_cards() -> np.ndarray:
    cards = A.MELD_PATTERN_CARDS
    out = np.full((len(cards), max(len(c) for c in cards)), -1, np.int64)
    for i, pattern in enumerate(cards):
        out[i, :len(pattern)] = pattern
    return out


def weight_array(weights: PlannerWeights) -> np.ndarray:
    """float64 (10,): ``weights`` in field order (the ``W_*`` indices)."""
    return np.array([weights.keep, weights.held, weights.danger, weights.penalty,
                     weights.penalty_opened, weights.penalty_danger, weights.near_out,
                     weights.joker_keep, weights.joker_keep_danger, weights.out_bonus],
                    np.float64)


__all__ = ["JOKER", "PlanTables", "plan_tables", "weight_array"]
