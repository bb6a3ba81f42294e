"""Rule presets and options (docs/rules-spec.md §2-4): per-preset defaults, overrides, errors
that name the option, the option table and the ``zolik rules`` command."""

import dataclasses

import pytest

from cli import main as cli
from zolik_env.rummy import rules

# (option, cz, sk, jolly), each value read off the tables of docs/rules-spec.md §1-4.
PRESET_DEFAULTS = [
    ("num_jokers", 4, 4, 6),
    ("hand_size", 14, 14, 13),
    ("starter_discards_first", True, True, False),
    ("starting_seat_rotates", True, True, True),
    ("bottom_card", False, True, False),
    ("cut_cards", 3, 3, 3),
    ("bottom_card_from_round", 4, 4, 4),
    ("bottom_card_must_lay", False, False, False),
    ("no_meld_rounds", 3, 3, 0),
    ("discard_pickup", "top_must_use", "top_must_use", "deep"),
    ("pickup_needs_opened", False, False, True),
    ("max_hand_cards", 0, 0, 20),
    ("jokers_fewer_than_naturals", True, True, False),
    ("jokers_adjacent_in_run", False, False, False),
    ("max_jokers_in_set", 1, 1, 1),
    ("ace_low_run_value", 1, 1, 1),
    ("ace_high_value", 10, 10, 10),
    ("ace_set_value", 10, 10, 25),
    ("opening_points", 42, 51, 40),
    ("opening_needs_clean_run", True, True, False),
    ("stock_rebuild", "turn", "turn", "shuffle"),
    ("rebuild_keeps", 1, 1, 3),
    ("max_stock_rebuilds", 3, 3, 3),
    ("max_turns", 1000, 1000, 1000),
    ("scoring", "penalty", "points", "laid"),
    ("hand_ace_value", 10, 20, 25),
    ("hand_joker_value", 50, 50, 50),
    ("never_opened_penalty", 100, 100, 0),
    ("winner_bonus", 0, 10, 30),
    ("closed_from_hand_multiplier", 2, 2, 2),
    ("match_deals", 1, 1, 1),
    ("match_target", 0, 1000, 250),
]


@pytest.mark.parametrize(("option", "cz", "sk", "jolly"), PRESET_DEFAULTS)
def test_preset__defaults_follow_rules_tables(option, cz, sk, jolly):
    for name, expected in (("cz", cz), ("sk", sk), ("jolly", jolly)):
        value = getattr(rules.preset(name), option)
        assert value == expected and type(value) is type(expected), (name, option, value)


def test_preset__defaults_table_names_every_option():
    fields = {f.name for f in dataclasses.fields(rules.RuleSet)} - {"name", "num_players"}
    assert {row[0] for row in PRESET_DEFAULTS} == fields


@pytest.mark.parametrize("name", ["cz", "sk", "jolly"])
def test_preset__name_and_players(name):
    ruleset = rules.preset(name)
    assert ruleset.name == name and ruleset.num_players == 2
    assert rules.preset(name, num_players=4).num_players == 4


def test_preset__default_is_cz():
    assert rules.preset() == rules.preset("cz")
    assert rules.PRESETS == ("cz", "sk", "jolly")


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("cz", {"opening_points": 51}),
        ("cz", {"no_meld_rounds": 0}),
        ("cz", {"match_deals": 5}),
        ("jolly", {"match_target": 100}),
        ("jolly", {"match_target": 500}),
        ("sk", {"num_players": 4, "bottom_card": False}),
        ("jolly", {"max_hand_cards": 0}),
    ],
)
def test_preset__options_override_defaults(name, options):
    ruleset = rules.preset(name, **options)
    for option, value in options.items():
        assert getattr(ruleset, option) == value
    untouched = "hand_size"
    assert getattr(ruleset, untouched) == getattr(rules.preset(name), untouched)


