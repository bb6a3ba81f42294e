"""Pure batched game functions of Pět kostek: init, legal_action_mask, step, observe.

The same four functions, under the same names, make the rummy core, and ``step`` returns
the shared ``zolik_env.core.StepOut`` (docs/core.md).

Turn flow (docs/rules-spec.md §5.1): the first roll of a turn is automatic; the seat may then
reroll any subset of dice while ``rolls_left > 0`` and must end the turn by scoring one
legal box. After the last box of the last seat the game is done; a done row has an
all-False mask (the terminal-mask convention) and ``step`` leaves it unchanged.

This module imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from zolik_env.core import StepOut
from zolik_env.dice import actions as A
from zolik_env.dice.observe import observe
from zolik_env.dice.rules import (
    NUM_BOXES,
    NUM_UPPER,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE_BONUS,
    DiceRules,
)
from zolik_env.dice.scorecard import TurnContext, own_boxes, totals, turn_context
from zolik_env.dice.state import State, keys_from_seeds, roll_dice

__all__ = [
    "StepOut",
    "TurnContext",
    "init",
    "legal_action_mask",
    "observe",
    "own_boxes",
    "step",
    "totals",
    "turn_context",
]


def init(rules: DiceRules, seeds: np.ndarray | list[int]) -> State:
    """New games, one per seed, with the first roll of seat 0 made."""
    key = keys_from_seeds(np.asarray(seeds))
    b = key.shape[0]
    counter = np.zeros(b, np.uint32)
    return State(
        dice=np.sort(roll_dice(key, counter), axis=1),
        rolls_left=np.full(b, rules.num_rolls - 1, np.int8),
        boxes=np.full((b, rules.num_players, rules.num_boxes), -1, np.int16),
        yahtzee_bonuses=np.zeros((b, rules.num_players), np.int16),
        current=np.zeros(b, np.int8),
        key=key,
        counter=counter + 1,
        done=np.zeros(b, bool),
    )


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
    seat = state.current.astype(np.int64)
    values = ctx.values.reshape(b, -1)[rows, box]
    boxes[rows[is_score], seat[is_score], box[is_score]] = values[is_score]
    bonuses = state.yahtzee_bonuses.copy()
    bonuses[rows, seat] += (is_score & ctx.yahtzee_bonus).astype(np.int16)
    rewards = np.zeros((b, rules.num_players), np.int32)
    rewards[rows, seat] = gains
    done = state.done | (is_score & (boxes >= 0).all(axis=(1, 2)))
    next_seat = np.where(is_score, (seat + 1) % rules.num_players, seat).astype(np.int8)
    rolled = is_reroll | (is_score & ~done)
    dice = _roll(state, actions, is_reroll, is_score & ~done)
    rolls_left = np.where(is_reroll, state.rolls_left - 1, state.rolls_left)
    rolls_left = np.where(is_score, rules.num_rolls - 1, rolls_left).astype(np.int8)
    new_state = State(
        dice=dice,
        rolls_left=rolls_left,
        boxes=boxes,
        yahtzee_bonuses=bonuses,
        current=next_seat,
        key=state.key,
        counter=state.counter + rolled.astype(np.uint32),
        done=done,
    )
    return new_state, StepOut(
        rewards=rewards, terminated=done & ~state.done, truncated=np.zeros(b, bool)
    )


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
    gains: np.ndarray = value * factor + upper_bonus + YAHTZEE_BONUS * ctx.yahtzee_bonus
    return gains


def replace(state: State, **changes: np.ndarray) -> State:
    """``dataclasses.replace`` for scripted states in tests and tools."""
    return dataclasses.replace(state, **changes)
