"""sk's decisions where the Slovak text is silent (docs/rules-spec.md §3.3, §3.8): the top
discard may be taken as in cz (``discard_pickup``, or ``"none"`` for a table that reads
the text strictly), the bottom card may be kept (``bottom_card_must_lay=False``) or must be
laid in the turn it is taken, and cz's joker limits apply. The options' defaults are
today's games (the golden games and core digests hold that); here random legal play with
each option set is held to the rule it names."""

import numpy as np
import pytest

from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.observe import card_locations
from zolik_env.rummy.state import PHASE_DRAW

SEEDS = list(range(24))


def play_random(r, seeds, visit):
    """Random legal play of ``seeds`` to the end; ``visit(state, mask, actions)`` before
    every step. Checks that the cards are conserved and that every live deal has a move."""
    state = game.init(r, seeds)
    pack = card_locations(state).sum(1)[0]
    rng = np.random.default_rng(0)
    for _ in range(20_000):
        if state.done.all():
            return
        mask = game.legal_action_mask(r, state)
        assert (mask.any(1) == ~state.done).all()
        actions = game.sample_legal(mask, rng)
        visit(state, mask, actions)
        state, _ = game.step(r, state, actions)
        assert (card_locations(state).sum(1) == pack).all()
    raise AssertionError("deals did not end")


def test_sk_defaults__top_discard_as_cz_bottom_card_kept_cz_joker_limits():
    sk, cz = rules.preset("sk"), rules.preset("cz")
    assert sk.discard_pickup == cz.discard_pickup == "top_must_use"
    assert sk.bottom_card_must_lay is False
    for option in ("jokers_fewer_than_naturals", "jokers_adjacent_in_run", "max_jokers_in_set"):
        assert getattr(sk, option) == getattr(cz, option)


def test_discard_pickup_none__the_discard_pile_is_never_taken():
    r = rules.preset("sk", num_players=3, discard_pickup="none")
    seen = {"draws": 0}

    def visit(state, mask, actions):
        assert not mask[:, A.TAKE_DISCARD_BASE:A.TAKE_BOTTOM].any()
        seen["draws"] += int((state.phase == PHASE_DRAW).sum())

    play_random(r, SEEDS, visit)
    assert seen["draws"] > 1000
    default = rules.preset("sk", num_players=3)
    state = game.init(default, SEEDS)
    taken = False
    rng = np.random.default_rng(0)
    for _ in range(400):  # the default takes discards in the same games
        mask = game.legal_action_mask(default, state)
        taken |= bool(mask[:, A.TAKE_DISCARD_BASE].any())
        state, _ = game.step(default, state, game.sample_legal(mask, rng))
    assert taken


@pytest.mark.parametrize("must_lay", [False, True])
def test_bottom_card_must_lay__the_taken_bottom_card_is_laid_or_undone(must_lay):
    r = rules.preset("sk", num_players=2, bottom_card_must_lay=must_lay,
                     no_meld_rounds=0, bottom_card_from_round=1)
    taken = {}  # deal -> bottom card taken this turn
    seen = {"taken": 0, "kept": 0, "blocked": 0}

    def visit(state, mask, actions):
        for b in np.flatnonzero(~state.done):
            card = taken.get(b)
            if card is not None and state.phase[b] == PHASE_DRAW:  # its turn ended
                on_table = state.table_counts[b, card] > taken[(b, "table")]
                if must_lay:
                    assert on_table or taken[(b, "undone")], "kept the bottom card"
                seen["kept"] += int(not on_table and not taken[(b, "undone")])
                del taken[b]
            if actions[b] == A.TAKE_BOTTOM:
                seen["taken"] += 1
                taken[b] = int(state.bottom[b])
                taken[(b, "table")] = int(state.table_counts[b, taken[b]])
                taken[(b, "undone")] = False
            elif b in taken and actions[b] == A.UNDO:
                taken[(b, "undone")] = True
            elif b in taken and must_lay and state.must_use[b] == taken[b]:
                seen["blocked"] += int(not mask[b, A.DISCARD_BASE:].any())

    play_random(r, SEEDS, visit)
    assert seen["taken"] >= 5
    if must_lay:
        assert seen["kept"] == 0 and seen["blocked"] > 0  # no discard while it is unlaid
    else:
        assert seen["kept"] > 0  # today's sk: the bottom card may stay in hand
