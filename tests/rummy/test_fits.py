"""The "what can go where" query: the one-meld answers agree with the batched arrays and
with the legal-action mask on random play."""

import numpy as np
import pytest

from zolik_env.rummy import actions as A
from zolik_env.rummy import fits, game, rules
from zolik_env.rummy.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_SUITS, parse_card
from zolik_env.rummy.masks import melding_allowed
from zolik_env.rummy.scenario import make_state
from zolik_env.rummy.state import PHASE_PLAY

CASES = [("cz", 2), ("sk", 3), ("jolly", 4)]


def table_of(r, *melds):
    """(meld_kind, meld_key, cells) of each scripted meld, slot by slot."""
    hands = [""] * r.num_players
    state = make_state(r, hands, melds=[(m, 1) for m in melds])
    return [(int(state.meld_kind[0, m]), int(state.meld_key[0, m]), state.cells[0, m])
            for m in range(len(melds))]


def places_of(meld, card):
    return fits.natural_places(*meld, parse_card(card))


def test_natural_places__a_run_takes_its_ends_and_a_jokers_cell():
    r = rules.preset("cz")
    run, with_joker = table_of(r, "5H 6H 7H", "9S JK JS")
    assert places_of(run, "4H") == (fits.Place(3, False, False),)  # position 4 = cell 3
    assert places_of(run, "8H") == (fits.Place(7, False, False),)
    assert places_of(run, "9H") == () and places_of(run, "8S") == ()
    assert places_of(with_joker, "10S") == (fits.Place(9, False, True),)  # the swap
    assert places_of(with_joker, "QS") == (fits.Place(11, False, False),)


