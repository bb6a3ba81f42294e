import numpy as np
import pytest

from zolik_env.dice import rules as R
from zolik_env.dice.rules import DiceRules, base_scores, counts_of, dice_code, joker_scores


def scores_of(dice: str) -> dict[str, int]:
    d = np.array([[int(x) for x in dice.split()]], np.int8)
    return dict(zip(R.BOX_NAMES, base_scores(counts_of(d))[0].tolist(), strict=True))


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        (
            "1 1 1 2 2",
            {
                "ones": 3,
                "twos": 4,
                "threes": 0,
                "three_kind": 7,
                "four_kind": 0,
                "full_house": 25,
                "small_straight": 0,
                "large_straight": 0,
                "yahtzee": 0,
                "chance": 7,
            },
        ),
        (
            "2 3 4 5 5",
            {
                "twos": 2,
                "fives": 10,
                "three_kind": 0,
                "full_house": 0,
                "small_straight": 30,
                "large_straight": 0,
                "chance": 19,
            },
        ),
        ("1 2 3 4 5", {"small_straight": 30, "large_straight": 40, "chance": 15}),
        ("2 3 4 5 6", {"small_straight": 30, "large_straight": 40, "sixes": 6}),
        ("3 4 5 6 6", {"small_straight": 30, "large_straight": 0, "sixes": 12}),
        ("1 3 4 5 6", {"small_straight": 30, "large_straight": 0}),
        ("1 2 3 5 6", {"small_straight": 0, "large_straight": 0}),
        ("4 4 4 4 2", {"fours": 16, "twos": 2, "three_kind": 18, "four_kind": 18, "full_house": 0}),
        (
            "6 6 6 6 6",
            {
                "sixes": 30,
                "three_kind": 30,
                "four_kind": 30,
                "full_house": 0,
                "yahtzee": 50,
                "small_straight": 0,
                "large_straight": 0,
                "chance": 30,
            },
        ),
        (
            "5 5 3 3 1",
            {"fives": 10, "threes": 6, "ones": 1, "three_kind": 0, "full_house": 0, "chance": 17},
        ),
    ],
)
def test_base_scores__every_box(dice, expected):
    got = scores_of(dice)
    for box, value in expected.items():
        assert got[box] == value, (dice, box)


def test_base_scores__upper_boxes_sum_the_face():
    got = scores_of("3 3 5 6 3")
    assert [got[n] for n in R.BOX_NAMES[:6]] == [0, 0, 9, 0, 5, 6]


def test_joker_scores__raise_only_full_house_and_straights():
    base = base_scores(counts_of(np.array([[2, 2, 2, 2, 2]] * 2, np.int8)))
    out = joker_scores(base, np.array([True, False]))
    assert out[0, R.FULL_HOUSE] == 25 and out[0, R.SMALL_STRAIGHT] == 30
    assert out[0, R.LARGE_STRAIGHT] == 40 and out[0, R.CHANCE] == 10
    assert (out[1] == base[1]).all()


def test_lookup_tables__agree_with_direct_scoring():
    rng = np.random.default_rng(0)
    dice = rng.integers(1, 7, (500, 5)).astype(np.int8)
    assert (R.CODE_SCORES[dice_code(dice)] == base_scores(counts_of(dice))).all()


@pytest.mark.parametrize(
    "kwargs", [{"num_players": 0}, {"table": "quad"}, {"joker": "wild"}, {"num_rolls": 0}]
)
def test_dice_rules__rejects_bad_options(kwargs):
    with pytest.raises(ValueError):
        DiceRules(**kwargs)


def test_dice_rules__table_sizes():
    assert DiceRules().num_boxes == 13 and DiceRules().column_factors == (1,)
    assert DiceRules(table="triple").num_boxes == 39
    assert DiceRules(table="triple").column_factors == (1, 2, 3)
