"""The batched core's deal, first turn, no-meld rounds and stock exhaustion (docs/rules-spec.md
§1.2, §1.10-1.11, §2.1-2.2, §2.6, §3.1-3.2, §4.1, §4.7)."""

import numpy as np
import pytest

from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import JOKER, cards_of, counts_of, deck_counts
from zolik_env.rummy.scenario import (
    assert_illegal,
    assert_legal,
    discard_str,
    expected_scores,
    hand_str,
    legal_moves,
    make_state,
    play,
    step,
    stock_str,
)
from zolik_env.rummy.shuffle import deal_keys, shuffle_order

SEEDS = np.arange(40)


def _pack_order(r, seeds):
    """The shuffled pack of each deal, bottom first (index 0 is the bottom of the stock)."""
    size = int(deck_counts(r.num_jokers).sum())
    pack = np.array(cards_of(deck_counts(r.num_jokers)))
    return pack[shuffle_order(deal_keys(seeds), 0, size)]


@pytest.mark.parametrize("name", rules.PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("deal_index", [0, 1, 5])
def test_init__hand_sizes_and_starting_seat(name, players, deal_index):
    r = rules.preset(name, num_players=players)
    state = game.init(r, SEEDS, deal_index)
    starter = deal_index % players
    expected = np.full((len(SEEDS), players), {"cz": 14, "sk": 14, "jolly": 13}[name])
    expected[:, starter] += {"cz": 1, "sk": 1, "jolly": 0}[name]
    if name == "sk":  # the cutter's jokers come on top of the dealt hand
        cutter = (starter - 2) % players
        expected[:, cutter] += (_pack_order(r, SEEDS)[:, :3] == JOKER).sum(1)
    assert (state.hands.sum(-1) == expected).all()
    assert (state.starter == starter).all() and (state.current == starter).all()
    assert not state.opened.any() and (state.num_melds == 0).all()


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("deal_index", [0, 1, 2, 3])
def test_init__sk_cutter_takes_bottom_jokers_and_first_natural_is_the_bottom_card(
        players, deal_index):
    r = rules.preset("sk", num_players=players)
    seeds = np.arange(300)
    state = game.init(r, seeds, deal_index)
    size = int(deck_counts(r.num_jokers).sum())
    pack = _pack_order(r, seeds)
    starter = deal_index % players
    dealer = (starter - 1) % players
    cutter = (dealer - 1) % players
    dealt = players * r.hand_size + 1
    cut_with_jokers = 0
    for b in range(len(seeds)):
        cut = list(pack[b][:3])  # index 0 is the bottom of the stock
        naturals = [c for c in cut if c != JOKER]
        assert state.bottom[b] == (naturals[0] if naturals else -1)
        left = naturals[1:]
        assert list(state.stock[b, : len(left)]) == left
        assert state.stock_len[b] == size - 3 + len(left) - dealt
        hands = state.hands[b].sum(0)
        assert (hands == counts_of(pack[b][-dealt:]) + counts_of([JOKER] * cut.count(JOKER))).all()
        if JOKER in cut:
            cut_with_jokers += 1
            assert state.hands[b, cutter, JOKER] >= cut.count(JOKER)
            base = r.hand_size + (cutter == starter)
            assert state.hands[b, cutter].sum() == base + cut.count(JOKER)
    assert cut_with_jokers > 0  # the seeds exercise the rule


def test_init__cz_and_jolly_have_no_bottom_card():
    for name in ("cz", "jolly"):
        state = game.init(rules.preset(name), SEEDS)
        assert (state.bottom == -1).all()
        assert_illegal(rules.preset(name), state.take([0]), "take bottom")


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_first_turn__starter_only_discards(name):
    r = rules.preset(name, num_players=3)
    state = game.init(r, SEEDS, 1).take([0])
    hand = state.hands[0, 1]
    mask = game.legal_action_mask(r, state)[0]
    expected = np.zeros(A.NUM_ACTIONS, bool)
    expected[A.DISCARD_BASE + np.flatnonzero(hand)] = True
    assert (mask == expected).all()
    # even a valid opening in hand may not be laid in the discard-only first turn
    hands = ["2C 3C", "JH QH KH 3S 4S 5S 9D", "2D 3D"]
    first = make_state(r, hands, current=1, starter=1, turn=0, phase="play")
    assert_illegal(r, first, "draw stock", "meld JH QH KH", "meld 3S 4S 5S")
    after = play(r, first, "discard 9D")
    assert after.current[0] == 2 and discard_str(after) == "9D"
    assert_legal(r, after, "draw stock")


def test_first_turn__jolly_starter_draws_and_may_meld():
    r = rules.preset("jolly", num_players=2)
    state = game.init(r, SEEDS).take([0])
    assert legal_moves(r, state) == ["draw stock"]
    first = make_state(r, ["JH QH KH 3S 4S 5S", "2D 3D"], turn=0, stock="9D")
    first = play(r, first, "draw stock")
    assert_legal(r, first, "meld JH QH KH", "discard 9D")


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_no_meld_rounds__rounds_1_to_3_are_draw_and_discard(name):
    r = rules.preset(name, num_players=2)
    hands = ["JH QH KH 3S 4S 5S 9D", "2D 3D"]
    for turn in (1, 2, 3, 4, 5):  # rounds 1-3 (turn 0 is the starter's discard)
        state = make_state(r, hands, current=turn % 2, turn=turn, discard="6S",
                           stock="2H", phase="draw")
        if turn % 2:
            continue
        assert_illegal(r, state, "take discard 1")  # it could not be laid
        state = play(r, state, "draw stock")
        assert_illegal(r, state, "meld JH QH KH", "meld 3S 4S 5S")
        assert_legal(r, state, "discard 9D")
    late = make_state(r, hands, turn=6, discard="6S", stock="2H")
    assert_legal(r, late, "take discard 1")
    assert_legal(r, play(r, late, "draw stock"), "meld JH QH KH")


def test_no_meld_rounds__cz_option_melds_from_round_1():
    r = rules.preset("cz", num_players=2, no_meld_rounds=0)
    hands = ["2D 3D", "JH QH KH 3S 4S 5S 9D"]
    state = make_state(r, hands, current=1, turn=1, discard="6S", stock="2H")
    assert_legal(r, state, "take discard 1")
    assert_legal(r, play(r, state, "draw stock"), "meld JH QH KH")
    first = make_state(r, hands, current=0, turn=0, phase="play")
    assert legal_moves(r, first) == ["discard 2D", "discard 3D"]  # still discard-only


# --- stock exhausted


@pytest.mark.parametrize("name", ["cz", "sk"])
def test_stock_exhausted__cz_sk_turn_the_pile_over_keeping_the_top(name):
    r = rules.preset(name, num_players=2)
    state = make_state(r, ["2S 9D", "5C 6C"], stock="", discard="3H 4H 5H KD", phase="play",
                       opened=[True, False])
    state = play(r, state, "discard 9D")
    # the stock is rebuilt by the draw that needs it, not when the turn starts
    assert state.rebuilds[0] == 0 and not state.done[0] and stock_str(state) == ""
    assert_legal(r, state, "draw stock")
    state = play(r, state, "draw stock")
    assert state.rebuilds[0] == 1
    assert discard_str(state) == "9D"
    assert stock_str(state) == "KD 5H 4H"  # the oldest discard, 3H, was the new top
    assert hand_str(state, 1) == "3H 5C 6C"


def test_stock_exhausted__jolly_reshuffles_all_but_the_newest_three():
    r = rules.preset("jolly", num_players=2)
    pile = "3H 4H 5H KD QS 2C 7D"

    def rebuilt(seed):
        state = make_state(r, ["2S 9D", "5C 6C"], stock="", discard=pile, phase="play",
                           seed=seed)
        return play(r, state, "discard 9D", "draw stock")

    state = rebuilt(0)
    assert discard_str(state) == "2C 7D 9D"
    stock = stock_str(state).split() + [c for c in hand_str(state, 1).split()
                                        if c not in ("5C", "6C")]
    assert sorted(stock) == sorted(["3H", "4H", "5H", "KD", "QS"])
    assert state.rebuilds[0] == 1 and not state.done[0]
    orders = {stock_str(state), stock_str(rebuilt(1))}
    assert len(orders) == 2  # shuffled: the order depends on the deal's key


@pytest.mark.parametrize(("name", "pile"), [("cz", ""), ("sk", ""), ("jolly", "4H 5H")])
def test_stock_exhausted__no_legal_draw_ends_the_deal_without_winner(name, pile):
    r = rules.preset(name, num_players=2)
    # the discard pile after the discard is all a rebuild would keep, and seat 1 may take
    # nothing else (cz/sk: a no-meld round; jolly: not opened): no draw is possible
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard=pile, phase="play",
                       opened=[True, False], turn=2)
    state, rewards, terminated, truncated = step(r, state, "discard 9D")
    assert terminated and not truncated and state.winner[0] == -1
    expected = expected_scores(r, state)
    assert expected == rules.score_deal(r, hands=["2S KH", "5C 6C"], opened=[True, False],
                                        winner=None)
    assert list(state.scores[0]) == expected
    sign = -1 if r.lower_is_better else 1
    assert list(rewards) == [sign * s for s in expected]
    assert not game.legal_action_mask(r, state).any()
    # one more card on the pile would have been enough
    fuller = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard=pile + " 7C",
                        phase="play", turn=2)
    assert not step(r, fuller, "discard 9D")[2]


