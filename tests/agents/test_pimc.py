"""pimc: determinized rollouts over sampled worlds, on the batched core."""

import time

import numpy as np
import pytest

from agents.base import is_search_policy
from agents.registry import make_agent
from agents.search import pimc
from eval.harness import play_match
from tests.envs.test_no_peek import hidden_swap, sampled_states
from zolik_env.rummy import actions as A
from zolik_env.rummy import game, options
from zolik_env.rummy.belief import InfoState

CZ2 = options.preset("cz", num_players=2)


def own_turn_states(rules, deals=2, every=3, seed=0):
    """(state, counterfactual) pairs at the seat to act's decisions along random deals;
    the counterfactual differs only in cards that seat cannot see."""
    rng = np.random.default_rng(seed)
    out = []
    for state in sampled_states(rules, deals, every, seed):
        if state.done[0]:
            continue
        twin = hidden_swap(state, int(state.current[0]), rng)
        if twin is not None:
            out.append((state, twin))
    return out


def first_peek(build, rules, pairs, info_state=InfoState):
    """The first state whose counterfactual twin gets another move (same seed, a fresh agent
    from ``build`` each: its caches hold its history), or None: an agent given only an
    InfoState cannot tell them apart."""
    for state, twin in pairs:
        seat = int(state.current[0])
        moves = [build().act_info(info_state(rules, s, seat), np.random.default_rng(7))
                 for s in (state, twin)]
        if moves[0] != moves[1]:
            return state
    return None


class PeekingPIMC(pimc.PIMCPolicy):
    """An agent that tries to peek: seeds its worlds with the hands its InfoState holds."""

    def search(self, info, options, seed):
        hidden = info._deal.hands[0].astype(np.int64)
        others = np.delete(hidden, info.seat, axis=0)
        return super().search(info, options, seed + int((others * np.arange(53)).sum()))


def test_no_peek__hidden_cards_change_no_move_and_a_planted_leak_is_caught():
    rules = options.preset("cz", num_players=2, max_turns=16)
    pairs = own_turn_states(rules)
    searched = [p for p in pairs if len(pimc.make(rules, "rollouts=4").candidates(
        *_obs_mask(rules, p[0]), _planner_move(rules, p[0]))) > 1]
    assert len(searched) >= 10  # the comparison covers real searches
    assert first_peek(lambda: pimc.make(rules, "rollouts=4"), rules, searched) is None
    peeking = lambda: PeekingPIMC(rules, pimc.Budget(rollouts=4))  # noqa: E731
    # the InfoState holds a sampled world, not the deal: reading it finds nothing
    assert first_peek(peeking, rules, searched) is None
    # a planted leak, an InfoState that kept the true deal, is caught
    assert first_peek(peeking, rules, searched, info_state=LeakyInfoState) is not None


class LeakyInfoState(InfoState):
    """A planted leak: keeps the true deal where InfoState keeps a sampled world."""

    __slots__ = ()

    def __init__(self, rules, state, seat):
        super().__init__(rules, state, seat)
        self._deal = state


def _obs_mask(rules, state):
    info = InfoState(rules, state, int(state.current[0]))
    return info.observation(), info.legal_mask()


def _planner_move(rules, state):
    obs, mask = _obs_mask(rules, state)
    return make_agent("planner", rules).act(obs, mask, np.random.default_rng(0))


def test_one_candidate__plays_exactly_as_its_rollout_policy():
    seeds = np.arange(3)
    alone = play_match(CZ2, [make_agent("pimc:candidates=1", CZ2),
                             make_agent("planner", CZ2)], seeds)
    planners = play_match(CZ2, [make_agent("planner", CZ2), make_agent("planner", CZ2)], seeds)
    np.testing.assert_array_equal(alone.rewards, planners.rewards)
    np.testing.assert_array_equal(alone.turns, planners.turns)


