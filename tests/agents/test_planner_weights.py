"""``planner:KEY=VALUE,...``: the planner with some of its weights changed."""

from __future__ import annotations

import dataclasses

import pytest

from agents import obs_view as ov
from agents.planner.plan_tables import weight_array
from agents.planner.planner import PlannerPolicy
from agents.planner.planner_weights import PlannerWeights, parse_weights
from agents.registry import make_agent
from tests.agents.planner_reference.planner import PlannerPolicy as ReadablePlanner
from tests.agents.play import play_deal, play_turn
from zolik_env.rummy import rules
from zolik_env.rummy.cards import parse_card
from zolik_env.rummy.observe import observe
from zolik_env.rummy.scenario import hand_str, make_state

CZ = rules.preset("cz")
OPP = "2S 3S 5S 9S JD QD KD 4C 6C 8C 10C QC KC"


def test_parse__reads_the_given_weights_and_keeps_the_others():
    weights = parse_weights("penalty=0.5,near_out=6,joker_keep=-3.5")
    assert weights == dataclasses.replace(PlannerWeights(), penalty=0.5, near_out=6,
                                          joker_keep=-3.5)
    assert isinstance(weights.near_out, int)
    assert parse_weights("") == PlannerWeights()


def test_spec__names_only_the_changed_weights_and_parses_back():
    weights = PlannerWeights(keep=1.25, near_out=5)
    assert weights.spec() == "keep=1.25,near_out=5"
    assert parse_weights(weights.spec()) == weights
    assert PlannerWeights().spec() == ""


@pytest.mark.parametrize(("argument", "message"), [
    ("kep=2", "'kep=2' is not KEY=VALUE with KEY one of keep, held"),
    ("keep", "'keep' is not KEY=VALUE"),
    ("keep=lots", "keep='lots' is not a number"),
    ("danger=nan", "danger='nan' is not a finite number"),
    ("near_out=2.5", "near_out='2.5' must be a whole number >= 0"),
    ("near_out=-1", "near_out='-1' must be a whole number >= 0"),
])
def test_parse__bad_arguments_are_named(argument, message):
    with pytest.raises(ValueError, match=message):
        make_agent(f"planner:{argument}", CZ)


def test_registry__planner_spec_carries_its_weights():
    policy = make_agent("planner:danger=0,out_bonus=50", CZ)
    assert policy.weights == PlannerWeights(danger=0.0, out_bonus=50.0)
    assert (policy._weights == weight_array(policy.weights)).all()  # what its kernels read


def test_default_weights__play_the_planner_move_for_move():
    every = ",".join(f"{f.name}={getattr(PlannerWeights(), f.name)}"
                     for f in dataclasses.fields(PlannerWeights))
    explicit = make_agent(f"planner:{every}", CZ)
    for seed in (11, 12):
        default_deal = play_deal(CZ, [PlannerPolicy(CZ), PlannerPolicy(CZ)], seed)[1]
        assert play_deal(CZ, [explicit, PlannerPolicy(CZ)], seed)[1] == default_deal


def _discards(argument: str, state) -> list[str]:
    return play_turn(make_agent(f"planner:{argument}", CZ), CZ, state)[1]


def test_danger_weight__zero_feeds_the_run_the_next_player_collects():
    hand, opp = "9H 2D 4C 4D KS KD", "7H 8H 3S 5S 9S JD QD 6C 8C 10C QC KC"
    state = make_state(CZ, [hand, opp], phase="play")
    known = state.known_taken.copy()
    known[0, 1, [parse_card("7H"), parse_card("8H")]] += 1
    watched = state.replace(known_taken=known)
    assert _discards("", watched) != ["discard 9H"]  # the default guards the 7H 8H run
    assert _discards("danger=0", watched) == ["discard 9H"]


def test_keep_weight__zero_throws_the_highest_card_of_a_pair():
    state = make_state(CZ, ["9H 2D 4C 4D KS KD", OPP], phase="play")
    assert _discards("", state) == ["discard 9H"]
    assert _discards("keep=0", state) in (["discard KS"], ["discard KD"])