def test_stock_exhausted__jolly_opened_player_takes_from_the_pile_instead():
    r = rules.preset("jolly", num_players=2)
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="4H 5H", phase="play",
                       opened=[True, True])
    state = play(r, state, "discard 9D")
    assert not state.done[0]  # nothing to rebuild from, but seat 1 may pick up
    assert legal_moves(r, state) == ["take discard 1", "take discard 2", "take discard 3"]
    state = play(r, state, "take discard 2")
    assert sorted(hand_str(state, 1).split()) == ["5C", "5H", "6C", "9D"]
    assert discard_str(state) == "4H" and state.rebuilds[0] == 0


def test_stock_exhausted__jolly_pickup_leaves_the_empty_stock_unbuilt():
    r = rules.preset("jolly", num_players=2)
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="3H 4H 5H KD QS",
                       phase="play", opened=[True, True])
    state = play(r, state, "discard 9D")
    assert_legal(r, state, "draw stock", "take discard 1")
    state = play(r, state, "take discard 1")
    assert state.rebuilds[0] == 0 and stock_str(state) == ""
    assert discard_str(state) == "3H 4H 5H KD QS"


def test_stock_exhausted__sk_bottom_card_may_still_be_taken():
    r = rules.preset("sk", num_players=2)
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="", phase="play",
                       opened=[True, False], bottom="7C")
    state = play(r, state, "discard 9D")
    assert not state.done[0]
    assert_legal(r, state, "take bottom")
    assert_illegal(r, state, "draw stock")
    state = play(r, state, "take bottom")
    assert hand_str(state, 1) == "5C 6C 7C"
    # before round 4 the bottom card may not be taken: no draw is left, the deal ends
    early = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="", phase="play",
                       opened=[True, False], bottom="7C", turn=2)
    assert step(r, early, "discard 9D")[2]