def test_search__a_seed_repeats_its_moves_and_every_move_is_legal():
    rules = options.preset("sk", num_players=3, max_turns=12)
    agent = make_agent("pimc:rollouts=4,candidates=3", rules)
    first = play_match(rules, [agent, make_agent("greedy", rules)], [11], seed=3)
    again = play_match(rules, [agent, make_agent("greedy", rules)], [11], seed=3)
    np.testing.assert_array_equal(first.rewards, again.rewards)
    np.testing.assert_array_equal(first.turns, again.turns)


def test_play_out__matches_the_harness_from_the_deal():
    seeds = np.arange(4)
    planner = make_agent("planner", CZ2)
    rewards = pimc.play_out(CZ2, game.init(CZ2, seeds), planner, np.random.default_rng(0))
    match = play_match(CZ2, [planner, make_agent("planner", CZ2)], seeds,
                       rotations=np.array([[0, 1]]))
    np.testing.assert_array_equal(rewards, match.rewards[:, 0])


def test_candidates__the_policy_move_first_then_draws_or_ranked_discards():
    rules = options.preset("sk", num_players=2, max_turns=40)
    agent = pimc.make(rules, "candidates=3")
    for state, _ in own_turn_states(rules, deals=2, every=2):
        obs, mask = _obs_mask(rules, state)
        move = _planner_move(rules, state)
        options_ = agent.candidates(obs, mask, move)
        assert options_[0] == move and len(set(options_)) == len(options_) <= 3
        assert all(mask[a] for a in options_)
        if move < A.MELD_BASE:
            assert all(a < A.MELD_BASE for a in options_)
        elif move >= A.DISCARD_BASE:
            assert all(a >= A.DISCARD_BASE for a in options_)
        else:
            assert options_ == [move]


def meld_states(rules, prior, deals=6):
    """States where ``prior`` (an agent) would meld, lay off, swap a joker or undo, with its
    move and the planner's there."""
    out = []
    for state, _ in own_turn_states(rules, deals=deals, every=1):
        obs, mask = _obs_mask(rules, state)
        move = int(prior.act(obs, mask, np.random.default_rng(0)))
        if A.MELD_BASE <= move < A.DISCARD_BASE:
            out.append((state, move, int(_planner_move(rules, state))))
    return out


def test_melds__the_rollout_policys_move_challenges_the_priors_meld_only_when_asked():
    rules = options.preset("cz", num_players=2, max_turns=60)
    asked = pimc.make(rules, "prior=greedy,melds=1,rollouts=8")
    plain = pimc.make(rules, "prior=greedy,rollouts=8")
    states = meld_states(rules, make_agent("greedy", rules))
    assert any(move != planner for _, move, planner in states)  # the test sees a challenge
    for state, move, planner in states:
        obs, mask = _obs_mask(rules, state)
        assert plain.candidates(obs, mask, move) == [move]
        assert asked.candidates(obs, mask, move) == list(dict.fromkeys([move, planner]))
        info = InfoState(rules, state, int(state.current[0]))
        assert asked.act_info(info, np.random.default_rng(1)) in (move, planner)


def test_melds__without_another_prior_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"melds=1.*prior="):
        make_agent("pimc:melds=1", CZ2)


def test_search__candidates_share_worlds_and_a_tie_keeps_the_policy_move():
    """Two copies of one move score the same in every world (the moves of a step play the
    same worlds), so the search never overrules its policy with a copy of its own move."""
    rules = options.preset("cz", num_players=2, max_turns=40)
    agent = pimc.make(rules, "rollouts=12,candidates=4,z=0")
    state, _ = next(p for p in own_turn_states(rules) if p[0].phase[0] == 1
                    and _planner_move(rules, p[0]) >= A.DISCARD_BASE
                    and len(agent.candidates(*_obs_mask(rules, p[0]),
                                             _planner_move(rules, p[0]))) >= 3)
    info = InfoState(rules, state, int(state.current[0]))
    ranked = agent.candidates(*_obs_mask(rules, state), _planner_move(rules, state))
    margins = agent.evaluate(info, [ranked[0], ranked[0], ranked[1]], info.worlds(8, seed=9),
                             np.random.default_rng(0))
    np.testing.assert_array_equal(margins[0], margins[1])
    assert margins.shape == (3, 8)
    verdict = agent.search(info, [ranked[0], ranked[0]], seed=5)
    assert (verdict.choice, verdict.gain, verdict.stderr) == (0, 0.0, 0.0)


