"""``docs/style.md`` §10, "Adding an agent", followed step by step on a new agent.

Step 1 writes a module into a role subpackage of ``agents`` (a temporary folder added to
that subpackage's path, so the repository is not touched), step 2 adds its one registry
line, step 3 plays whole deals with it under every preset, and the layering rule of the
guide is checked on the new module's imports.
"""

import textwrap

import pytest

import agents.planner
from agents import registry
from tests.agents.play import play_deal
from tests.test_layering import AGENT_ROLES, imported_names, role_of
from zolik_env.rummy import rules

GUIDE_STEPS = ("A module in the right role of `agents/`", "`agents/registry.py`: one line in "
               "`AGENTS`", "A test in `tests/agents/test_<module>.py`")

# step 1: a planner-role agent that discards greedy's choice but always draws
NEW_AGENT = '''
"""``draw_greedy``: greedy's discard, always drawing from the stock (a walk-through agent)."""

import numpy as np

from agents.base import BatchedFromSingle
from agents.planner.greedy import make as make_greedy
from zolik_env.rummy import actions as A


class DrawGreedy(BatchedFromSingle):
    name = "draw_greedy"

    def __init__(self, rules):
        self.greedy = make_greedy(rules)

    def act(self, obs, mask, rng):
        if mask[A.DRAW_STOCK]:
            return A.DRAW_STOCK
        return self.greedy.act(obs, mask, rng)


def make(rules, argument=""):
    if argument:
        raise ValueError(f"agent 'draw_greedy' takes no argument, got {argument!r}")
    return DrawGreedy(rules)
'''


def test_the_guide__still_has_the_steps_this_test_follows():
    from tests.test_layering import ROOT

    guide = (ROOT / "docs" / "style.md").read_text(encoding="utf-8")
    section = guide[guide.index("### Adding an agent"):]
    assert all(step in section for step in GUIDE_STEPS)


@pytest.fixture
def new_agent(tmp_path, monkeypatch):
    """Steps 1 and 2: the module in ``agents/planner/`` and its registry line."""
    (tmp_path / "draw_greedy.py").write_text(textwrap.dedent(NEW_AGENT), encoding="utf-8")
    monkeypatch.setattr(agents.planner, "__path__", [*agents.planner.__path__, str(tmp_path)])
    monkeypatch.setitem(registry.AGENTS, "draw_greedy", "agents.planner.draw_greedy:make")
    return tmp_path / "draw_greedy.py"


@pytest.mark.parametrize("preset", ["cz", "sk", "jolly"])
def test_step_3__the_new_agent_plays_whole_deals_by_its_spec(new_agent, preset):
    rule_set = rules.preset(preset)
    mine = registry.make_agent("draw_greedy", rule_set)
    state, actions = play_deal(rule_set, [mine, registry.make_agent("greedy", rule_set)], 3)
    assert bool(state.done[0]) and len(actions) > 20  # every move checked legal
    assert type(mine).__module__ == "agents.planner.draw_greedy" and mine.name == "draw_greedy"
    with pytest.raises(ValueError, match="takes no argument, got 'x'"):
        registry.make_agent("draw_greedy:x", rule_set)


def test_the_layering_rule__holds_for_the_new_module(new_agent):
    name = "agents.planner.draw_greedy"
    imported = {n.rpartition(".")[0] if n.split(".")[-1][0].isupper() or n.endswith("make")
                else n for n in imported_names(new_agent, name)}
    own = [n for n in imported if n.startswith("agents.")]
    assert own and all(role_of(n) <= role_of(name) for n in own), own
    assert AGENT_ROLES[role_of(name)] == "planner"
    # the rule would catch an upward import: the learned role sits above the planner
    assert role_of("agents.learned.ppo") > role_of(name)
