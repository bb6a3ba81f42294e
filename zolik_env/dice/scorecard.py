"""What the dice and the scorecard are worth: the turn context and the totals.

``turn_context`` gives, for the seat to act, the value of the current dice in every box,
the boxes it may fill and whether filling one now earns the Yahtzee bonus
(docs/rules-spec.md §5.2-5.5); ``totals`` sums each seat's scorecard. ``game`` (step,
masks) and ``observe`` (the encoder) both read them. This module imports only numpy and
stdlib.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from zolik_env.dice.rules import (
    CODE_IS_YAHTZEE,
    CODE_SCORES,
    CODE_TOP_FACE,
    NUM_BOXES,
    NUM_UPPER,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE,
    YAHTZEE_BONUS,
    YAHTZEE_SCORE,
    DiceRules,
    dice_code,
    joker_scores,
)
from zolik_env.dice.state import State

_IS_LOWER = np.arange(NUM_BOXES) >= NUM_UPPER  # (13,)


@dataclasses.dataclass(frozen=True, slots=True)
class TurnContext:
    """What the current dice are worth to the seat to act (derived, never stored)."""

    values: np.ndarray  # I16 (B, C, 13) raw box value of the dice, joker values applied
    legal: np.ndarray  # bool (B, C, 13) boxes the seat may fill now
    yahtzee_bonus: np.ndarray  # bool (B,) filling any box now earns the +100 bonus


def own_boxes(rules: DiceRules, state: State) -> np.ndarray:
    """Boxes of the seat to act, ``(B, C, 13) int16`` (-1 = open)."""
    rows = np.arange(state.batch_size)
    own: np.ndarray = state.boxes[rows, state.current]
    return own.reshape(-1, rules.num_columns, NUM_BOXES)


def turn_context(rules: DiceRules, state: State) -> TurnContext:
    """Box values, legal boxes and Yahtzee-bonus flag for the current dice
    (docs/rules-spec.md §5.2-5.4)."""
    b = state.batch_size
    rows = np.arange(b)
    code = dice_code(state.dice)
    own = own_boxes(rules, state)
    is_open = own < 0
    is_yahtzee = CODE_IS_YAHTZEE[code]
    face = CODE_TOP_FACE[code]  # (B,) face index of a Yahtzee
    values = CODE_SCORES[code]
    # The joker counts once every Yahtzee box is filled (triple: all three; docs/rules-spec.md
    # §5.5).
    yahtzee_filled = ~is_open[:, :, YAHTZEE].any(axis=1)
    is_joker = is_yahtzee & yahtzee_filled & (rules.joker != "none")
    match_open = is_open[rows, :, face]  # (B, C) the upper box of the rolled face
    if is_joker.any():  # joker values need the matching upper box filled in every column
        values = joker_scores(values, is_joker & ~match_open.any(axis=1))
    values = np.broadcast_to(values[:, None, :], own.shape)
    legal = is_open & ~state.done[:, None, None]
    if rules.joker == "forced" and is_joker.any():
        legal = _forced_joker_legal(legal, is_joker, face, match_open)
    if rules.fixed_order:
        first = np.argmax(is_open.reshape(b, -1), axis=1)  # fixed order overrides the joker
        legal = np.zeros((b, rules.num_boxes), bool)
        legal[rows, first] = ~state.done
        legal = legal.reshape(own.shape)
    holds_50 = own[:, :, YAHTZEE] == YAHTZEE_SCORE
    if rules.table == "triple" and rules.triple_bonus_needs_all_yahtzee:
        bonus = yahtzee_filled & holds_50.any(axis=1)
    else:
        bonus = holds_50.any(axis=1)
    bonus &= is_yahtzee & rules.yahtzee_bonus
    return TurnContext(values=values, legal=legal, yahtzee_bonus=bonus)


def _forced_joker_legal(
    legal: np.ndarray, is_joker: np.ndarray, face: np.ndarray, match_open: np.ndarray
) -> np.ndarray:
    """Forced joker: matching upper box if open, else any open lower box, else upper (0)."""
    b = legal.shape[0]
    any_match = match_open.any(axis=1)
    only_match = is_joker & any_match
    lower_open = legal & _IS_LOWER
    only_lower = is_joker & ~any_match & lower_open.any(axis=(1, 2))
    match_mask = np.zeros_like(legal)
    match_mask[np.arange(b), :, face] = match_open
    legal = np.where(only_match[:, None, None], match_mask & legal, legal)
    return np.where(only_lower[:, None, None], lower_open, legal)


def totals(rules: DiceRules, state: State) -> np.ndarray:
    """Total score of every seat so far, ``(B, P) int32`` (boxes x factor + all bonuses)."""
    b = state.batch_size
    p, c = rules.num_players, rules.num_columns
    boxes = state.boxes.reshape(b, p, c, NUM_BOXES).astype(np.int32)
    filled = np.where(boxes >= 0, boxes, 0)
    upper = filled[..., :NUM_UPPER].sum(axis=-1)  # (B, P, C)
    factors = np.asarray(rules.column_factors, np.int32)
    bonus_factor = factors if rules.multiply_upper_bonus else np.ones_like(factors)
    columns = filled.sum(axis=-1) * factors + UPPER_BONUS * bonus_factor * (
        upper >= UPPER_BONUS_THRESHOLD
    )
    bonuses = YAHTZEE_BONUS * state.yahtzee_bonuses.astype(np.int32)
    total: np.ndarray = columns.sum(axis=-1) + bonuses
    return total