def test_joker_keep__a_cheap_joker_is_laid_with_low_cards():
    state = make_state(CZ, ["JK 5S 6S 9D 2C", OPP], opened=[True, True], phase="play")
    assert "JK" in hand_str(play_turn(PlannerPolicy(CZ), CZ, state)[0], 0)
    cheap = play_turn(make_agent("planner:joker_keep=5", CZ), CZ, state)[0]
    assert "JK" not in hand_str(cheap, 0)


@pytest.mark.parametrize(("near_out", "danger"), [(4, False), (5, True)])
def test_near_out__sets_how_small_an_opened_hand_is_a_danger(near_out, danger):
    state = make_state(CZ, ["9H 2D 4C 4D KS KD", "7H 8H 3S 5S 9S"], opened=[False, True],
                       phase="play")
    view = ov.decode(observe(CZ, state, state.current)[0], CZ)
    policy = ReadablePlanner(CZ, PlannerWeights(near_out=near_out))
    assert policy.in_danger(view) is danger


def test_penalty_weights__enter_the_discard_choice():
    state = make_state(CZ, ["9H 2D 4C 4D KS KD", OPP], phase="play")
    view = ov.decode(observe(CZ, state, state.current)[0], CZ)
    weights = PlannerWeights(penalty=0.1, penalty_opened=2.0, penalty_danger=3.0)
    ctx = ReadablePlanner(CZ, weights).context(view)
    assert ctx.penalty_weight == pytest.approx(0.1)  # not opened, nobody near out
    opened = make_state(CZ, ["9H 2D 4C 4D KS KD", "7H 8H 3S"], opened=[True, True],
                        phase="play")
    view = ov.decode(observe(CZ, opened, opened.current)[0], CZ)
    assert ReadablePlanner(CZ, weights).context(view).penalty_weight == pytest.approx(5.1)


def test_changed_weights__still_play_legal_whole_deals():
    policy = make_agent("planner:keep=0.5,held=10,danger=2,penalty=1,near_out=6", CZ)
    for seed in (3, 4):
        state, actions = play_deal(CZ, [policy, PlannerPolicy(CZ)], seed)
        assert bool(state.done[0]) and len(actions) > 0


def test_held_weight__protects_the_cards_kept_for_the_opening():
    from tests.agents.planner_reference.discard_choice import discard_scores

    state = make_state(CZ, ["9H 2D 4C 4D KS KD", OPP], phase="play")
    view = ov.decode(observe(CZ, state, state.current)[0], CZ)
    hand = view["hand"].astype(int)
    protected = 0 * hand
    protected[parse_card("KS")] = 1
    scores = [discard_scores(hand, hand, protected, ReadablePlanner(CZ, PlannerWeights(held=held))
                             .context(view)) for held in (40.0, 5.0)]
    assert scores[0][parse_card("KS")] - scores[1][parse_card("KS")] == pytest.approx(35.0)
    assert scores[0][parse_card("9H")] == scores[1][parse_card("9H")]


@pytest.mark.parametrize(("hand", "key", "danger", "change"), [
    ("JK 5S 6S 9D", "out_bonus", False, -60.0),  # the turn that goes out
    ("JK 5S 6S 9D 2C", "joker_keep", False, 7.0),  # keeps its joker: worth 20 + 7
    ("JK 9D 2C", "joker_keep_danger", True, 7.0),  # no meld to lay its joker in
])
def test_turn_weights__enter_the_turn_search_score(hand, key, danger, change):
    from tests.agents.planner_reference.turn_plan import turn_input

    state = make_state(CZ, [hand, OPP], opened=[True, True], phase="play")
    view = ov.decode(observe(CZ, state, state.current)[0], CZ)
    default, changed = PlannerWeights(), dataclasses.replace(
        PlannerWeights(), **{key: getattr(PlannerWeights(), key) + change})
    plans = [ReadablePlanner(CZ, w).search.best_turn(turn_input(view, CZ), danger)
             for w in (default, changed)]
    assert plans[0].actions == plans[1].actions
    scores = [ReadablePlanner(CZ, w).search.score(p, danger)
              for w, p in zip((default, changed), plans, strict=True)]
    assert scores[1] - scores[0] == pytest.approx(change)
