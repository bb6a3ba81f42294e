"""Exact solver values (published optima to 4 decimals), cache and the optimal agent."""

import numpy as np
import pytest

from agents.dice.players import OptimalAgent, RandomAgent
from eval.harness import play_dice
from zolik_env.dice import DiceRules, evaluate, solver


def test_reachable_states__published_count():
    assert len(solver.reachable_states(bonus=True, fixed_order=False)) == 536_448


def test_expected_score__forced_published_value():
    assert round(solver.expected_score("forced", bonus=True), 4) == 254.5877


@pytest.mark.slow
@pytest.mark.parametrize(
    ("joker", "bonus", "value"),
    [("free", True, 254.5896), ("none", True, 253.9702), ("none", False, 245.8708)],
)
def test_expected_score__published_values(joker, bonus, value):
    assert round(solver.expected_score(joker, bonus=bonus), 4) == value


def test_solve__last_turn_closed_forms():
    # Only Chance open: each die is rerolled below 5, then below 4 -> 5 * 14/3 = 70/3.
    # Only Yahtzee open: P(five of a kind within three rolls) = 2783176 / 6**10.
    table = solver.value_table("forced", True, fixed_order=False)  # shared with the test above
    assert table[0, solver.FULL_MASK ^ (1 << 12), 0] == pytest.approx(70 / 3, abs=1e-9)
    assert table[0, solver.FULL_MASK ^ (1 << 11), 0] == pytest.approx(50 * 2783176 / 6**10)


def test_expected_score__fixed_order_same_for_every_joker_rule():
    # In fixed order the Yahtzee box is filled before Chance only, so no joker changes a score.
    values = {
        j: solver.expected_score(j, True, fixed_order=True) for j in ("none", "forced", "free")
    }
    assert len({round(v, 9) for v in values.values()}) == 1
    assert 100 < values["none"] < 200


def test_value_table__cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("ZOLIK_CACHE_DIR", str(tmp_path))
    solver.value_table.cache_clear()
    first = solver.value_table("none", True, fixed_order=True)
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1 and np.array_equal(np.load(files[0]), first, equal_nan=True)
    solver.value_table.cache_clear()
    assert np.array_equal(solver.value_table("none", True, True), first, equal_nan=True)
    solver.value_table.cache_clear()


def test_solve__rejects_unknown_joker():
    with pytest.raises(ValueError):
        solver.expected_score("wild")


def test_optimal_agent__mean_within_interval_of_expectation():
    rules = DiceRules(joker="forced")
    summary = evaluate.summarise(play_dice(rules, OptimalAgent(rules), 1500, seed=1))
    expected = solver.expected_score("forced")
    assert abs(summary["mean"] - expected) < 1.3 * summary["ci95"]  # ~99% two-sided
    assert summary["upper_bonus_rate"] > 0.6


@pytest.mark.slow
def test_optimal_agent__matches_expectation_over_many_games():
    rules = DiceRules(joker="free")
    summary = evaluate.summarise(play_dice(rules, OptimalAgent(rules), 20_000, seed=2))
    assert abs(summary["mean"] - solver.expected_score("free")) < summary["ci95"] * 1.3


def test_optimal_agent__beats_random_on_the_same_dice():
    rules = DiceRules(joker="forced")
    best = play_dice(rules, OptimalAgent(rules), 64, seed=3).scores.mean()
    rand = play_dice(rules, RandomAgent(), 64, seed=3).scores.mean()
    assert best > 200 > 80 > rand


@pytest.mark.parametrize("joker", ["none", "forced", "free"])
@pytest.mark.parametrize("fixed_order", [False, True])
def test_box_values__agree_with_the_game_core(joker, fixed_order):
    """The solver's own scoring (legal boxes and points) equals the core's on random cards."""
    from tests.dice.conftest import legal_boxes, make_state, score
    from zolik_env.dice import combos

    rules = DiceRules(joker=joker, fixed_order=fixed_order)
    rng = np.random.default_rng(7)
    zero_table = np.zeros(2 * solver.NUM_MASKS * solver.NUM_UPPER_STATES)
    for _ in range(60):
        filled = rng.random(13) < rng.random()
        if fixed_order:
            filled = np.arange(13) < rng.integers(0, 13)
        filled[rng.integers(13)] = False  # at least one open box
        if rng.random() < 0.5:
            dice = " ".join([str(rng.integers(1, 7))] * 5)
        else:
            dice = " ".join(str(d) for d in rng.integers(1, 7, 5))
        fifty = bool(filled[11] and rng.random() < 0.5)
        boxes = {int(b): 0 for b in np.flatnonzero(filled)} | ({11: 50} if fifty else {})
        state = make_state(rules, dice, boxes)
        mask = int(sum(1 << int(b) for b in np.flatnonzero(filled)))
        counts = np.bincount([int(x) for x in dice.split()], minlength=7)[1:]
        roll = int(np.flatnonzero((counts == combos.ROLLS).all(axis=1))[0])
        states = np.array([[mask, 0, int(fifty)]])
        values = solver.box_values(zero_table, states, joker, True, fixed_order)[:, roll, 0]
        legal = legal_boxes(rules, state)
        assert np.flatnonzero(np.isfinite(values)).tolist() == legal, (dice, boxes)
        for box in legal:
            assert values[box] == score(rules, state, box)[1], (dice, boxes, box)
