"""pimc with truncated rollouts (``horizon=N``, ``value=NET``): a network values the deal
where the rollout stops."""

import numpy as np
import pytest

from agents.registry import make_agent
from agents.search import pimc
from tests.agents.test_net_search import LEAK_PAIRS, searched_pairs
from tests.agents.test_pimc import LeakyInfoState, PeekingPIMC, first_peek
from zolik_env.envs.zolik_common import SCORE_SCALE
from zolik_env.rummy import game, options
from zolik_env.rummy.belief import InfoState

CZ2 = options.preset("cz", num_players=2)
NET = "pretrained:cz_2p"


class CountingValue:
    """A value head that returns ``level`` and keeps the observations it was asked about."""

    def __init__(self, level=0.25):
        self.level, self.seen = level, []

    def values(self, obs):
        self.seen.append(np.asarray(obs).copy())
        return np.full(len(obs), self.level)


def started(seeds, moves=7):
    """Deals a few moves in, played by the planner."""
    planner = make_agent("planner", CZ2)
    state = game.init(CZ2, np.asarray(seeds))
    rng = np.random.default_rng(0)
    for _ in range(moves):
        obs = game.observe(CZ2, state, state.current)
        state = game.step(CZ2, state, planner.act_batch(obs, game.legal_action_mask(
            CZ2, state), rng))[0]
    return state


def test_play_to_horizon__beyond_every_deals_end_it_is_the_full_rollout():
    state = started(range(6))
    seat = 0
    full = pimc.margin(pimc.play_out(CZ2, state, make_agent("planner", CZ2),
                                     np.random.default_rng(3)), seat)
    value = CountingValue()
    cut = pimc.play_to_horizon(CZ2, state, make_agent("planner", CZ2),
                               np.random.default_rng(3), seat, 10_000, value)
    np.testing.assert_array_equal(cut, full)
    assert not value.seen  # no deal was cut


def test_play_to_horizon__one_turn_stops_at_the_seats_next_turn_and_scales_the_value():
    state = started(range(6))
    seat = 1
    value = CountingValue(0.25)
    cut = pimc.play_to_horizon(CZ2, state, make_agent("planner", CZ2),
                               np.random.default_rng(3), seat, 1, value)
    assert value.seen and sum(len(o) for o in value.seen) == 6  # every deal was cut
    # 2 players: the centred score is half the seat's margin over the other seat
    np.testing.assert_allclose(cut, 0.25 * SCORE_SCALE * 2)


def test_horizon_spec__a_network_values_the_cut_and_the_moves_still_come_from_the_search():
    agent = make_agent(f"pimc:rollouts=8,horizon=2,value={NET}", CZ2)
    assert agent.horizon == 2 and callable(agent.value.values)
    pairs = searched_pairs(make_agent(f"pimc:rollouts=4,prior={NET}:argmax", CZ2), limit=3)
    state = pairs[0][0]
    info = InfoState(CZ2, state, int(state.current[0]))
    move = agent.act_info(info, np.random.default_rng(1))
    assert info.legal_mask()[move]
    assert move == agent.act_info(info, np.random.default_rng(1))  # same seed, same move


def test_no_peek__truncated_rollouts_see_no_hidden_card_and_a_planted_leak_is_caught():
    spec = f"rollouts=4,horizon=1,value={NET},prior={NET}:argmax"
    more = searched_pairs(make_agent(f"pimc:{spec}", CZ2), limit=LEAK_PAIRS)
    pairs = more[:6]
    assert len(pairs) >= 4
    assert first_peek(lambda: pimc.make(CZ2, spec), CZ2, pairs) is None
    peeking = lambda: PeekingPIMC(CZ2, pimc.Budget(rollouts=4), prior=f"{NET}:argmax",  # noqa: E731
                                  horizon=1, value=NET)
    assert first_peek(peeking, CZ2, pairs) is None
    assert first_peek(peeking, CZ2, more, info_state=LeakyInfoState) is not None


@pytest.mark.parametrize(("spec", "message"), [
    ("pimc:horizon=2", "value 'planner' has no value head"),
    (f"pimc:value={NET}", "give horizon=N too"),
    ("pimc:horizon=-1,value=" + NET, "horizon='-1' must be at least 0"),
    ("pimc:horizon=1,value=greedy", "value 'greedy' has no value head"),
    ("pimc:horizon=1,value=pretrained:nope", "pimc: value 'pretrained:nope'"),
])
def test_bad_specs__one_line_naming_the_value(spec, message):
    with pytest.raises(ValueError, match=message) as error:
        make_agent(spec, CZ2)
    assert "\n" not in str(error.value)
