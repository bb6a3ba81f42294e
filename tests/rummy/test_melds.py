"""Melds and openings per preset (docs/rules-spec.md §1.3, §1.5, §2-4): runs,
sets, jokers and the points each meld is worth, with accepting and rejecting cases."""

import pytest

from zolik_env.rummy import rules

PRESETS = ("cz", "sk", "jolly")
ACE_TO_ACE = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"


def check(meld, name, **options):
    return rules.check_meld(meld, rules.preset(name, **options))


def assert_valid(meld, name, kind, points, represents=None):
    result = check(meld, name)
    assert (result.valid, result.kind, result.points, result.reason) == (True, kind, points, ""), (
        name,
        meld,
        result,
    )
    if represents is not None:
        assert rules.format_cards(result.represents) == represents


def assert_invalid(meld, name, reason_part=""):
    result = check(meld, name)
    assert not result.valid, (name, meld, result)
    assert (result.kind, result.points) == (None, 0)
    assert reason_part in result.reason and result.reason


# --- runs (docs/rules-spec.md §1.3: one suit, consecutive, ace low or high, no wrap-around)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "points"),
    [
        ("5H 6H 7H", 18),
        ("2C 3C 4C 5C", 14),
        ("9S 10S JS QS KS", 49),
        ("10D JD QD", 30),
        ("AH 2H 3H", 6),
        ("AS 2S 3S 4S 5S", 15),
        ("QH KH AH", 30),
        ("JC QC KC AC", 40),
        (ACE_TO_ACE, 95),
    ],
)
def test_check_meld__natural_runs_with_meld_values(name, meld, points):
    assert_valid(meld, name, "run", points, represents=meld)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "reason_part"),
    [
        ("KH AH 2H", "wrap"),
        ("QH KH AH 2H", "wrap"),
        ("KS AS 2S 3S", "wrap"),
        ("5H 6S 7H", "one suit"),
        ("5H 6H 8H", "consecutive"),
        ("7H 6H 5H", "consecutive"),
        ("5H 7H 6H", "consecutive"),
        ("AH 3H 2H", "consecutive"),
        ("5H 6H", "at least 3"),
        ("5H", "at least 3"),
        ("", "at least 3"),
        ("5H 6H 7H 7H", "consecutive"),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H", "at most 14 cards"),
    ],
)
def test_check_meld__rejects_broken_runs(name, meld, reason_part):
    assert_invalid(meld, name, reason_part)


@pytest.mark.parametrize("name", PRESETS)
def test_check_meld__ace_to_ace_run_of_fourteen_is_valid(name):
    # Decision (melds.py): A 2 ... K A holds both aces without wrapping round the king.
    assert check(ACE_TO_ACE, name).points == 1 + sum(range(2, 10)) + 4 * 10 + 10
    assert_valid(
        "JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", name, "run", 95, represents=ACE_TO_ACE
    )
    assert_invalid("JK " + ACE_TO_ACE, name)
    assert_invalid(ACE_TO_ACE + " JK", name)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "points", "represents"),
    [
        ("5H JK 7H", 18, "5H 6H 7H"),
        ("JK 6H 7H", 18, "5H 6H 7H"),
        ("5H 6H JK", 18, "5H 6H 7H"),
        ("JK 2H 3H", 6, "AH 2H 3H"),
        ("QH KH JK", 30, "QH KH AH"),
        ("AD JK 3D", 6, "AD 2D 3D"),
        ("QD JK AD", 30, "QD KD AD"),
        ("6D JK 8D JK 10D", 40, "6D 7D 8D 9D 10D"),
    ],
)
def test_check_meld__joker_counts_as_the_card_it_represents(name, meld, points, represents):
    assert_valid(meld, name, "run", points, represents=represents)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("meld", ["JK AH 2H", "KH JK 2H", "KH AH JK", "JK JK JK", "JK JK 5H"])
def test_check_meld__jokers_never_wrap_or_stand_alone(name, meld):
    assert_invalid(meld, name)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("meld", ["6D 7D JK JK 10D", "5H JK JK 8H 9H 10H", "2S 3S JK JK"])
