"""oracle: privileged yardsticks that see the true deal, and every place that refuses them."""

import numpy as np
import pytest

from agents.base import is_oracle_policy, is_search_policy
from agents.registry import is_privileged_spec, make_agent
from agents.search import oracle
from eval import harness
from eval.harness import play_match
from tests.agents.test_pimc import own_turn_states
from zolik_env.envs.zolik_common import opponent_actions
from zolik_env.rummy import game, options
from zolik_env.rummy.observe import obs_slices, observe
from zolik_env.rummy.piles import count_pile

CZ2 = options.preset("cz", num_players=2)


@pytest.mark.parametrize("preset", ["cz", "sk", "jolly"])
def test_oracle_planner__plays_legal_whole_deals_through_the_harness(preset):
    rules = options.preset(preset, num_players=2)
    agents = [make_agent("oracle:planner", rules), make_agent("planner", rules)]
    match = play_match(rules, agents, np.arange(3))  # an illegal move raises
    assert match.turns.min() > 0


def test_oracle_pimc__plays_legal_moves_from_the_true_deal():
    rules = options.preset("cz", num_players=2, max_turns=24)
    agents = [make_agent("oracle:pimc:rollouts=2,candidates=2", rules),
              make_agent("planner", rules)]
    match = play_match(rules, agents, np.arange(1))
    assert match.turns.min() > 0


def test_seen_view__tells_the_planner_the_other_hands_and_the_stock():
    rules = options.preset("cz", num_players=3)
    state = game.init(rules, [4])
    obs, mask = oracle.seen_view(rules, state)
    plain = observe(rules, state, state.current)[0]
    where = {name: (a, b) for name, a, b in obs_slices(rules)}
    seat = int(state.current[0])
    known = obs[slice(*where["known_taken"])].reshape(3, -1)
    for j in (1, 2):
        assert (known[j] == state.hands[0, (seat + j) % 3]).all()
    assert (known[0] == plain[slice(*where["known_taken"])].reshape(3, -1)[0]).all()
    assert (obs[slice(*where["unseen"])] == count_pile(state.stock, state.stock_len)[0]).all()
    rest = np.ones(obs.size, bool)
    for name in ("known_taken", "unseen"):
        rest[slice(*where[name])] = False
    assert (obs[rest] == plain[rest]).all()  # nothing else changes
    assert (mask == game.legal_action_mask(rules, state)[0]).all()


def test_oracle__is_a_third_kind_flagged_by_its_spec():
    for spec in ("oracle:planner", "oracle:planner:keep=0.8", "oracle:pimc:rollouts=4"):
        agent = make_agent(spec, CZ2)
        assert is_oracle_policy(agent) and is_privileged_spec(spec)
        assert agent.name == spec
    assert is_privileged_spec("seer=oracle:planner")
    assert not any(is_oracle_policy(make_agent(s, CZ2)) for s in ("planner", "pimc", "greedy"))
    assert not is_privileged_spec("planner") and not is_privileged_spec("pimc:rollouts=4")
    with pytest.raises(ValueError, match="'greedy'"):
        make_agent("oracle:greedy", CZ2)


@pytest.mark.parametrize("spec", ["oracle:planner", "oracle:pimc:rollouts=2"])
def test_oracle__refuses_every_seat_view(spec):
    from zolik_env.rummy.belief import InfoState

    agent = make_agent(spec, CZ2)
    state = game.init(CZ2, [0])
    obs, mask = observe(CZ2, state, state.current), game.legal_action_mask(CZ2, state)
    rng = np.random.default_rng(0)
    for call in (lambda: agent.act(obs[0], mask[0], rng),
                 lambda: agent.act_batch(obs, mask, rng),
                 lambda: agent.act_info(InfoState(CZ2, state, 0), rng)):
        with pytest.raises(ValueError, match="is an oracle: it sees every card"):
            call()


def test_oracle__refused_by_the_training_env_the_pool_and_the_config():
    from train.best_response import pool_entry
    from train.config import make_config
    from train.selfplay import OpponentPool

    state = game.init(CZ2, [0, 1])
    agent = make_agent("oracle:planner", CZ2)
    with pytest.raises(ValueError, match="is an oracle"):  # the envs' opponent seats
        opponent_actions(CZ2, state, np.zeros(2, np.int64), [agent], np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown entries"):  # a pool by spec
        make_config({"pool": {"oracle:planner": 1.0}})
    pool = OpponentPool(CZ2, {"agents.search.oracle:make:planner": 1.0}, 2, 0)  # by path
    with pytest.raises(ValueError, match="is an oracle"):
        pool.act(CZ2, state, pool.sample(2), np.random.default_rng(0))
    with pytest.raises(ValueError, match="is an oracle"):
        pool_entry("oracle:planner")


def test_oracle__refused_as_a_rollout_policy_and_by_the_web_table(tmp_path):
    from play.session import TableGame, agent_move

    for spec in ("pimc:policy=oracle:planner", "pimc:prior=oracle:planner"):
        with pytest.raises(ValueError, match="sees every card"):
            make_agent(spec, CZ2)
    with pytest.raises(ValueError, match="is an oracle"):
        agent_move(make_agent("oracle:planner", CZ2), CZ2, game.init(CZ2, [0]),
                   np.random.default_rng(0))
    table = TableGame.new(tmp_path, "cz", 2, ["greedy"], seed=2_000_000_600)
    assert int(table.state.current[0]) == table.human  # the human's turn: hints answer
    assert "id" in table.hint("planner")
    with pytest.raises(ValueError, match="is an oracle"):  # a hint is a seat's view
        table.hint("oracle:planner")


def harness_moves(policy, rules, state, twin):
    """The moves the evaluation harness gets from ``policy`` for the seat to act in
    ``state`` and in its counterfactual ``twin`` (same generator seed)."""
    moves = []
    for s in (state, twin):
        obs, mask = observe(rules, s, s.current), game.legal_action_mask(rules, s)
        gens = [np.random.default_rng(7)]
        moves.append(int(harness._choose(policy, obs, mask, np.zeros(1, np.int64), gens,
                                         (rules, s, np.zeros(1, np.int64)))[0]))
    return moves


def first_peek(build, rules, pairs):
    """The first counterfactual pair on which the harness's moves for ``build()`` differ."""
    for state, twin in pairs:
        first, second = harness_moves(build(), rules, state, twin)
        if first != second:
            return state
    return None


def test_no_peek__the_counterfactual_test_catches_the_oracles_and_passes_the_players():
    """The counterfactual no-peek test, on the harness's own dispatch: players (the
    planner from its observation, pimc from its information state) make the same move in
    states that differ only in cards the seat cannot see; the oracles, which the harness
    gives the deal, do not, and the test fails on them, as it must."""
    rules = options.preset("cz", num_players=2, max_turns=16)
    pairs = own_turn_states(rules, deals=3)
    assert len(pairs) >= 20
    assert first_peek(lambda: make_agent("planner", rules), rules, pairs) is None
    searched = lambda: make_agent("pimc:rollouts=4", rules)  # noqa: E731
    assert is_search_policy(searched())
    assert first_peek(searched, rules, pairs[:12]) is None
    assert first_peek(lambda: make_agent("oracle:pimc:rollouts=4", rules), rules,
                      pairs) is not None
    assert first_peek(lambda: make_agent("oracle:planner", rules), rules, pairs) is not None