def test_natural_places__an_ace_fits_a_runs_low_and_high_end():
    r = rules.preset("cz")
    low, high, both = table_of(r, "2D 3D 4D", "JC QC KC", "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    assert places_of(low, "AD") == (fits.Place(0, False, False),)
    assert places_of(high, "AC") == (fits.Place(fits.HIGH_CELL, True, False),)
    assert places_of(both, "AS") == (fits.Place(0, False, False),
                                     fits.Place(fits.HIGH_CELL, True, False))


def test_natural_places__a_set_takes_its_missing_suits_and_swaps_a_fourth():
    r = rules.preset("cz")
    plain, three_and_joker = table_of(r, "7S 7H 7D", "8S 8H 8D JK")
    assert places_of(plain, "7C") == (fits.Place(3, False, False),)
    assert places_of(plain, "7S") == () and places_of(plain, "8C") == ()
    assert places_of(three_and_joker, "8C") == (fits.Place(3, False, True),)


def test_joker_places__follow_the_presets_joker_limits():
    cz, jolly = rules.preset("cz"), rules.preset("jolly")
    run, short_joker_run, full_set = table_of(cz, "5H 6H 7H", "9S JK JS", "7S 7H 7D 7C")
    assert fits.joker_places(cz, *run) == (fits.Place(3, False, False),
                                           fits.Place(7, True, False))
    assert fits.joker_places(cz, *short_joker_run) == ()  # fewer jokers than naturals
    assert fits.joker_places(jolly, *short_joker_run) == (fits.Place(7, False, False),
                                                          fits.Place(11, True, False))
    assert fits.joker_places(cz, *full_set) == ()
    (three,) = table_of(cz, "7S 7H 7D")
    assert fits.joker_places(cz, *three) == (fits.Place(A.SET_JOKER_CELL, False, False),)


def test_lay_off_action__names_the_move():
    assert A.action_to_string(fits.lay_off_action(3, parse_card("4H"),
                                                  fits.Place(3, False, False))) == "layoff 4H on 3"
    high = fits.Place(fits.HIGH_CELL, True, False)
    assert A.action_to_string(fits.lay_off_action(2, parse_card("AC"), high)) == (
        "layoff AC on 2 high")
    assert A.action_to_string(fits.lay_off_action(0, JOKER, high)) == "layoff JK on 0 high"


def test_empty_slot__takes_nothing():
    r = rules.preset("cz")
    cells = np.zeros(A.MELD_CELLS, np.int8)
    assert fits.all_natural_places(0, 0, cells) == ((),) * NUM_NATURALS
    assert fits.joker_places(r, 0, 0, cells) == ()


def random_states(r, seed, steps=400):
    """States of one deal under random legal play (the deal restarts when it ends)."""
    rng = np.random.default_rng(seed)
    state, out, deal = game.init(r, [seed]), [], 0
    for _ in range(steps):
        if state.done[0]:
            deal += 1
            state = game.init(r, [seed * 1000 + deal])
        mask = game.legal_action_mask(r, state)[0]
        out.append((state, mask))
        state = game.step(r, state, [int(rng.choice(np.flatnonzero(mask)))])[0]
    return out


def scalar_arrays(r, kind, key, cells):
    """The one-meld answers as arrays shaped like the batched ones (M, 52), (M, 4), (M, 2)."""
    m = len(kind)
    natural, high, joker = (np.zeros((m, n), bool) for n in (NUM_NATURALS, NUM_SUITS, 2))
    for slot in range(m):
        for k, places in enumerate(fits.all_natural_places(kind[slot], key[slot], cells[slot])):
            for place in places:
                if place.high:
                    high[slot, k // NUM_RANKS] = True
                else:
                    natural[slot, k] = True
        for place in fits.joker_places(r, kind[slot], key[slot], cells[slot]):
            joker[slot, int(place.high)] = True
    return natural, high, joker


@pytest.mark.parametrize(("name", "players"), CASES)
def test_scalar_query__agrees_with_the_batched_arrays(name, players):
    r = rules.preset(name, num_players=players)
    checked = 0
    for state, _ in random_states(r, seed=7)[::5]:
        used = int(state.num_melds[0])
        if not used:
            continue
        kind, key = state.meld_kind[0, :used], state.meld_key[0, :used]
        cells = state.cells[0, :used]
        natural, high, jokers = fits.table_fits(r, kind[None], key[None], cells[None])
        got = scalar_arrays(r, kind, key, cells)
        for one, batched in zip(got, (natural[0], high[0], jokers[0]), strict=True):
            np.testing.assert_array_equal(one, batched)
        checked += used
    assert checked > 20


@pytest.mark.parametrize(("name", "players"), CASES)
def test_scalar_query__agrees_with_the_mask_on_random_play(name, players):
    """Each lay-off in the mask is a place the query gives for a card the seat holds, on a
    meld it may touch (opened, or its own meld of this turn); before opening, no swap."""
    r = rules.preset(name, num_players=players)
    checked = 0
    for state, mask in random_states(r, seed=11):
        seat = int(state.current[0])
        hand = state.hands[0, seat]
        lays = (state.phase[0] == PHASE_PLAY and not state.undone[0] and hand.sum() >= 2
                and melding_allowed(r, state)[0])
        opened, used = bool(state.opened[0, seat]), int(state.num_melds[0])
        for slot in range(used):
            may = lays and (opened or slot >= state.snap_num_melds[0])
            meld = (int(state.meld_kind[0, slot]), int(state.meld_key[0, slot]),
                    state.cells[0, slot])
            expected = set()
            for k, places in enumerate(fits.all_natural_places(*meld)):
                for place in places:
                    if may and hand[k] and (opened or not place.swap):
                        expected.add(fits.lay_off_action(slot, k, place))
            for place in fits.joker_places(r, *meld):
                if may and hand[JOKER]:
                    expected.add(fits.lay_off_action(slot, JOKER, place))
            ids = [A.LAYOFF_BASE + slot * NUM_NATURALS + np.arange(NUM_NATURALS),
                   A.ACE_HIGH_BASE + slot * NUM_SUITS + np.arange(NUM_SUITS),
                   A.JOKER_BASE + slot * 2 + np.arange(2)]
            legal = {int(a) for a in np.concatenate(ids) if mask[a]}
            assert legal == expected, (slot, [A.action_to_string(a) for a in legal ^ expected])
            checked += bool(expected)
    assert checked > 10