def test_check_meld__two_jokers_never_adjacent_in_a_run(name, meld):
    assert_invalid(meld, name, "side by side")


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(("meld", "run_reason", "set_reason"), [
    ("7S JK JK", "side by side", "at most 1 joker"),
    ("JK JK 7S", "side by side", "at most 1 joker"),
])
def test_check_meld__one_natural_with_jokers_names_both_readings(name, meld, run_reason,
                                                                 set_reason):
    check = rules.check_meld(meld, rules.preset(name))
    assert not check.valid
    assert "neither a run" in check.reason
    assert run_reason in check.reason and set_reason in check.reason


@pytest.mark.parametrize("name", PRESETS)
def test_check_meld__no_natural_card_is_no_meld(name):
    assert rules.check_meld("JK JK JK", rules.preset(name)).reason == (
        "a meld needs at least one natural card")


@pytest.mark.parametrize(
    ("meld", "points"),
    [("JK 7H JK", 21), ("JK 5H JK 7H", 22), ("AS JK 3S JK", 10), ("JK 9C 10C JK", 37)],
)
def test_check_meld__cz_sk_need_fewer_jokers_than_naturals_jolly_does_not(meld, points):
    assert_invalid(meld, "cz", "too many jokers")
    assert_invalid(meld, "sk", "too many jokers")
    assert_valid(meld, "jolly", "run", points)


def test_check_meld__jolly_allows_jokers_at_both_ends_of_one_natural():
    assert_valid("JK 7H JK", "jolly", "run", 21, represents="6H 7H 8H")
    assert_valid("JK QS JK", "jolly", "run", 30, represents="JS QS KS")
    assert_valid("JK KS JK", "jolly", "run", 30, represents="QS KS AS")
    assert_valid("JK 2S JK", "jolly", "run", 6, represents="AS 2S 3S")
    assert_invalid("JK AS JK", "jolly")


def test_check_meld__jolly_examples_of_adjacent_jokers():
    # docs/rules-spec.md §4.4: "6D JK 8D JK 10D is valid, 6D 7D JK JK 10D is not".
    assert check("6D JK 8D JK 10D", "jolly").valid
    assert not check("6D 7D JK JK 10D", "jolly").valid


def test_check_meld__adjacent_jokers_follow_the_option():
    assert check("6D 7D JK JK 10D", "jolly", jokers_adjacent_in_run=True).points == 40
    assert not check("6D 7D JK JK 10D", "cz").valid


# --- sets (docs/rules-spec.md §1.3: 3 or 4 cards of one rank, every suit different, at most 4)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "points"),
    [
        ("7S 7H 7D", 21),
        ("7C 7D 7H 7S", 28),
        ("KS KH KC", 30),
        ("10D 10C 10S 10H", 40),
        ("2S 2H 2D", 6),
        ("7S JK 7H", 21),
        ("JS JH JD JK", 40),
    ],
)
def test_check_meld__sets_of_three_or_four_suits(name, meld, points):
    assert_valid(meld, name, "set", points)


@pytest.mark.parametrize(
    ("name", "three", "four"), [("cz", 30, 40), ("sk", 30, 40), ("jolly", 75, 100)]
)
def test_check_meld__ace_set_worth_10_each_in_cz_sk_25_in_jolly(name, three, four):
    assert_valid("AD AH AS", name, "set", three)
    assert_valid("AD AH AS AC", name, "set", four)
    assert_valid("AD JK AS", name, "set", three)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "reason_part"),
    [
        ("7H 7H 7S", "same suit"),
        ("7H 7S 7H 7D", "same suit"),
        ("7S 7H 7D 7C 7S", "at most 4"),
        ("7S 7H 7D 7C JK", "at most 4"),
        ("7S 7H 8D", ""),
        ("7S 7H", "at least 3"),
        ("7S JK JK", ""),
        ("7S 7H JK JK", ""),
    ],
)
def test_check_meld__rejects_broken_sets(name, meld, reason_part):
    assert_invalid(meld, name, reason_part)


def test_check_meld__jolly_set_holds_at_most_one_joker():
    assert_invalid("7S 7H JK JK", "jolly", "at most 1 joker")
    assert check("7S 7H 7D JK", "jolly").valid


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize(
    ("meld", "missing"),
    [("7S 7H JK", {"7D", "7C"}), ("JK 7C 7H 7D", {"7S"}), ("QD JK QC", {"QS", "QH"})],
)
def test_check_meld__joker_in_a_set_represents_a_missing_suit(name, meld, missing):
    result = check(meld, name)
    assert result.valid and result.kind == "set"
    shown = rules.format_cards(result.represents).split()
    joker_at = meld.split().index("JK")
    assert shown[joker_at] in missing
    assert [c for i, c in enumerate(shown) if i != joker_at] == [
        c for c in meld.split() if c != "JK"
    ]


