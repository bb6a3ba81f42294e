"""agents.features.hand_features: the hand's best melds and whether it can open, from the
observation."""

import numpy as np
import pytest

from agents.features import hand_features as hf
from zolik_env.rummy import rules
from zolik_env.rummy.cards import parse_card
from zolik_env.rummy.observe import observe
from zolik_env.rummy.scenario import make_state, play

CZ = rules.preset("cz")
JOLLY = rules.preset("jolly")
OPP = "2S 3S 5S 9S JD QD KD 4C 6C 8C 10C QC KC"


def features(rule_set, state, seat=0):
    obs = observe(rule_set, state, np.array([seat]))
    row = hf.hand_features(obs, rule_set)[0]
    named = dict(zip(hf.SCALARS, row[: len(hf.SCALARS)].tolist(), strict=True))
    return named, row[len(hf.SCALARS):]


def plan_cards(plan):
    """Sorted kinds of the plan's runs and sets (the 106 entries after the scalars)."""
    both = plan[: len(plan) // 2] + plan[len(plan) // 2:]
    return sorted(int(k) for k in np.flatnonzero(both) for _ in range(both[k]))


def test_a_hand_with_a_clean_opening__can_open_and_plans_those_cards():
    # 10H JH QH KH = 40 points, AS AH AD = 30 (a cz set counts an ace as 10): 70
    state = make_state(CZ, ["10H JH QH KH AS AH AD 2C 5D", OPP], phase="play")
    f, plan = features(CZ, state)
    assert f["best_points"] == f["clean_points"] == 70
    assert f["can_open"] == 1 and f["need_points"] == 42
    assert f["plan_kept"] == 2 + 5  # 2C and 5D stay in hand
    want = sorted(parse_card(c) for c in ["10H", "JH", "QH", "KH", "AS", "AH", "AD"])
    assert plan_cards(plan) == want


def test_without_a_clean_run_a_cz_hand_cannot_open_but_a_jolly_hand_can():
    # sets only: KS KH KD (30) + QS QH QD (30) = 60 points, no run at all
    hand = "KS KH KD QS QH QD 2C 5D 9C"
    f, _ = features(CZ, make_state(CZ, [hand, OPP], phase="play"))
    assert f["best_points"] == 60 and f["clean_points"] == 0 and f["can_open"] == 0
    jolly_opp = OPP
    f, _ = features(JOLLY, make_state(JOLLY, [hand, jolly_opp], phase="play"))
    assert f["can_open"] == 1  # jolly needs no clean run (and 40 points)


def test_too_few_points__cannot_open():
    f, _ = features(CZ, make_state(CZ, ["2H 3H 4H 9C 9D 5S", OPP], phase="play"))
    assert f["best_points"] == 9 and f["can_open"] == 0


def test_an_opened_seat__can_always_open_and_needs_nothing():
    state = make_state(CZ, ["2H 3H 4H 9C", OPP], opened=[True, True], phase="play")
    f, _ = features(CZ, state)
    assert f["can_open"] == 1 and f["need_points"] == 0


def test_laid_points_count_toward_the_opening_this_turn():
    state = make_state(CZ, ["10H JH QH KH 5S 5H 5D 2C 9D", OPP], phase="play")
    before, _ = features(CZ, state)
    after_state = play(CZ, state, "meld 10H JH QH")
    after, plan = features(CZ, after_state)
    assert before["need_points"] == 42 and after["need_points"] == 42 - 30
    assert after["can_open"] == 1  # the 5s set (15) covers the 12 still missing
    assert parse_card("10H") not in plan_cards(plan)


def test_the_top_discard_that_completes_an_opening_shows_its_gain_in_the_draw_phase():
    hand = "7H 8H KS KH KD 2C 5D 9C 4S"  # no clean run without the 9H
    f, _ = features(CZ, make_state(CZ, [hand, OPP], discard="9H"))
    assert f["clean_points"] == 0 and f["top_clean_points"] == 30 + 24
    assert f["top_gain"] == 54
    useless, _ = features(CZ, make_state(CZ, [hand, OPP], discard="3D"))
    assert useless["top_gain"] == 0 and useless["top_clean_points"] == 0


def test_features_are_a_function_of_the_observation_alone():
    # the same own hand and public table; the opponent's cards and the stock differ
    a = make_state(CZ, ["10H JH QH KH AS AH AD 2C 5D", OPP], phase="play")
    b = make_state(CZ, ["10H JH QH KH AS AH AD 2C 5D", "2D 3D 4D 6S 7S 8S 9H 10S JS 2H 3H 4H 5H"],
                   phase="play")
    obs_a, obs_b = (observe(CZ, s, np.array([0])) for s in (a, b))
    assert np.array_equal(obs_a, obs_b)
    assert np.array_equal(hf.hand_features(obs_a, CZ), hf.hand_features(obs_b, CZ))


def test_augment_appends_the_features_and_the_space_has_room_for_them():
    state = make_state(CZ, ["10H JH QH KH AS AH AD 2C 5D", OPP], phase="play")
    obs = observe(CZ, state, np.array([0]))
    out = hf.augment(obs, CZ, "hand")
    assert out.dtype == np.int16 and out.shape == (1, obs.shape[1] + hf.HAND_FEATURES)
    assert np.array_equal(out[:, : obs.shape[1]], obs)
    assert hf.augmented_space(CZ, "hand").contains(out[0])
    assert hf.augment(obs, CZ, "") is obs or np.array_equal(hf.augment(obs, CZ, ""), obs)
    assert hf.feature_scale("hand").shape == (hf.HAND_FEATURES,)


def test_an_unknown_feature_set_is_a_clear_error():
    with pytest.raises(ValueError, match="obs_features='cards' unknown"):
        hf.check_features("cards")


def test_a_taken_discard_that_must_be_laid_is_in_every_plan_or_the_plan_is_worth_nothing():
    hand = "10H JH QH KH AS AH AD 2C 5D"
    useless = play(CZ, make_state(CZ, [hand, OPP], discard="7S"), "take discard 1")
    f, _ = features(CZ, useless)
    assert f["best_points"] == f["clean_points"] == 0 and f["can_open"] == 0
    # the 9H fits the run: the plan lays 9H 10H JH QH KH (49) and the aces (30)
    fits = play(CZ, make_state(CZ, [hand, OPP], discard="9H"), "take discard 1")
    f, plan = features(CZ, fits)
    assert f["clean_points"] == 79 and f["can_open"] == 1
    assert parse_card("9H") in plan_cards(plan)
    # in the draw phase the top discard's gain counts it as taken (laid or worth nothing)
    drawn, _ = features(CZ, make_state(CZ, [hand, OPP], discard="7S"))
    assert drawn["top_clean_points"] == 0 and drawn["top_gain"] == -70


def test_v4__points_laid_without_a_clean_run_do_not_open():
    laid = play(CZ, make_state(CZ, ["KS KH KD QS QH QD 2C 5D 9C", OPP], phase="play"),
                "meld KS KH KD", "meld QS QH QD")
    f, _ = features(CZ, laid)
    assert f["need_points"] == 0 and f["clean_points"] == 0 and f["can_open"] == 0
    v3 = hf.hand_features(observe(CZ, laid, np.array([0])), CZ, version=3)[0]
    assert v3[hf.SCALARS.index("can_open")] == 1  # what version 3 said


def test_v4__a_card_is_kept_back_for_the_discard():
    state = make_state(CZ, ["10H JH QH KH 2S 2D 2C", OPP], phase="play")
    f, plan = features(CZ, state)
    assert f["best_points"] == 40 and f["can_open"] == 0  # 10H..KH, one 2 kept: 40 < 42
    assert len(plan_cards(plan)) == 4 and f["plan_kept"] == 6  # the 2s stay: no set of two
    v3 = hf.hand_features(observe(CZ, state, np.array([0])), CZ, version=3)[0]
    assert v3[0] == 46 and v3[hf.SCALARS.index("can_open")] == 1


def test_v4__one_copy_of_a_doubled_must_card_is_enough():
    # the taken 5H must be laid; the hand holds another 5H, which may stay in hand
    hand = "3S 8S JS 3H 5H 6H 7H KH 5D KD 4C JK"
    taken = play(CZ, make_state(CZ, [hand, OPP], discard="5H"), "take discard 1")
    f, _ = features(CZ, taken)
    v3 = hf.hand_features(observe(CZ, taken, np.array([0])), CZ, version=3)[0]
    assert f["best_points"] > v3[0]


def test_unsupported_versions_are_named():
    obs = observe(CZ, make_state(CZ, ["2H 3H 4H", OPP]), np.array([0]))
    with pytest.raises(ValueError, match="version 2; this kit computes versions 3, 4"):
        hf.hand_features(obs, CZ, version=2)
