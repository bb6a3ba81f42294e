"""Hand decompositions and the action sequences that lay them."""

import numpy as np
import pytest

from agents.hand_search import best_melds, candidates, greedy_melds
from agents.table_model import meld_steps
from zolik_env.rummy import game, rules
from zolik_env.rummy.cards import JOKER, counts_of, deck_counts, format_cards, parse_cards
from zolik_env.rummy.scenario import make_state, table_str

CZ = rules.preset("cz")


def hand(text):
    return counts_of(parse_cards(text)).astype(np.int64)


def laid(melds):
    return sorted(format_cards(c.cards) for c in melds)


def test_best_melds__finds_the_decomposition_greedy_misses():
    counts = hand("5H 6H 7H 8H 8S 8D")
    assert laid(greedy_melds(counts, 0, CZ)) == ["5H 6H 7H 8H"]
    best = best_melds(counts, 0, CZ, lambda c: float(c.penalty))
    assert laid(best.melds) == ["5H 6H 7H", "8S 8H 8D"] and best.value == 42


def test_best_melds__clean_choice_keeps_a_joker_free_run():
    counts = hand("QS QH QD KS KH KD AS")
    best = best_melds(counts, 0, CZ, lambda c: float(c.points))
    assert laid(best.melds) == ["KS KH KD", "QS QH QD"] and best.value == 60  # no run
    assert laid(best.clean_melds) == ["QS KS AS"] and best.clean_value == 30
    assert best_melds(hand("QS QH QD"), 0, CZ, lambda c: 1.0).clean_value < -1e6


def test_best_melds__dead_values_prefer_keeping_a_card_that_lays_off():
    counts = hand("9S 10S JS JH JD")
    dead = [0.0] * 53
    dead[parse_cards("9S")[0]] = 100.0  # say 9S lays off elsewhere
    best = best_melds(counts, 0, CZ, lambda c: float(c.penalty), dead)
    assert laid(best.melds) == ["JS JH JD"]


def _random_hands(n, seed):
    rng = np.random.default_rng(seed)
    pack = [k for k, c in enumerate(deck_counts(4)) for _ in range(c)]
    return [sorted(rng.choice(pack, size=12, replace=False).tolist()) for _ in range(n)]


@pytest.mark.parametrize("preset", ["cz", "jolly"])
def test_meld_steps__lay_every_candidate_legally(preset):
    r = rules.preset(preset)
    opp = "2S 3S 4S"
    checked = 0
    for cards in _random_hands(25, seed=3):
        counts = counts_of(cards)
        if counts[parse_cards(opp)].any():
            continue
        for cand in candidates(counts, int(counts[JOKER]), r):
            state = make_state(r, [format_cards(cards), opp], opened=[True, True],
                               phase="play")
            steps, meld = meld_steps(cand, 0)
            for action, _ in steps:
                state = game.step(r, state, [action])[0]  # validated: illegal raises
            assert table_str(state) == [format_cards(cand.cards)]
            assert list(state.cells[0, 0]) == meld.cells  # the planning model agrees
            checked += 1
    assert checked > 30