def test_preset__unknown_option_is_named():
    with pytest.raises(ValueError, match="'opening_pionts'"):
        rules.preset("cz", opening_pionts=51)
    with pytest.raises(ValueError, match="'bar', 'foo'"):
        rules.preset("jolly", bar=1, foo=2)


def test_preset__unknown_preset_is_named():
    with pytest.raises(ValueError, match="'hu'"):
        rules.preset("hu")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("opening_points", -1),
        ("opening_points", 201),
        ("num_jokers", 9),
        ("num_players", 1),
        ("num_players", 5),
        ("hand_size", True),
        ("hand_size", "14"),
        ("hand_size", 14.0),
        ("scoring", "lowest"),
        ("discard_pickup", "top"),
        ("opening_needs_clean_run", 1),
        ("opening_needs_clean_run", "yes"),
        ("stock_rebuild", None),
        ("max_jokers_in_set", 2),
        ("rebuild_keeps", 0),
        ("closed_from_hand_multiplier", 5),
    ],
)
def test_preset__bad_value_names_the_option(option, value):
    for name in rules.PRESETS:
        with pytest.raises(ValueError, match=f"{option}={value!r}"):
            rules.preset(name, **{option: value})


def test_ruleset__is_frozen_and_validated_when_built_directly():
    ruleset = rules.preset("cz")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ruleset.opening_points = 51
    with pytest.raises(ValueError, match="num_jokers"):
        rules.RuleSet(num_jokers=-1)


def test_ruleset__lower_is_better_only_for_cz_penalties():
    assert [rules.preset(p).lower_is_better for p in rules.PRESETS] == [True, False, False]


def test_option_table__one_row_per_option_with_preset_defaults():
    table = rules.option_table()
    names = [row[0] for row in table]
    assert names == [f.name for f in dataclasses.fields(rules.RuleSet) if f.name != "name"]
    by_name = {row[0]: row for row in table}
    assert by_name["opening_points"][:5] == ("opening_points", "42", "51", "40", "0..200")
    assert by_name["scoring"][1:5] == ("penalty", "points", "laid", "penalty / points / laid")
    assert by_name["opening_needs_clean_run"][1:5] == ("True", "True", "False", "True / False")
    for option, cz, sk, jolly in PRESET_DEFAULTS:
        assert by_name[option][1:4] == (str(cz), str(sk), str(jolly))
        assert by_name[option][5], f"{option} has no meaning"


def test_rules_cli__prints_the_option_table(capsys):
    assert cli.main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["option", "cz", "sk", "jolly", "allowed"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["opening_points"] == ["opening_points", "42", "51", "40", "0..200"]
    assert len(rows) == len(rules.option_table())


def test_rules_cli__checks_melds_and_the_opening(capsys):
    argv = ["rules", "--preset", "jolly", "--meld", "6D JK 8D JK 10D", "--meld", "AD AH AS"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "6D JK 8D JK 10D: valid run, 40 points, standing for 6D 7D 8D 9D 10D" in out
    assert "AD AH AS: valid set, 75 points" in out
    assert "as an opening (115 points): valid" in out


def test_rules_cli__option_override_changes_the_verdict(capsys):
    melds = ["--meld", "8H 9H 10H", "--meld", "4D 5D 6D"]
    assert cli.main(["rules", *melds]) == 0
    assert "as an opening (42 points): valid" in capsys.readouterr().out
    assert cli.main(["rules", "--option", "opening_points=51", *melds]) == 0
    assert "as an opening (42 points): invalid" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "quoted"),
    [
        (["--meld", "AH XX 3H"], "'XX'"),
        (["--option", "opening_pionts=51"], "'opening_pionts'"),
        (["--option", "scoring=lowest"], "scoring='lowest'"),
    ],
)
def test_rules_cli__errors_quote_the_bad_input(capsys, argv, quoted):
    assert cli.main(["rules", *argv]) == 2
    captured = capsys.readouterr()
    assert not captured.out  # the error goes to stderr, one line
    assert captured.err.startswith("zolik rules: ") and quoted in captured.err
    assert len(captured.err.splitlines()) == 1
