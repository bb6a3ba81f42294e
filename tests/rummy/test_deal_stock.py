"""``dealing.deal_stock``: a deal from a shuffled pack the caller gives deals exactly as
the seeded deal of the same pack, and refuses what is not the pack."""

import numpy as np
import pytest

from zolik_env.rummy import game, options
from zolik_env.rummy.cards import JOKER, cards_of, deck_counts
from zolik_env.rummy.dealing import deal_stock
from zolik_env.rummy.shuffle import deal_keys, shuffle_order


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 4)])
def test_deal_stock__the_seeded_pack_gives_the_seeded_deal(preset, players):
    rules = options.preset(preset, num_players=players)
    seeds = [3, 2_000_000_017, 99]
    keys = deal_keys(seeds)
    pack = np.array(cards_of(deck_counts(rules.num_jokers)), np.int8)
    stock = pack[shuffle_order(keys, 0, len(pack))]
    for deal_index in (0, 1):
        ours, core = deal_stock(rules, stock, keys, deal_index), game.init(rules, seeds,
                                                                           deal_index)
        for name, field in core.to_dict().items():
            assert np.array_equal(ours.to_dict()[name], field), name


def test_deal_stock__refuses_what_is_not_the_pack():
    rules = options.preset("cz")
    pack = np.array(cards_of(deck_counts(rules.num_jokers)), np.int8)
    keys = np.zeros(1, np.uint64)
    extra_joker = pack.copy()
    extra_joker[0] = JOKER if pack[0] != JOKER else pack[1]
    for stock, said in ((extra_joker[None], "permutation"), (pack[None, :-1], "stock must"),
                        (pack[None].astype(float), "card ids")):
        with pytest.raises(ValueError, match=said):
            deal_stock(rules, stock, keys)
    with pytest.raises(ValueError, match="keys"):
        deal_stock(rules, pack[None], np.zeros(2, np.uint64))