@pytest.mark.parametrize(("gains", "z", "choice"), [
    ([5.0, 6.0, 4.0, 5.0], 1.0, 3),  # clearly better: the challenger
    ([30.0, -20.0, 25.0, -30.0], 1.0, 0),  # above zero on average, within the noise
    ([30.0, -20.0, 25.0, -30.0], 0.0, 3),  # z = 0: any positive mean
    ([0.0, 0.0], 0.0, 0),  # a tie keeps the policy's move
    ([-1.0, -2.0], 0.0, 0),
])
def test_verdict__overrules_the_policy_only_by_more_than_z_standard_errors(gains, z, choice):
    assert pimc.Verdict.of(3, np.array(gains), z).choice == choice


def test_time_budget__spends_about_its_seconds():
    agent = pimc.make(CZ2, "seconds=0.2")
    state, _ = next(p for p in own_turn_states(CZ2) if len(agent.candidates(
        *_obs_mask(CZ2, p[0]), _planner_move(CZ2, p[0]))) > 1)
    info = InfoState(CZ2, state, int(state.current[0]))
    start = time.perf_counter()
    move = agent.act_info(info, np.random.default_rng(0))
    spent = time.perf_counter() - start
    assert info.legal_mask()[move]
    assert spent >= 0.2


@pytest.mark.parametrize(("argument", "named"), [
    ("rollouts=0", "rollouts='0'"), ("rollouts=x", "rollouts='x'"),
    ("seconds=-1", "seconds='-1'"), ("seconds=nan", "seconds='nan'"),
    ("candidates=0", "candidates='0'"), ("depth=3", "'depth=3'"), ("rollouts", "'rollouts'"),
    ("z=-1", "z='-1'"), ("melds=2", "melds='2'"),
    ("policy=bogus", "'bogus'"), ("policy=pimc", "'pimc'"),
])
def test_bad_arguments__name_the_value(argument, named):
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        make_agent(f"pimc:{argument}", CZ2)


def test_observation_only_callers__get_a_message_not_a_wrong_move():
    agent = make_agent("pimc", CZ2)
    assert is_search_policy(agent)
    obs, mask = _obs_mask(CZ2, game.init(CZ2, [0]))
    with pytest.raises(ValueError, match="information state"):
        agent.act(obs, mask, np.random.default_rng(0))
    with pytest.raises(ValueError, match="information state"):
        agent.act_batch(obs[None], mask[None], np.random.default_rng(0))


@pytest.mark.parametrize("policy", ["random", "greedy", "pretrained:cz_2p:argmax"])
def test_rollout_policies__any_observation_agent_rolls_out(policy):
    network = policy.startswith("pretrained")  # the bot's own rules, whole deals: few states
    rules = options.preset("cz", num_players=2, **({} if network else {"max_turns": 10}))
    agent = make_agent(f"pimc:rollouts=4,candidates=3,policy={policy}", rules)
    searched = 0
    for state, _ in own_turn_states(rules, deals=1, every=3)[:3 if network else 24]:
        info = InfoState(rules, state, int(state.current[0]))
        obs, mask = info.observation(), info.legal_mask()
        move = agent.act_info(info, np.random.default_rng(1))
        assert mask[move]
        searched += len(agent.candidates(obs, mask, int(agent.prior.act(
            obs, mask, np.random.default_rng(1))))) > 1
    assert searched >= 1