def test_stock_exhausted__undo_of_a_pickup_draws_from_the_rebuilt_stock():
    r = rules.preset("cz", num_players=2)
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="3H 4H", phase="play",
                       opened=[True, False])
    state = play(r, state, "discard 9D", "take discard 1", "undo")
    assert state.rebuilds[0] == 1 and discard_str(state) == "9D"
    assert hand_str(state, 1) == "3H 5C 6C"  # the turned-over pile's top
    assert legal_moves(r, state) == ["discard 3H", "discard 5C", "discard 6C"]


def test_stock_exhausted__undo_with_nothing_to_draw_ends_the_deal():
    r = rules.preset("cz", num_players=2)
    state = make_state(r, ["2S 9D KH", "5C 6C"], stock="", discard="", phase="play",
                       opened=[True, False])
    state = play(r, state, "discard 9D")
    assert legal_moves(r, state) == ["take discard 1"]  # the top discard, to be laid this turn
    state, _, terminated, truncated = step(r, play(r, state, "take discard 1"), "undo")
    assert terminated and not truncated and state.winner[0] == -1
    assert hand_str(state, 1) == "5C 6C" and discard_str(state) == "9D"


@pytest.mark.parametrize("name", rules.PRESETS)
def test_max_stock_rebuilds__cut_off_is_truncation(name):
    r = rules.preset(name, num_players=2, max_stock_rebuilds=3)
    pile = "3H 4H 5H KD QS"
    kwargs = {"hands": ["2S 9D", "5C 6C"], "stock": "", "discard": pile, "phase": "play"}
    state = play(r, make_state(r, rebuilds=2, **kwargs), "discard 9D")
    assert not state.done[0]  # the cut-off comes with the draw that would rebuild
    state, rewards, terminated, truncated = step(r, state, "draw stock")
    assert truncated and not terminated and state.winner[0] == -1
    assert list(state.scores[0]) == rules.score_deal(r, hands=["2S", "5C 6C"],
                                                     opened=[False, False], winner=None)
    assert (rewards != 0).all()
    assert not game.legal_action_mask(r, state).any()
    state = play(r, make_state(r, rebuilds=1, **kwargs), "discard 9D", "draw stock")
    assert not state.done[0] and state.rebuilds[0] == 2
