"""Turn flow, masks, bonuses, tables, fixed order and determinism of the core."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.dice.conftest import legal_boxes, make_state, score
from zolik_env.dice import (
    NUM_REROLLS,
    SCORE_BASE,
    DiceRules,
    action_to_string,
    decode_observation,
    game,
    init,
    legal_action_mask,
    num_actions,
    obs_size,
    observe,
    reroll_action,
    score_action,
    step,
    totals,
)
from zolik_env.dice import rules as R

PINNED_FIRST_ROLLS = [[1, 2, 4, 6, 6], [3, 3, 5, 5, 6], [1, 1, 1, 4, 6]]
VARIANTS = [
    DiceRules(),
    DiceRules(joker="forced"),
    DiceRules(joker="free", fixed_order=True),
    DiceRules(num_players=2, table="triple", joker="forced"),
    DiceRules(num_players=3, joker="free", yahtzee_bonus=False),
]


def test_action_layout__pinned():
    assert (NUM_REROLLS, SCORE_BASE) == (31, 31)
    assert num_actions(DiceRules()) == 44 and num_actions(DiceRules(table="triple")) == 70
    assert reroll_action([0]) == 0 and reroll_action([0, 1, 2, 3, 4]) == 30
    assert score_action(R.CHANCE, column=2) == 31 + 26 + 12
    assert action_to_string(DiceRules(), 5) == "reroll 1,2"
    assert action_to_string(DiceRules(table="triple"), 31 + 13) == "score ones x2"
    assert obs_size(DiceRules()) == 30 + 3 + 13 + 13 + 1 + 1 + 1 + 1


def test_legal_action_mask__exact_through_a_turn():
    rules = DiceRules()
    state = init(rules, [7])
    mask = legal_action_mask(rules, state)[0]
    assert mask.all() and state.rolls_left[0] == 2
    for _ in range(2):
        state, out = step(rules, state, [reroll_action([0, 1])])
        assert out.rewards[0, 0] == 0
    mask = legal_action_mask(rules, state)[0]
    assert not mask[:SCORE_BASE].any() and mask[SCORE_BASE:].all()
    with pytest.raises(ValueError, match="rows \\[0\\]"):
        step(rules, state, [reroll_action([0])])


def test_step__reroll_keeps_the_other_dice():
    rules = DiceRules()
    state = make_state(rules, "1 2 3 4 6", rolls_left=2)
    new, _ = step(rules, state, [reroll_action([4])])
    kept = new.dice[0].tolist()
    for face in (1, 2, 3, 4):
        kept.remove(face)  # raises if a kept die changed
    assert new.rolls_left[0] == 1 and new.counter[0] == state.counter[0] + 1


def test_upper_bonus__awarded_once_when_63_is_reached():
    rules = DiceRules()
    upper = {R.ONES: 3, R.TWOS: 6, R.THREES: 9, R.FOURS: 12, R.FIVES: 15}
    state = make_state(rules, "6 6 6 1 2", upper)
    new, reward = score(rules, state, R.SIXES)
    assert reward == 18 + 35 and int(totals(rules, new)[0, 0]) == 63 + 35
    over = make_state(rules, "6 6 6 1 2", upper | {R.SIXES: 24})
    assert score(rules, over, R.CHANCE)[1] == 21


def test_triple_table__column_factors_and_own_upper_bonus():
    rules = DiceRules(table="triple")
    state = make_state(rules, "6 5 4 3 2")
    assert score(rules, state, 26 + R.CHANCE)[1] == 3 * 20
    assert score(rules, state, 13 + R.LARGE_STRAIGHT)[1] == 2 * 40
    upper = {13 + b: (b + 1) * 3 for b in range(5)}  # column 1 at 45, sixes open
    state = make_state(rules, "6 6 6 1 2", upper | {R.SIXES: 30})
    assert score(rules, state, 13 + R.SIXES)[1] == 2 * 18 + 2 * 35
    plain = DiceRules(table="triple", multiply_upper_bonus=False)
    assert score(plain, make_state(plain, "6 6 6 1 2", upper), 13 + R.SIXES)[1] == 36 + 35


def test_fixed_order__one_box_top_to_bottom_column_by_column():
    rules = DiceRules(table="triple", fixed_order=True, joker="forced")
    state = make_state(rules, "5 5 5 5 5")
    assert legal_boxes(rules, state) == [R.ONES]
    state = make_state(rules, "5 5 5 5 5", dict.fromkeys(range(13), 0) | {R.YAHTZEE: 50})
    assert legal_boxes(rules, state) == [13 + R.ONES]
    classic = DiceRules(fixed_order=True)
    state = init(classic, [3])
    for box in range(13):
        assert legal_boxes(classic, state) == [box]
        state, _ = step(classic, state, [SCORE_BASE + box])
    assert state.done[0]


def test_terminal__all_false_mask_and_step_is_a_no_op():
    rules = DiceRules(num_players=2)
    state = make_state(rules, "1 2 3 4 5", dict.fromkeys(range(12), 1),
                       seat_boxes={0: dict.fromkeys(range(13), 1)}, seat=1)  # fmt: skip
    new, out = step(rules, state, [SCORE_BASE + R.CHANCE])
    assert out.terminated[0] and new.done[0]
    assert not legal_action_mask(rules, new).any()
    again, out2 = step(rules, new, [0])
    assert not out2.terminated[0] and (again.boxes == new.boxes).all()
    assert (out2.rewards == 0).all()


def test_seats__rotate_after_each_filled_box():
    rules = DiceRules(num_players=3)
    state = init(rules, [1])
    for box, expected in enumerate((0, 1, 2, 0)):
        assert state.current[0] == expected
        state, _ = step(rules, state, [reroll_action([0])])
        state, out = step(rules, state, [SCORE_BASE + box])
        assert out.rewards[0, expected] == int(state.boxes[0, expected, box])
        assert (np.delete(out.rewards[0], expected) == 0).all()
        assert state.rolls_left[0] == 2
    assert state.current[0] == 1


def play_random(rules, seeds, choose):
    """Play games to the end; ``choose(i, legal_ids) -> action`` for game i."""
    state = init(rules, seeds)
    history = []
    while not state.done.all():
        mask = legal_action_mask(rules, state)
        actions = np.array([choose(i, np.flatnonzero(m)) if m.any() else 0
                            for i, m in enumerate(mask)])  # fmt: skip
        history.append((state.dice.copy(), actions))
        state, _ = step(rules, state, actions)
    return state, history


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_determinism__batch_equals_single_games(rules):
    seeds = [11, 12, 13]

    def choose(i, legal):
        return legal[(len(legal) * 7 + i) % len(legal)]

    batch, _ = play_random(rules, seeds, choose)
    for i, seed in enumerate(seeds):
        single, _ = play_random(rules, [seed], lambda _, legal, i=i: choose(i, legal))
        assert (single.boxes[0] == batch.boxes[i]).all()
        assert (single.yahtzee_bonuses[0] == batch.yahtzee_bonuses[i]).all()
    again, _ = play_random(rules, seeds, choose)
    assert (again.boxes == batch.boxes).all() and (again.dice == batch.dice).all()
    other, _ = play_random(rules, [s + 100 for s in seeds], choose)
    assert not (other.boxes == batch.boxes).all()


def test_dice__fair_over_many_rolls():
    state = init(DiceRules(), np.arange(20000))
    counts = np.bincount(state.dice.ravel(), minlength=7)[1:]
    assert counts.min() > 16000 and counts.max() < 17400  # 100000 dice, ~16667 each


@settings(max_examples=25, deadline=None)
@given(data=st.data(), variant=st.integers(0, len(VARIANTS) - 1), seed=st.integers(0, 2**40))
def test_properties__random_legal_play(data, variant, seed):
    rules = VARIANTS[variant]
    state = init(rules, [seed])
    earned = np.zeros(rules.num_players, np.int64)
    for _ in range(rules.num_rolls * rules.num_boxes * rules.num_players):
        mask = legal_action_mask(rules, state)[0]
        assert mask.any()
        facts = decode_observation(rules, observe(rules, state, int(state.current[0])))
        assert (facts["dice"][0] == state.dice[0]).all()
        assert facts["rolls_left"][0] == state.rolls_left[0]
        filled = game.own_boxes(rules, state)[0].reshape(-1) >= 0
        assert facts["filled_mask"][0] == sum(1 << b for b in np.flatnonzero(filled))
        action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()))
        state, out = step(rules, state, [action])
        earned += out.rewards[0]
        assert (np.diff(state.dice[0]) >= 0).all() and state.dice.min() >= 1
        if state.done[0]:
            break
    assert state.done[0] and (state.boxes >= 0).all()
    assert (earned == totals(rules, state)[0]).all()


def test_init__pinned_first_rolls():
    # Pins the counter-based RNG: a change here changes every recorded game.
    state = init(DiceRules(), [0, 1, 2**40])
    assert state.dice.tolist() == PINNED_FIRST_ROLLS
