"""Deal scores and match bookkeeping per preset (docs/rules-spec.md §2-4 "deal score", "closing from
hand", "match"), including the two worked Jolly examples of §4."""

import pytest

from zolik_env.rummy import rules

# 2 + 10 + J Q K 10 each + ace + joker
HAND = "2H 10S JD QC KH AS JK"


def score(name, hands, opened, winner, closed_from_hand=False, laid=None, **options):
    ruleset = rules.preset(name, num_players=len(hands), **options)
    return rules.score_deal(
        ruleset,
        hands=hands,
        opened=opened,
        winner=winner,
        closed_from_hand=closed_from_hand,
        laid=laid,
    )


@pytest.mark.parametrize(("name", "value"), [("cz", 102), ("sk", 112), ("jolly", 117)])
def test_hand_penalty__face_values_ace_and_joker_per_preset(name, value):
    assert rules.hand_penalty(HAND, rules.preset(name)) == value


@pytest.mark.parametrize(
    ("card", "cz", "sk", "jolly"),
    [
        ("2S", 2, 2, 2),
        ("9D", 9, 9, 9),
        ("10C", 10, 10, 10),
        ("JH", 10, 10, 10),
        ("QS", 10, 10, 10),
        ("KD", 10, 10, 10),
        ("AH", 10, 20, 25),
        ("JK", 50, 50, 50),
    ],
)
def test_hand_card_value__per_preset(card, cz, sk, jolly):
    kind = rules.parse_card(card)
    assert [rules.hand_card_value(kind, rules.preset(p)) for p in rules.PRESETS] == [cz, sk, jolly]


# --- cz: penalties, lower is better


def test_score_deal__cz_winner_zero_others_pay_their_hand():
    assert score("cz", ["", HAND, "5C 5D"], [True, True, True], winner=0) == [0, 102, 10]


def test_score_deal__cz_never_opened_pays_flat_100():
    assert score("cz", ["", HAND, "5C"], [True, False, False], winner=0) == [0, 100, 100]


def test_score_deal__cz_closing_from_hand_doubles_every_penalty():
    result = score(
        "cz", ["", HAND, "5C", "KS"], [True, True, False, True], winner=0, closed_from_hand=True
    )
    assert result == [0, 204, 200, 20]


# --- sk: negative points, winner bonus


def test_score_deal__sk_hands_negative_ace_20_winner_plus_10():
    assert score("sk", [HAND, "", "AD"], [True, True, True], winner=1) == [-112, 10, -20]


def test_score_deal__sk_never_opened_minus_100():
    assert score("sk", ["JK JK", ""], [False, True], winner=1) == [-100, 10]


def test_score_deal__sk_closing_from_hand_doubles_penalties_and_bonus():
    result = score(
        "sk", ["JK", "", "3S", "KS"], [True, True, False, True], winner=1, closed_from_hand=True
    )
    assert result == [-100, 20, -200, -20]


# --- jolly: laid minus held, +30 for going out


def test_score_deal__jolly_worked_examples_from_rules():
    # docs/rules-spec.md §4.10: A holds 3 4 5 6 Q K (-38), laid 8D 9D 10D and JH QH KH (+57): +19.
    # B holds JK 5 5 7 8 10 J J Q (-115), laid AD AH AS (+75): -40.
    hands = ["3C 4S 5H 6D QS KC", "JK 5C 5S 7H 8C 10S JC JD QH", ""]
    laid = [["8D 9D 10D", "JH QH KH"], ["AD AH AS"], ["2C 3C 4C 5C"]]
    assert score("jolly", hands, [True, True, True], winner=2, laid=laid) == [19, -40, 44]
    assert score("jolly", hands, [True, True, True], winner=2, laid=[57, 75, 14]) == [19, -40, 44]


def test_score_deal__jolly_ace_25_in_hand_and_never_opened_counts_the_hand():
    assert score("jolly", ["AS KD", ""], [False, True], winner=1, laid=[0, 40]) == [-35, 70]


def test_score_deal__jolly_kez_jolly_doubles_hands_and_closer_points_and_bonus():
    hands = ["3C 4S 5H 6D QS KC", "JK 5C 5S 7H 8C 10S JC JD QH", ""]
    result = score(
        "jolly", hands, [True, True, True], winner=2, closed_from_hand=True, laid=[57, 75, 14]
    )
    assert result == [57 - 2 * 38, 75 - 2 * 115, 2 * (14 + 30)]
    winner_only = score(
        "jolly", ["", "KD"], [True, False], winner=0, closed_from_hand=True, laid=[0, 0]
    )
    assert winner_only == [60, -20]


