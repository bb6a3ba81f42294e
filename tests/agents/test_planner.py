"""planner on scripted positions (seat 0 to act in round 4; cz unless stated)."""


import numpy as np
import pytest

from agents.planner.greedy import GreedyPolicy
from agents.planner.planner import PlannerPolicy
from tests.agents.play import decide, play_turn
from zolik_env.rummy import actions as A
from zolik_env.rummy import rules
from zolik_env.rummy.cards import parse_card
from zolik_env.rummy.scenario import hand_str, make_state, table_str

CZ = rules.preset("cz")
OPP = "2S 3S 5S 9S JD QD KD 4C 6C 8C 10C QC KC"


def test_planner__takes_the_discard_that_completes_its_opening():
    hand = "7H 8H KS KH KD 2C 5D 9C 4S"  # no clean run without the 9H
    state = make_state(CZ, [hand, OPP], discard="9H")
    state, moves = play_turn(PlannerPolicy(CZ), CZ, state)
    assert moves[0] == "take discard 1"
    assert sorted(table_str(state)) == ["7H 8H 9H", "KS KH KD"]
    assert bool(state.opened[0, 0]) and "undo" not in moves


def test_planner__draws_from_the_stock_when_the_discard_does_not_help():
    state = make_state(CZ, ["7H 8H KS KH KD 2C 5D 9C 4S", OPP], discard="3D")
    assert A.action_to_string(decide(PlannerPolicy(CZ), CZ, state)) == "draw stock"


def test_planner__keeps_a_joker_that_would_only_lay_low_cards():
    state = make_state(CZ, ["JK 5S 6S 9D 2C", OPP], opened=[True, True], phase="play")
    after, _ = play_turn(PlannerPolicy(CZ), CZ, state)
    assert "JK" in hand_str(after, 0) and table_str(after) == []
    # the position tempts: greedy spends the joker on 5S 6S
    greedy_after, _ = play_turn(GreedyPolicy(CZ), CZ, state)
    assert "JK" not in hand_str(greedy_after, 0)


def test_planner__uses_its_joker_to_go_out():
    state = make_state(CZ, ["JK 5S 6S 9D", OPP], opened=[True, True], phase="play")
    after, moves = play_turn(PlannerPolicy(CZ), CZ, state)
    assert moves[-1] == "discard 9D" and int(after.winner[0]) == 0


def test_planner__swaps_a_table_joker_and_relays_it_with_its_high_cards():
    state = make_state(CZ, ["6H QS KS 2D 9C", OPP], melds=[("5H JK 7H", 1)],
                       opened=[True, True], phase="play")
    after, moves = play_turn(PlannerPolicy(CZ), CZ, state)
    assert moves[0] == "layoff 6H on 0"
    assert table_str(after)[0] == "5H 6H 7H"
    assert any("JK" in meld and "QS" in meld for meld in table_str(after)[1:])
    assert "undo" not in moves and hand_str(after, 0) in ("2D", "9C")


def _with_known(state, seat, cards):
    known = state.known_taken.copy()
    for card in cards.split():
        known[0, seat, parse_card(card)] += 1
    return state.replace(known_taken=known)


def test_planner__does_not_feed_the_run_the_next_player_collects():
    hand, opp = "9H 2D 4C 4D KS KD", "7H 8H 3S 5S 9S JD QD 6C 8C 10C QC KC"
    state = make_state(CZ, [hand, opp], phase="play")
    unwatched = play_turn(PlannerPolicy(CZ), CZ, state)[1]
    assert unwatched == ["discard 9H"]  # its loosest, highest card when nobody wants it
    watched = play_turn(PlannerPolicy(CZ), CZ, _with_known(state, 1, "7H 8H"))[1]
    assert len(watched) == 1 and watched[0] != "discard 9H"


def test_planner__jolly_picks_up_as_deep_as_its_melds_reach():
    jolly = rules.preset("jolly")
    state = make_state(jolly, ["7S 8S 2C 9D", OPP], discard="KC 5S 6S",
                       opened=[True, True])
    state, moves = play_turn(PlannerPolicy(jolly), jolly, state)
    assert moves[0] == "take discard 2"
    assert "5S 6S 7S 8S" in table_str(state)


def test_planner__takes_the_discard_and_spends_its_joker_to_go_out():
    state = make_state(CZ, ["JK 4H 5H KD", OPP], discard="6H", opened=[True, True])
    state, moves = play_turn(PlannerPolicy(CZ), CZ, state)
    assert moves[0] == "take discard 1" and moves[-1] == "discard KD"
    assert int(state.winner[0]) == 0 and not state.hands[0, 0].any()


def test_planner__never_discards_the_card_it_took():
    # the taken 6H must be laid (4H 5H 6H), never thrown back
    state = make_state(CZ, ["4H 5H KD 8C", OPP], discard="6H", opened=[True, True])
    state, moves = play_turn(PlannerPolicy(CZ), CZ, state)
    assert moves[0] == "take discard 1" and "discard 6H" not in moves
    assert "4H 5H 6H" in table_str(state) and moves[-1] == "discard KD"


@pytest.mark.parametrize(("preset", "players"), [("cz", 2), ("sk", 3), ("jolly", 2)])
def test_planner__acts_legally_in_states_other_players_lead_to(preset, players):
    """States a random player reaches (as when the planner labels another agent's
    decisions) are played legally, mid-turn ones included."""
    from agents.registry import make_agent
    from train.imitation import collect

    r = rules.preset(preset, num_players=players, max_turns=60)
    data = collect(r, "planner", 1500, seed=11, num_deals=16, driver=make_agent("random", r))
    rows = np.arange(len(data))
    assert data.legal(rows)[rows, data.action].all()


@pytest.mark.parametrize("preset", ["cz", "sk"])
def test_planner__opens_in_every_turn_its_hand_features_say_it_can(preset):
    """Whenever a seat's hand features say ``can_open`` at the first decision after its
    draw, the planner ends that turn opened: the planner and the features' search agree
    on what an opening is (a learned agent is measured by the turns it leaves unopened)."""
    from agents.features.hand_features import SCALARS, hand_features
    from zolik_env.rummy import game
    from zolik_env.rummy.observe import observe

    rule_set = rules.preset(preset)
    planner, rng = PlannerPolicy(rule_set), np.random.default_rng(0)
    state = game.init(rule_set, np.arange(16) + 4242)
    could_open = {}  # (deal, seat) -> can_open at the first decision after the draw
    judged = 0
    for _ in range(1500):
        if state.done.all():
            break
        obs = observe(rule_set, state, state.current)
        mask = game.legal_action_mask(rule_set, state)
        can_open = hand_features(obs, rule_set)[:, SCALARS.index("can_open")]
        for deal in np.flatnonzero(~state.done):
            key = (int(deal), int(state.current[deal]))
            opened = bool(state.opened[deal, key[1]])
            if mask[deal, A.DRAW_STOCK]:
                if could_open.pop(key, False):
                    assert opened, f"deal {deal}: seat {key[1]} could open and did not"
                    judged += 1
            elif key not in could_open:
                could_open[key] = not opened and can_open[deal] > 0
        state = game.step(rule_set, state, planner.act_batch(obs, mask, rng))[0]
    assert judged >= 10  # the test saw turns that could open
