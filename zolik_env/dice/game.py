"""Pure batched game functions of Pět kostek: init, legal_action_mask, step, totals.

Turn flow (docs/rules-spec.md §5.1): the first roll of a turn is automatic; the seat may then
reroll any subset of dice while ``rolls_left > 0`` and must end the turn by scoring one
legal box. After the last box of the last seat the game is done; a done row has an
all-False mask (the terminal-mask convention) and ``step`` leaves it unchanged.

This module imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from zolik_env.dice import actions as A
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
from zolik_env.dice.state import State, keys_from_seeds, roll_dice

_IS_LOWER = np.arange(NUM_BOXES) >= NUM_UPPER  # (13,)


@dataclasses.dataclass(frozen=True, slots=True)
class StepOut:
    rewards: np.ndarray  # I32 (B, P) points each seat gained this step (boxes + bonuses)
    terminated: np.ndarray  # bool (B,) the game ended with this step


@dataclasses.dataclass(frozen=True, slots=True)
class TurnContext:
    """What the current dice are worth to the seat to act (derived, never stored)."""

    values: np.ndarray  # I16 (B, C, 13) raw box value of the dice, joker values applied
    legal: np.ndarray  # bool (B, C, 13) boxes the seat may fill now
    yahtzee_bonus: np.ndarray  # bool (B,) filling any box now earns the +100 bonus


def init(rules: DiceRules, seeds: np.ndarray | list[int]) -> State:
    """New games, one per seed, with the first roll of seat 0 made."""
    key = keys_from_seeds(np.asarray(seeds))
    b = key.shape[0]
    counter = np.zeros(b, np.uint32)
    return State(
        dice=np.sort(roll_dice(key, counter), axis=1),
        rolls_left=np.full(b, rules.num_rolls - 1, np.int8),
        boxes=np.full((b, rules.players, rules.num_boxes), -1, np.int16),
        yahtzee_bonuses=np.zeros((b, rules.players), np.int16),
        seat=np.zeros(b, np.int8),
        key=key,
        counter=counter + 1,
        done=np.zeros(b, bool),
    )


def own_boxes(rules: DiceRules, state: State) -> np.ndarray:
    """Boxes of the seat to act, ``(B, C, 13) int16`` (-1 = open)."""
    rows = np.arange(state.batch_size)
    return state.boxes[rows, state.seat].reshape(-1, rules.num_columns, NUM_BOXES)


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


def legal_action_mask(rules: DiceRules, state: State, ctx: TurnContext | None = None) -> np.ndarray:
    """Exactly the legal actions, ``(B, A) bool``; all False for done rows.

    ``ctx`` may pass ``turn_context(rules, state)`` when the caller has it already.
    """
    ctx = turn_context(rules, state) if ctx is None else ctx
    b = state.batch_size
    mask = np.empty((b, A.num_actions(rules)), bool)
    can_reroll = (state.rolls_left > 0) & ~state.done
    mask[:, : A.SCORE_BASE] = can_reroll[:, None]
    mask[:, A.SCORE_BASE :] = ctx.legal.reshape(b, -1)
    return mask


def step(
    rules: DiceRules,
    state: State,
    actions: np.ndarray,
    validate: bool = True,
    ctx: TurnContext | None = None,
) -> tuple[State, StepOut]:
    """Apply one action per game; done rows are left unchanged (their action is ignored).

    Args:
        actions: ``(B,) int`` flat action ids (see ``actions``).
        validate: raise ``ValueError`` naming the rows whose action is illegal.
        ctx: ``turn_context(rules, state)`` if the caller has it already (saves time).
    """
    actions = np.asarray(actions, dtype=np.int64)
    b = state.batch_size
    rows = np.arange(b)
    ctx = turn_context(rules, state) if ctx is None else ctx
    live = ~state.done
    if validate:
        _check_legal(legal_action_mask(rules, state, ctx), actions, live)
    is_reroll = live & (actions < A.SCORE_BASE)
    is_score = live & (actions >= A.SCORE_BASE)
    box = np.where(is_score, actions - A.SCORE_BASE, 0)
    gains = _score_gains(rules, state, ctx, box) * is_score
    boxes = state.boxes.copy()
    seat = state.seat.astype(np.int64)
    values = ctx.values.reshape(b, -1)[rows, box]
    boxes[rows[is_score], seat[is_score], box[is_score]] = values[is_score]
    bonuses = state.yahtzee_bonuses.copy()
    bonuses[rows, seat] += (is_score & ctx.yahtzee_bonus).astype(np.int16)
    rewards = np.zeros((b, rules.players), np.int32)
    rewards[rows, seat] = gains
    done = state.done | (is_score & (boxes >= 0).all(axis=(1, 2)))
    next_seat = np.where(is_score, (seat + 1) % rules.players, seat).astype(np.int8)
    rolled = is_reroll | (is_score & ~done)
    dice = _roll(state, actions, is_reroll, is_score & ~done)
    rolls_left = np.where(is_reroll, state.rolls_left - 1, state.rolls_left)
    rolls_left = np.where(is_score, rules.num_rolls - 1, rolls_left).astype(np.int8)
    new_state = State(
        dice=dice,
        rolls_left=rolls_left,
        boxes=boxes,
        yahtzee_bonuses=bonuses,
        seat=next_seat,
        key=state.key,
        counter=state.counter + rolled.astype(np.uint32),
        done=done,
    )
    return new_state, StepOut(rewards=rewards, terminated=done & ~state.done)


def _check_legal(mask: np.ndarray, actions: np.ndarray, live: np.ndarray) -> None:
    """Raise ``ValueError`` naming the live rows whose action is not in ``mask``."""
    in_range = (actions >= 0) & (actions < mask.shape[1])
    ok = in_range & mask[np.arange(mask.shape[0]), np.clip(actions, 0, mask.shape[1] - 1)]
    bad = np.flatnonzero(live & ~ok)
    if bad.size:
        raise ValueError(f"illegal actions in rows {bad.tolist()}: {actions[bad].tolist()}")


def _roll(
    state: State, actions: np.ndarray, is_reroll: np.ndarray, new_turn: np.ndarray
) -> np.ndarray:
    """Dice ``(B, 5)`` after rerolling the chosen dice, or all five for a new turn (sorted)."""
    fresh = roll_dice(state.key, state.counter)
    reroll_bits = A.REROLL_MASKS[np.clip(actions - A.REROLL_BASE, 0, A.NUM_REROLLS - 1)]
    new_bits = (reroll_bits & is_reroll[:, None]) | new_turn[:, None]
    return np.sort(np.where(new_bits, fresh, state.dice), axis=1)


def _score_gains(rules: DiceRules, state: State, ctx: TurnContext, box: np.ndarray) -> np.ndarray:
    """Points ``(B,) int32`` for filling flat box ``box``: value, upper and Yahtzee bonus."""
    b = state.batch_size
    rows = np.arange(b)
    column, k = np.divmod(box, NUM_BOXES)
    factor = np.asarray(rules.column_factors, np.int32)[column]
    value = ctx.values[rows, column, k].astype(np.int32)
    own = own_boxes(rules, state)[rows, column, :NUM_UPPER]  # (B, 6) of that column
    upper_before = np.where(own >= 0, own, 0).sum(axis=1)
    upper_after = upper_before + np.where(k < NUM_UPPER, value, 0)
    crossed = (upper_before < UPPER_BONUS_THRESHOLD) & (upper_after >= UPPER_BONUS_THRESHOLD)
    upper_bonus = UPPER_BONUS * (factor if rules.multiply_upper_bonus else 1) * crossed
    return value * factor + upper_bonus + YAHTZEE_BONUS * ctx.yahtzee_bonus


def totals(rules: DiceRules, state: State) -> np.ndarray:
    """Total score of every seat so far, ``(B, P) int32`` (boxes x factor + all bonuses)."""
    b = state.batch_size
    boxes = state.boxes.reshape(b, rules.players, rules.num_columns, NUM_BOXES).astype(np.int32)
    filled = np.where(boxes >= 0, boxes, 0)
    upper = filled[..., :NUM_UPPER].sum(axis=-1)  # (B, P, C)
    factors = np.asarray(rules.column_factors, np.int32)
    bonus_factor = factors if rules.multiply_upper_bonus else np.ones_like(factors)
    columns = filled.sum(axis=-1) * factors + UPPER_BONUS * bonus_factor * (
        upper >= UPPER_BONUS_THRESHOLD
    )
    return columns.sum(axis=-1) + YAHTZEE_BONUS * state.yahtzee_bonuses.astype(np.int32)


def replace(state: State, **changes: np.ndarray) -> State:
    """``dataclasses.replace`` for scripted states in tests and tools."""
    return dataclasses.replace(state, **changes)
