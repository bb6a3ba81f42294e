"""Card notation (docs/rules-spec.md §0.2): ranks A 2-10 J Q K (T for 10), suits S H D C
(or ♠ ♥ ♦ ♣), joker JK; every bad token raises ValueError quoting it."""

import numpy as np
import pytest

from zolik_env.rummy import cards, rules

SUIT_LETTERS = "SHDC"
RANK_TEXTS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def test_parse_card__every_natural_in_suit_and_rank_order():
    for suit, letter in enumerate(SUIT_LETTERS):
        for rank, text in enumerate(RANK_TEXTS):
            kind = rules.parse_card(text + letter)
            assert kind == suit * 13 + rank
            assert (cards.suit_of(kind), cards.rank_of(kind)) == (suit, rank)


def test_card_to_str__every_kind_round_trips():
    texts = [rules.card_to_str(k) for k in range(cards.NUM_KINDS)]
    assert len(set(texts)) == 53
    assert texts[0] == "AS" and texts[9] == "10S" and texts[51] == "KC" and texts[52] == "JK"
    assert [rules.parse_card(t) for t in texts] == list(range(cards.NUM_KINDS))


def test_parse_card__ten_written_t_or_10():
    assert rules.parse_card("TH") == rules.parse_card("10H") == cards.kind_of(1, 9)
    assert rules.format_cards(rules.parse_cards("TS TD")) == "10S 10D"


@pytest.mark.parametrize(
    ("symbol_card", "letter_card"),
    [("A♠", "AS"), ("10♥", "10H"), ("T♥", "10H"), ("Q♦", "QD"), ("2♣", "2C"), ("K♣", "KC")],
)
def test_parse_card__suit_symbols(symbol_card, letter_card):
    assert rules.parse_card(symbol_card) == rules.parse_card(letter_card)


def test_parse_card__joker_jk():
    assert rules.parse_card("JK") == cards.JOKER == 52
    assert rules.parse_card("jk") == cards.JOKER
    assert cards.is_joker(rules.parse_card("JK")) and not cards.is_joker(rules.parse_card("JS"))
    assert rules.card_to_str(cards.JOKER) == "JK"


def test_parse_card__lowercase_and_spaces_accepted():
    assert rules.parse_card("qh") == rules.parse_card(" QH ") == cards.kind_of(1, 11)


def test_parse_cards__whitespace_commas_tokens_and_kinds():
    expected = [cards.kind_of(1, 4), cards.JOKER, cards.kind_of(1, 6)]
    assert rules.parse_cards("5H JK 7H") == expected
    assert rules.parse_cards("5H,JK, 7H") == expected
    assert rules.parse_cards("  5H\tJK\n7H ") == expected
    assert rules.parse_cards(["5H", "JK", "7H"]) == expected
    assert rules.parse_cards(expected) == expected
    assert rules.parse_cards(np.array(expected)) == expected
    assert rules.parse_cards("") == []


def test_format_cards__keeps_table_order_and_round_trips():
    text = "JK QD 10H AS 2C JK KS"
    assert rules.format_cards(rules.parse_cards(text)) == text
    assert rules.format_cards(rules.parse_cards("ts A♠ jk")) == "10S AS JK"


@pytest.mark.parametrize(
    "token",
    [
        "1H",
        "11H",
        "0S",
        "10X",
        "H",
        "X",
        "ZZ",
        "JKH",
        "AHH",
        "KK",
        "10",
        "♥A",
        "JOKER",
        "1♠",
        "AJ",
        "S",
        "A",
        "",
        " ",
        "10 H",
    ],
)
def test_parse_card__bad_token_raises_quoting_it(token):
    with pytest.raises(ValueError) as error:
        rules.parse_card(token)
    assert repr(token) in str(error.value)


def test_parse_cards__bad_token_in_a_string_is_quoted():
    with pytest.raises(ValueError, match="'XX'"):
        rules.parse_cards("AH XX 3H")
    with pytest.raises(ValueError, match="'11D'"):
        rules.parse_cards(["AH", "11D"])


@pytest.mark.parametrize("kind", [-1, 53, 100])
def test_parse_cards__bad_kind_raises(kind):
    with pytest.raises(ValueError, match=str(kind)):
        rules.parse_cards([0, kind])
    with pytest.raises(ValueError, match=str(kind)):
        rules.card_to_str(kind)


def test_counts_of__count_vector_round_trips_to_sorted_cards():
    kinds = rules.parse_cards("JK 7H AS 7H JK")
    counts = cards.counts_of(kinds)
    assert counts.shape == (53,) and counts.dtype == np.int16
    assert counts[cards.kind_of(1, 6)] == 2 and counts[cards.JOKER] == 2 and counts.sum() == 5
    assert rules.format_cards(cards.cards_of(counts)) == "AS 7H 7H JK JK"


@pytest.mark.parametrize(("name", "total"), [("cz", 108), ("sk", 108), ("jolly", 110)])
def test_deck_counts__two_decks_plus_preset_jokers(name, total):
    deck = cards.deck_counts(rules.preset(name).num_jokers)
    assert int(deck.sum()) == total
    assert (deck[:52] == 2).all()
