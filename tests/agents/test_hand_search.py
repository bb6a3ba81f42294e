"""Hand decompositions and the action sequences that lay them."""

import numpy as np
import pytest

from agents.search.hand_search import NEG, best_melds, candidates, greedy_melds
from tests.agents.planner_reference.table_model import meld_steps
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


def _reference_best_melds(counts, jokers, r, meld_value, dead_value=None):
    """The search as a plain memoised recursion over count tuples: the readable statement
    of what the compiled ``best_melds`` computes, ties broken the same way (keeping the
    lowest card first, then the candidates in their order, a later one only when strictly
    better)."""
    kinds = [int(k) for k in np.flatnonzero(counts[:JOKER])]
    index = {k: i for i, k in enumerate(kinds)}
    by_low = [[] for _ in kinds]
    for cand in candidates(counts, jokers, r):
        uses = tuple(index[k] for k in cand.naturals)
        by_low[uses[0]].append((uses, cand.jokers, meld_value(cand), cand))
    dead = [dead_value[k] if dead_value is not None else 0.0 for k in kinds]
    memo = {}

    def solve(state, low):
        if state in memo:
            return memo[state]
        while low < len(kinds) and not state[low]:
            low += 1
        if low == len(kinds):
            return 0.0, (), NEG, ()
        rest = list(state)
        rest[low] -= 1
        v, m, cv, cm = solve(tuple(rest), low)
        bv, bm, bcv, bcm = v + dead[low], m, cv + dead[low], cm
        for uses, jk, value, cand in by_low[low]:
            if jk > state[-1] or any(state[i] == 0 for i in uses):
                continue
            after = list(state)
            for i in uses:
                after[i] -= 1
            after[-1] -= jk
            v, m, cv, cm = solve(tuple(after), low)
            if value + v > bv:
                bv, bm = value + v, (cand, *m)
            with_clean = value + (v if cand.clean_run else cv)
            if with_clean > bcv:
                bcv, bcm = with_clean, (cand, *(m if cand.clean_run else cm))
        memo[state] = bv, bm, bcv, bcm
        return memo[state]

    return solve((*(int(counts[k]) for k in kinds), jokers), 0)


@pytest.mark.parametrize("preset", ["cz", "sk", "jolly"])
def test_best_melds__compiled_search_equals_the_recursion(preset):
    """Values and the melds themselves, best and clean, on random hands of 3-20 cards
    with up to four jokers, three value functions and random dead values (a must-lay
    card among them); the candidates come from the rule set's ``meld_table``, the
    reference's from ``candidates``."""
    r = rules.preset(preset)
    rng = np.random.default_rng(11)
    pack = [k for k, c in enumerate(deck_counts(4)) for _ in range(c)]
    value_functions = (lambda c: float(c.points), lambda c: float(c.penalty),
                       lambda c: float(len(c.cards)) - 0.5 * c.jokers)
    cleans = 0
    for trial in range(300):
        cards = rng.choice(pack, size=int(rng.integers(3, 21)), replace=False)
        counts = counts_of(cards).astype(np.int64)
        jokers = int(counts[JOKER])
        value = value_functions[trial % 3]
        dead = None
        if trial % 2:
            dead = rng.integers(-5, 15, 53).astype(float).tolist()
            dead[int(rng.integers(52))] = -1000.0
        expected = _reference_best_melds(counts, jokers, r, value, dead)
        found = best_melds(counts, jokers, r, value, dead)
        assert (found.value, found.melds, found.clean_value, found.clean_melds) == expected
        if trial % 3 == 0:  # points: also the default, compiled end to end (search_hand)
            found = best_melds(counts, jokers, r, None, dead)
            assert (found.value, found.melds, found.clean_value, found.clean_melds) == expected
        cleans += found.clean_value > NEG / 2 and bool(found.clean_melds)
    assert cleans > 50  # the clean choice was exercised, not only the best one
