"""``agents.features.rules_of_thumb``: the one home of keep, danger and held.

The compiled planner's discard scores equal the readable per-card oracle, and a change
planted in any of the three rules moves both the planner and the card features of
learned agents. The planner is compiled, so the planted change is made with numba's
compilation off (``NUMBA_DISABLE_JIT``, in a child process): the kernels then run as the
Python functions they are written as, and reach the rules through the module.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from agents import obs_view as ov
from agents.planner.choice_kernel import discard_scores, read_input
from agents.planner.plan_tables import plan_tables, weight_array
from agents.planner.planner_weights import parse_weights
from agents.planner.sim_table import B_NTAB
from tests.agents.planner_reference.planner import PlannerPolicy as ReferencePlanner
from zolik_env.rummy import rules
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.melds import hand_card_value

from .card_terms_reference import danger, keep_value
from .test_card_features import played_positions

ROOT = Path(__file__).resolve().parents[2]


def planner_inputs(row, reference):
    """What the planner's discard choice reads for one observation, as the readable
    planner gathers it: the hand, every natural in it free, the cards it holds for the
    opening (its own ``held_melds``) and the context."""
    view = ov.decode(row, reference.rules)
    hand = view["hand"].astype(np.int64)
    plan = SimpleNamespace(hand=hand, opened=bool(view["opened"][ov.OBSERVER]))
    return hand, hand.copy(), reference.held_melds(plan), reference.context(view)


def compiled_scores(row, rule_set, weights):
    """The compiled planner's discard scores of every natural in the hand of ``row``."""
    tables = plan_tables(rule_set)
    plan, tab, _ = read_input(tables, row)
    free = plan[:JOKER + 1].copy()
    scores = discard_scores(tables, weight_array(weights), row, plan, tab, int(plan[B_NTAB]),
                            free)
    return {int(k): float(scores[k]) for k in np.flatnonzero(free[:JOKER])}


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
    weights = parse_weights(spec.partition(":")[2])
    reference = ReferencePlanner(rule_set, weights)
    rows = live_rows(played_positions(rule_set, deals=8, seed=players), rule_set)
    assert len(rows) > 50
    seen_danger = False
    for row in rows:
        inputs = planner_inputs(row, reference)
        got = compiled_scores(row, rule_set, weights)
        assert got == oracle_scores(*inputs)
        seen_danger |= any(danger(k, inputs[3].known, inputs[3].opened, inputs[3].table,
                                  inputs[3].weights) for k in got)
    assert seen_danger  # the sample reaches positions where throwing feeds an opponent


PLANT = """
import json, sys
import numpy as np
from agents.features import card_features as cf
from agents.features import rules_of_thumb
from agents.planner.planner_weights import DEFAULT_WEIGHTS
from tests.agents.test_rules_of_thumb import compiled_scores
from zolik_env.rummy import rules

rule, path = sys.argv[1], sys.argv[2]
rule_set = rules.preset("cz")
rows = np.load(path)
held = rule == "held_row"


def measure():
    features = cf.card_features(rows, rule_set, held=held)
    scores = [compiled_scores(row, rule_set, DEFAULT_WEIGHTS) for row in rows]
    return features, scores


original = getattr(rules_of_thumb, rule)


def bumped(*args):
    out = original(*args)
    target = out if out is not None else args[-1]
    target[..., 7] += 30  # the 8 of spades
    return out


before = measure()
setattr(rules_of_thumb, rule, bumped)
after = measure()
column = {"keep_rows": cf.KEEP, "danger_row": cf.DANGER, "held_row": cf.HELD}[rule]
moved = after[0][:, column] != before[0][:, column]
print(json.dumps({
    "features_moved_7": bool(moved[:, 7].any()),
    "features_moved_other": bool(np.delete(moved, 7, axis=1).any()),
    "planner_moved_7": any(a.get(7) != b.get(7) for b, a in zip(before[1], after[1])
                           if 7 in b),
    "planner_moved_other": any(a[k] != b[k] for b, a in zip(before[1], after[1])
                               for k in b if k != 7),
}))
"""


def planted(rule, rows, tmp_path, source=PLANT):
    """Run ``source`` in a child with compilation off: the features and the compiled
    planner's discard scores before and after ``rule`` is bumped on the 8 of spades."""
    path = tmp_path / "rows.npy"
    np.save(path, rows)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", source, rule, str(path)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def positions():
    rule_set = rules.preset("cz")
    return np.stack(live_rows(played_positions(rule_set, deals=2, seed=1), rule_set))[:24]


@pytest.mark.parametrize("rule", ["keep_rows", "danger_row", "held_row"])
def test_a_change_planted_in_one_rule__moves_the_planner_and_the_features(rule, tmp_path):
    moved = planted(rule, positions(), tmp_path)
    assert moved == {"features_moved_7": True, "features_moved_other": False,
                     "planner_moved_7": True, "planner_moved_other": False}


def test_a_planner_with_its_own_copy_of_a_rule__is_caught(tmp_path):
    """The planted-change test fails when the planner binds its own copy of the rule."""
    own_copy = PLANT.replace(
        "before = measure()",
        "from agents.planner import choice_kernel\n"
        "choice_kernel.rules_of_thumb = type(rules_of_thumb)('copy')\n"
        "choice_kernel.rules_of_thumb.__dict__.update(vars(rules_of_thumb))\n"
        "before = measure()")
    moved = planted("keep_rows", positions(), tmp_path, own_copy)
    assert moved["features_moved_7"] and not moved["planner_moved_7"]
