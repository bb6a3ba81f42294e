"""``agents.features.rules_of_thumb``: the one home of keep, danger and held.

The planner's discard scores equal the readable per-card oracle, and a change planted in
any of the three rules moves both the planner and the card features of learned agents.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from agents import obs_view as ov
from agents.features import card_features as cf
from agents.features import rules_of_thumb
from agents.planner.discard_choice import discard_scores
from agents.registry import make_agent
from zolik_env.rummy import rules
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.melds import hand_card_value

from .card_terms_reference import danger, keep_value
from .test_card_features import played_positions


def planner_inputs(row, planner):
    """What the planner's discard choice reads for one observation: the hand, every natural
    in it free, the cards it holds for the opening (its own ``held_melds``) and the
    context."""
    view = ov.decode(row, planner.rules)
    hand = view["hand"].astype(np.int64)
    plan = SimpleNamespace(hand=hand, opened=bool(view["opened"][ov.OBSERVER]))
    return hand, hand.copy(), planner.held_melds(plan), planner.context(view)


def oracle_scores(hand, free, held, ctx):
    """``discard_scores`` from the per-card oracle, term by term."""
    out = {}
    for kind in (int(k) for k in np.flatnonzero(free[:JOKER])):
        score = (ctx.keep_weight * keep_value(kind, hand, ctx.unseen)
                 + ctx.held_weight * held[kind])
        score += ctx.danger_weight * danger(kind, ctx.known, ctx.opened, ctx.table,
                                            ctx.weights)
        out[kind] = score - ctx.penalty_weight * hand_card_value(kind, ctx.rules)
    return out


def live_rows(obs, rule_set):
    return [row for row in obs if ov.phase(ov.decode(row, rule_set)) != ov.PHASE_OVER]


@pytest.mark.parametrize(("preset", "players", "spec"), [
    ("cz", 2, "planner"), ("sk", 3, "planner:keep=0.8,danger=3"),
    ("jolly", 4, "planner:held=10,penalty=1")])
def test_planner_discard_scores__equal_the_per_card_oracle(preset, players, spec):
    rule_set = rules.preset(preset, num_players=players)
    planner = make_agent(spec, rule_set)
    rows = live_rows(played_positions(rule_set, deals=8, seed=players), rule_set)
    assert len(rows) > 50
    seen_danger = False
    for row in rows:
        inputs = planner_inputs(row, planner)
        got = discard_scores(*inputs)
        assert got == oracle_scores(*inputs)
        seen_danger |= any(danger(k, inputs[3].known, inputs[3].opened, inputs[3].table,
                                  inputs[3].weights) for k in got)
    assert seen_danger  # the sample reaches positions where throwing feeds an opponent


def _planted(monkeypatch, rule):
    """Replace ``rule`` in ``rules_of_thumb`` by the original plus a bump on one kind."""
    original = getattr(rules_of_thumb, rule)

    def bumped(*args, **kwargs):
        out = np.array(original(*args, **kwargs))
        out[:, 7] += 30  # the 8 of spades
        return out

    monkeypatch.setattr(rules_of_thumb, rule, bumped)


@pytest.mark.parametrize("rule", ["keep_values", "danger_values", "held_for_opening"])
def test_a_change_planted_in_one_rule__moves_the_planner_and_the_features(monkeypatch, rule):
    rule_set = rules.preset("cz")
    planner = make_agent("planner", rule_set)
    rows = np.stack(live_rows(played_positions(rule_set, deals=4, seed=1), rule_set))
    held = rule == "held_for_opening"
    features_before = cf.card_features(rows, rule_set, held=held)
    scores_before = [discard_scores(*planner_inputs(row, planner)) for row in rows]
    _planted(monkeypatch, rule)
    features_after = cf.card_features(rows, rule_set, held=held)
    scores_after = [discard_scores(*planner_inputs(row, planner)) for row in rows]
    column = {"keep_values": cf.KEEP, "danger_values": cf.DANGER,
              "held_for_opening": cf.HELD}[rule]
    moved = features_after[:, column] != features_before[:, column]
    assert moved[:, 7].any() and not np.delete(moved, 7, axis=1).any()
    assert any(after.get(7) != before.get(7) for before, after
               in zip(scores_before, scores_after, strict=True) if 7 in before)
    assert all(set(a) == set(b) and all(a[k] == b[k] for k in a if k != 7)
               for a, b in zip(scores_before, scores_after, strict=True))