def test_score_deal__jolly_laid_melds_are_checked():
    with pytest.raises(ValueError, match="KH AH 2H"):
        score("jolly", ["", "KD"], [True, True], winner=0, laid=[["KH AH 2H"], []])


def test_score_deal__jolly_without_laid_counts_only_hands_and_bonus():
    assert score("jolly", ["", "KD"], [True, True], winner=0) == [30, -10]


# --- deals cut off without a winner: no bonus, no doubling


@pytest.mark.parametrize(
    ("name", "expected"),
    [("cz", [102, 100, 10]), ("sk", [-112, -100, -10]), ("jolly", [20 - 117, -10, 5 - 10])],
)
def test_score_deal__no_winner_means_no_bonus_and_no_doubling(name, expected):
    hands, opened, laid = [HAND, "KS", "QD"], [True, False, True], [20, 0, 5]
    for closed in (False, True):
        assert (
            score(
                name,
                hands,
                opened,
                winner=None,
                closed_from_hand=closed,
                laid=laid if name == "jolly" else None,
            )
            == expected
        )


@pytest.mark.parametrize("name", rules.PRESETS)
def test_score_deal__rejects_inconsistent_seats(name):
    with pytest.raises(ValueError, match="winner"):
        score(name, ["5H", "KS"], [True, True], winner=0)
    with pytest.raises(ValueError, match="winner=2"):
        score(name, ["", "KS"], [True, True], winner=2)
    with pytest.raises(ValueError, match="expected 3"):
        rules.score_deal(
            rules.preset(name, num_players=3), hands=["", "KS"], opened=[True, True], winner=0
        )
    with pytest.raises(ValueError, match="laid"):
        score(name, ["", "KS"], [True, True], winner=0, laid=[1, 2, 3])


@pytest.mark.parametrize("name", rules.PRESETS)
def test_score_deal__multiplier_follows_the_option(name):
    base = score(name, ["", "KS"], [True, True], winner=0, closed_from_hand=True)
    tripled = score(
        name,
        ["", "KS"],
        [True, True],
        winner=0,
        closed_from_hand=True,
        closed_from_hand_multiplier=3,
    )
    assert [3 * s for s in base] == [2 * s for s in tripled] and base != [0, 0]


# --- match (docs/rules-spec.md §2.8, §3.6, §4.9)


def test_match_totals__sum_each_seat_over_deals():
    assert rules.match_totals([[0, 30], [12, 0], [5, 5]]) == [17, 35]
    assert rules.match_totals([[10, -40]]) == [10, -40]
    assert rules.match_totals([]) == []


def test_match__cz_fixed_deals_lower_total_wins():
    cz = rules.preset("cz")
    assert not rules.is_match_over(cz, [0, 0], deals_played=0)
    assert rules.is_match_over(cz, [0, 0], deals_played=1)
    three = rules.preset("cz", match_deals=3)
    assert not rules.is_match_over(three, [500, 0], deals_played=2)
    assert rules.is_match_over(three, [500, 0], deals_played=3)
    assert rules.match_winners(cz, [120, 35, 80]) == [1]
    assert rules.match_winners(cz, [35, 120, 35]) == [0, 2]


def test_match__sk_ends_when_a_total_reaches_minus_1000_highest_wins():
    sk = rules.preset("sk")
    assert not rules.is_match_over(sk, [-999, 40], deals_played=30)
    assert rules.is_match_over(sk, [-1000, 40], deals_played=3)
    assert rules.is_match_over(sk, [-20, -1130, 40], deals_played=3)
    assert rules.match_winners(sk, [-1000, 40, -300]) == [1]
    assert rules.match_winners(sk, [-1000, -300, -300]) == [1, 2]


@pytest.mark.parametrize("target", [100, 250, 500])
def test_match__jolly_ends_at_the_target_highest_wins(target):
    jolly = rules.preset("jolly", match_target=target)
    assert not rules.is_match_over(jolly, [target - 1, -50], deals_played=40)
    assert rules.is_match_over(jolly, [-50, target], deals_played=1)
    assert rules.match_winners(jolly, [target + 5, target, -50]) == [0]


def test_match__jolly_default_target_is_250():
    jolly = rules.preset("jolly")
    assert not rules.is_match_over(jolly, [249, 0], deals_played=9)
    assert rules.is_match_over(jolly, [250, 0], deals_played=9)
