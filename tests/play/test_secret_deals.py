"""The web table's deals cannot be computed from what a seat sees (``play.deals``).

Seat 0 of a room takes its own hand at its first turn and searches for the deal with the
kit's own code: every seed of a range through the core's seeded deal (``game.init``),
and candidate keys through the table's own secret shuffle. Under the old scheme (a deal
seed ``2·10^9 + randbelow(10^9)``) the search finds the seed and so seat 1's hand and the
next stock card; under the secret key it finds nothing. The docs (``docs/play.md``) say
why a search over the 2^256 keys is hopeless.
"""

import contextlib

import numpy as np
import pytest

from play.deals import SecretStream, check_key, new_key, secret_deal, secret_u64
from play.dice_session import DiceTable
from play.session import TableGame
from zolik_env.rummy import game, options
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS, format_cards, parse_card
from zolik_env.rummy.dealing import deal_stock
from zolik_env.seeds import EVAL_SEED_START

SEARCH = 2**13  # candidates per search: a small range the test runs in seconds


def seen_hand(view):
    """Seat 0's hand, counted per card kind, from its page's view."""
    counts = np.zeros(NUM_KINDS, np.int64)
    for text in view["hand"]:
        counts[parse_card(text)] += 1
    return counts


def seeds_matching(rules, hand, start, count, seat=0):
    """The seeds in [start, start + count) whose core deal gives ``seat`` ``hand``."""
    found = []
    for low in range(start, start + count, 4096):
        seeds = np.arange(low, min(low + 4096, start + count))
        state = game.init(rules, seeds)
        same = (state.hands[:, seat].astype(np.int64) == hand[None, :]).all(axis=1)
        found += [int(s) for s in seeds[same]]
    return found


def keys_matching(rules, hand, candidates, seat=0):
    """The candidate keys (integers, as 256-bit keys) whose secret deal gives ``hand``."""
    found = []
    for candidate in candidates:
        key = f"{candidate:064x}"
        stock, rng_key = secret_deal(rules, key, 0)
        state = deal_stock(rules, stock[None], np.array([rng_key], np.uint64))
        if (state.hands[0, seat] == hand).all():
            found.append(candidate)
    return found


def room(tmp_path, **settings):
    return TableGame.new(tmp_path, "cz", 2, [], humans=2, **settings)


def test_old_scheme__seat_0_finds_the_seed_and_sees_seat_1s_hand(tmp_path):
    # the scheme the table used before: a short seed from the evaluation range. The search
    # must be able to succeed, or the test below proves nothing.
    secret_offset = 5_321
    table = room(tmp_path, seed=EVAL_SEED_START + secret_offset)
    assert table.deal_key is None
    hand = seen_hand(table.view(seat=0))
    found = seeds_matching(table.rules, hand, EVAL_SEED_START, SEARCH)
    assert found == [EVAL_SEED_START + secret_offset]
    predicted = game.init(table.rules, found)
    assert (predicted.hands[0, 1] == table.state.hands[0, 1]).all()
    assert (predicted.stock == table.state.stock).all()


def test_secret_deal__seat_0s_search_finds_nothing(tmp_path):
    table = room(tmp_path)
    assert table.deal_key is not None and table.state.hands[0, 0].sum() > 0
    view = table.view(seat=0)
    hand = seen_hand(view)
    assert table.deal_key not in str(view)
    assert seeds_matching(table.rules, hand, EVAL_SEED_START, SEARCH) == []
    assert seeds_matching(table.rules, hand, 0, SEARCH) == []
    assert keys_matching(table.rules, hand, range(SEARCH // 8)) == []
    # the table's own key does find it: the key search is the right search
    assert keys_matching(table.rules, hand, [int(table.deal_key, 16)]) == [
        int(table.deal_key, 16)]


def test_secret_deal__a_fresh_key_per_game_and_the_full_pack(tmp_path):
    rules = options.preset("jolly", num_players=4)
    first, second = (secret_deal(rules, new_key(), 0) for _ in range(2))
    assert (np.sort(first[0]) == np.sort(second[0])).all()
    assert (first[0] != second[0]).any() and first[1] != second[1]
    key = new_key()
    assert (secret_deal(rules, key, 1)[0] == secret_deal(rules, key, 1)[0]).all()
    assert (secret_deal(rules, key, 0)[0] != secret_deal(rules, key, 1)[0]).any()


def test_secret_stream__uniform_draws_without_bias():
    stream = SecretStream(new_key(), "test")
    draws = np.array([stream.below(6) for _ in range(6000)])
    counts = np.bincount(draws, minlength=6)
    assert counts.min() > 850 and counts.max() < 1150  # ~1000 each; 5 sigma is ~130
    with pytest.raises(ValueError, match="2\\^32"):
        stream.below(0)


@pytest.mark.parametrize("bad", [None, 5, "ab", "zz" * 32, "0" * 63])
def test_check_key__refuses_what_is_not_a_key(bad):
    with pytest.raises(ValueError, match="deal key"):
        check_key(bad)


def test_dice_secret__rolls_differ_by_key_and_come_back_after_a_restart(tmp_path):
    first, second = DiceTable.new(tmp_path), DiceTable.new(tmp_path)
    assert first.secret != second.secret and first.secret not in str(first.view())
    for table in (first, second):
        for _ in range(4):
            table.move(table.view()["moves"][0]["id"])
    back = DiceTable.load(tmp_path, first.game_id)
    assert back.view() == first.view()
    assert secret_u64(first.secret, "a") != secret_u64(second.secret, "a")


def naturals_named(move):
    """The natural cards a recorded move names (``meld JK 2H 3H``: 2H and 3H; ``draw
    stock``: none)."""
    named = []
    for token in move.split()[1:]:
        with contextlib.suppress(ValueError):  # words like "draw", "stock", "in"
            named.append(parse_card(token))
    return [kind for kind in named if kind != JOKER]


def pack_with_a_used_card_relabelled(records):
    """The deal's pack with every copy of a card the recorded moves use and of a card the
    mover does not hold swapped, so that the replay must notice, whatever the deal.

    The first move that names a natural card names ``used``; no move before it names either
    card, so after the swap the same positions reach the same seats, and the mover holds
    the relabelled card, not ``used``, when that move comes.
    """
    from zolik_env.envs import replay

    pack = [parse_card(text) for text in records[1]["stock"].split()]
    step = next(s for s in replay.replay(records) if naturals_named(s.move))
    used = naturals_named(step.move)[0]
    held = step.state.hands[0, step.seat]
    other = next(kind for kind in range(NUM_NATURALS) if held[kind] == 0 and kind != used)
    relabel = {used: other, other: used}
    return format_cards(relabel.get(kind, kind) for kind in pack)


def test_replay__a_secret_deal_replays_from_its_recorded_pack(tmp_path):
    from zolik_env.envs import replay

    table = TableGame.new(tmp_path, "jolly", 2, ["greedy"])
    while not table.state.done[0]:
        table.move(int(np.flatnonzero(game.legal_action_mask(table.rules, table.state)[0])[0]))
    records = replay.loads(table.recorder.dumps())
    assert "seed" not in records[1] and len(records[1]["stock"].split()) == 110
    assert sum(1 for _ in replay.replay(records)) == len(table.log)
    swapped = pack_with_a_used_card_relabelled(records)
    for bad, said in (({"stock": swapped}, "line"), ({"stock": "AS " * 110}, "line 2"),
                      ({"key": -1}, "-1"), ({"key": "7"}, "'7'")):
        with pytest.raises(ValueError, match=said):
            list(replay.replay([records[0], {**records[1], **bad}, *records[2:]]))