def test_check_meld__accepts_tokens_and_kinds_and_quotes_bad_tokens():
    cz = rules.preset("cz")
    assert rules.check_meld(["5H", "JK", "7H"], cz).points == 18
    assert rules.check_meld(rules.parse_cards("5H JK 7H"), cz).points == 18
    with pytest.raises(ValueError, match="'8X'"):
        rules.check_meld("5H JK 8X", cz)


# --- openings (docs/rules-spec.md §1.5, §2.4, §3.4, §4.5)


@pytest.mark.parametrize(
    ("name", "melds", "points", "valid"),
    [
        ("cz", ["8H 9H 10H", "2D 3D 4D 5D"], 41, False),
        ("cz", ["8H 9H 10H", "4D 5D 6D"], 42, True),
        ("sk", ["8H 9H 10H", "4D 5D 6D"], 42, False),
        ("sk", ["10H JH QH KH", "AS 2S 3S 4S"], 50, False),
        ("sk", ["8H 9H 10H", "7D 8D 9D"], 51, True),
        ("jolly", ["9H 10H JH QH"], 39, False),
        ("jolly", ["10H JH QH KH"], 40, True),
        ("jolly", ["AD AH AS"], 75, True),
        ("cz", ["AD AH AS"], 30, False),
    ],
)
def test_check_opening__points_threshold_per_preset(name, melds, points, valid):
    result = rules.check_opening(melds, rules.preset(name))
    assert (result.valid, result.points) == (valid, points)
    assert (result.reason == "") == valid
    if not valid:
        assert str(rules.preset(name).opening_points) in result.reason


def test_check_opening__cz_option_51():
    melds = ["8H 9H 10H", "4D 5D 6D"]
    assert rules.check_opening(melds, rules.preset("cz")).valid
    result = rules.check_opening(melds, rules.preset("cz", opening_points=51))
    assert (result.valid, result.points) == (False, 42)
    assert rules.check_opening(
        ["8H 9H 10H", "7D 8D 9D"], rules.preset("cz", opening_points=51)
    ).valid


@pytest.mark.parametrize(
    "melds", [["KS KD KC", "QS QD QC"], ["10H JK QH", "KS KD KC"], ["JK 9H 10H JH QH", "5S 5D 5C"]]
)
def test_check_opening__cz_sk_need_a_joker_free_run_jolly_does_not(melds):
    for name in ("cz", "sk"):
        result = rules.check_opening(melds, rules.preset(name))
        assert not result.valid and "without a joker" in result.reason
        assert result.points >= 51
    assert rules.check_opening(melds, rules.preset("jolly")).valid


def test_check_opening__clean_run_requirement_follows_the_option():
    melds = ["KS KD KC", "QS QD QC"]
    assert rules.check_opening(melds, rules.preset("cz", opening_needs_clean_run=False)).valid
    assert not rules.check_opening(melds, rules.preset("jolly", opening_needs_clean_run=True)).valid
    assert rules.check_opening(["KS KD KC", "JH QH KH"], rules.preset("cz")).valid


@pytest.mark.parametrize("name", PRESETS)
def test_check_opening__an_invalid_meld_spoils_it_but_points_still_count(name):
    result = rules.check_opening(["10H JH QH KH", "9S 10S JS QS", "KH AH 2H"], rules.preset(name))
    assert (result.valid, result.points) == (False, 79)
    assert "'KH AH 2H'" in result.reason
    assert not rules.check_opening([], rules.preset(name)).valid


def test_check_opening__accepts_melds_as_kind_lists():
    melds = [rules.parse_cards("8H 9H 10H"), rules.parse_cards("4D 5D 6D")]
    assert rules.check_opening(melds, rules.preset("cz")) == rules.OpeningCheck(True, 42, "")
    result = rules.check_opening([rules.parse_cards("7H 8H 9H")], rules.preset("cz"))
    assert (result.valid, result.points) == (False, 24)
