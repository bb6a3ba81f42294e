"""``check_meld`` against an independent brute-force reference (docs/style.md §9).

``valid_melds`` *generates* every valid meld of a preset from the facts of docs/rules-spec.md §1-4,
written here again without using ``melds.py``: every run (each suit, start position 1..14,
length 3..14, each joker mask the preset allows) and every set (each rank, each choice of
3-4 suits, one joker standing for a missing suit, in every order). The tests check that
``check_meld`` accepts exactly these, with the same points.
"""

import functools
import itertools
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zolik_env.rummy import rules

JK = 52
POSITIONS = 14  # run positions: 1 = low ace, 2..13 = 2..K, 14 = high ace


@dataclass(frozen=True)
class Facts:
    """What docs/rules-spec.md §2-4 say about melds, per preset."""

    jokers_fewer_than_naturals: bool  # cz, sk: "fewer jokers than natural cards"
    ace_in_set: int  # cz/sk: A 10; jolly: "25 in a set of aces"


FACTS = {"cz": Facts(True, 10), "sk": Facts(True, 10), "jolly": Facts(False, 25)}


def kind(suit, rank):
    return suit * 13 + rank


def position_rank(position):
    return 0 if position in (1, POSITIONS) else position - 1


def run_value(position):
    """Meld value at a run position: low ace 1, high ace 10, 2-10 face, J Q K 10."""
    return {1: 1, POSITIONS: 10}.get(position, min(position, 10))


def set_value(rank, facts):
    return facts.ace_in_set if rank == 0 else min(rank + 1, 10)


def joker_masks(length, facts):
    """Joker positions allowed in a run: never two adjacent (every preset), a natural card
    at least, and in cz/sk fewer jokers than naturals."""
    for mask in itertools.product((False, True), repeat=length):
        jokers = sum(mask)
        if any(a and b for a, b in itertools.pairwise(mask)) or jokers == length:
            continue
        if facts.jokers_fewer_than_naturals and jokers >= length - jokers:
            continue
        yield mask


@functools.cache
def valid_melds(ruleset):
    """Every valid meld of a preset's default rules: {cards in table order: (kind, points,
    represents)}; ``represents`` is None for sets (a joker there is any missing suit)."""
    assert ruleset == rules.preset(ruleset.name, num_players=ruleset.num_players)
    facts = FACTS[ruleset.name]
    melds = {}
    for length in range(3, POSITIONS + 1):
        masks = list(joker_masks(length, facts))
        for start in range(1, POSITIONS - length + 2):
            positions = range(start, start + length)
            points = sum(run_value(p) for p in positions)
            for suit in range(4):
                naturals = tuple(kind(suit, position_rank(p)) for p in positions)
                for mask in masks:
                    meld = tuple(JK if j else c for j, c in zip(mask, naturals, strict=True))
                    melds[meld] = ("run", points, naturals)
    for rank in range(13):
        # (naturals, jokers): 3 or 4 cards, at most one joker, fewer jokers than naturals.
        for num_naturals, num_jokers in ((3, 0), (4, 0), (2, 1), (3, 1)):
            for suits in itertools.combinations(range(4), num_naturals):
                cards = [kind(s, rank) for s in suits] + [JK] * num_jokers
                points = set_value(rank, facts) * len(cards)
                for meld in itertools.permutations(cards):
                    assert meld not in melds
                    melds[meld] = ("set", points, None)
    return melds


@functools.cache
def reference(name):
    return valid_melds(rules.preset(name))


def assert_agrees(meld, ruleset):
    result = rules.check_meld(list(meld), ruleset)
    expected = reference(ruleset.name).get(tuple(meld))
    text = rules.format_cards(meld)
    if expected is None:
        assert not result.valid, f"{ruleset.name}: {text} accepted: {result}"
        assert result.reason
        return
    kind_, points, represents = expected
    assert (result.valid, result.kind, result.points) == (True, kind_, points), (
        f"{ruleset.name}: {text}: {result}, expected {expected}"
    )
    if represents is not None:
        assert result.represents == represents, text
    else:
        rank = next(c % 13 for c in meld if c != JK)
        assert sorted(result.represents) == sorted(
            {kind(c // 13, rank) for c in result.represents}
        ), text
        assert [c for c in meld if c != JK] == [
            r for c, r in zip(meld, result.represents, strict=True) if c != JK
        ]


def test_valid_melds__reference_sizes_and_known_members():
    for name in rules.PRESETS:
        ref = reference(name)
        assert tuple(rules.parse_cards("5H JK 7H")) in ref
        assert tuple(rules.parse_cards("KH AH 2H")) not in ref
        assert tuple(rules.parse_cards("6D JK 8D JK 10D")) in ref
        assert tuple(rules.parse_cards("6D 7D JK JK 10D")) not in ref
        assert (
            ref[tuple(rules.parse_cards("AD AH AS"))][1] == {"cz": 30, "sk": 30, "jolly": 75}[name]
        )
    jolly_only = set(reference("jolly")) - set(reference("cz"))
    assert tuple(rules.parse_cards("JK 7H JK")) in jolly_only
    assert set(reference("cz")) < set(reference("jolly"))
    assert set(reference("cz")) == set(reference("sk"))


@pytest.mark.parametrize("name", rules.PRESETS)
def test_check_meld__accepts_every_reference_meld_with_its_points(name):
    ruleset = rules.preset(name)
    for meld in reference(name):
        assert_agrees(meld, ruleset)


# A small pool, so that random sequences hit valid melds often: low and high hearts,
# aces and twos of every suit, jokers.
POOL = tuple(rules.parse_cards("AH 2H 3H 4H 5H QH KH AS 2S KS AD 3D AC 2C JK"))


@pytest.mark.parametrize("name", rules.PRESETS)
def test_check_meld__short_pool_sequences_accepted_iff_in_reference(name):
    ruleset = rules.preset(name)
    for meld in itertools.product(POOL, repeat=3):
        assert_agrees(meld, ruleset)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(rules.PRESETS),
    meld=st.lists(st.sampled_from((*POOL, JK, JK)), min_size=3, max_size=6),
)
def test_check_meld__random_sequences_accepted_iff_in_reference(name, meld):
    assert_agrees(meld, rules.preset(name))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(rules.PRESETS), data=st.data())
def test_check_meld__mutated_reference_melds_accepted_iff_in_reference(name, data):
    melds = sorted(reference(name))
    meld = list(data.draw(st.sampled_from(melds), label="meld"))
    card = data.draw(st.integers(0, 52), label="card")
    at = data.draw(st.integers(0, len(meld) - 1), label="at")
    how = data.draw(st.sampled_from(["replace", "insert", "drop", "swap", "append"]))
    if how == "replace":
        meld[at] = card
    elif how == "insert":
        meld.insert(at, card)
    elif how == "drop":
        del meld[at]
    elif how == "swap":
        meld[at], meld[-1] = meld[-1], meld[at]
    else:
        meld.append(card)
    assert_agrees(meld, rules.preset(name))


@pytest.mark.parametrize("name", rules.PRESETS)
def test_check_meld__card_strings_agree_with_kinds(name):
    ruleset = rules.preset(name)
    for meld in list(reference(name))[::97]:
        assert rules.check_meld(rules.format_cards(meld), ruleset) == rules.check_meld(
            list(meld), ruleset
        )
