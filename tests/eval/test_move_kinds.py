"""Where an agent gains on the planner, by kind of move (``eval.move_kinds``)."""

import numpy as np
import pytest

from agents import kind_swap as ks
from agents.registry import make_agent
from eval import move_kinds as mk
from eval.harness import play_match
from zolik_env.rummy import actions as A
from zolik_env.rummy import options

CZ2 = options.preset("cz", num_players=2, max_turns=30)


def test_kind_of__every_action_has_one_kind_and_the_ranges_meet():
    kinds = ks.kind_of(np.arange(A.NUM_ACTIONS))
    assert kinds.min() == 0 and kinds.max() == len(ks.KINDS) - 1
    assert (np.diff(kinds) >= 0).all()  # ranges in order, no gaps
    names = list(ks.KINDS)
    assert names[ks.kind_of(np.array([A.DRAW_STOCK]))[0]] == "draw"
    assert names[ks.kind_of(np.array([A.MELD_BASE]))[0]] == "meld"
    assert names[ks.kind_of(np.array([A.UNDO]))[0]] == "undo"
    assert names[ks.kind_of(np.array([A.NUM_ACTIONS - 1]))[0]] == "discard"


def test_kind_swap__every_kind_swapped_plays_the_planners_game():
    seeds = np.arange(6)
    planner = make_agent("planner", CZ2)
    swapped = ks.KindSwap(make_agent("greedy", CZ2), make_agent("planner", CZ2),
                          range(len(ks.KINDS)))
    mixed = play_match(CZ2, [swapped, make_agent("planner", CZ2)], seeds)
    alone = play_match(CZ2, [planner, make_agent("planner", CZ2)], seeds)
    np.testing.assert_array_equal(mixed.rewards, alone.rewards)
    assert swapped.differ.sum() > 0  # greedy's moves were replaced, not just the same


def test_study__the_planner_against_itself_differs_nowhere_and_is_worth_nothing():
    rows = mk.study(CZ2, "planner", deals=4, kinds=("draw", "discard"))
    assert [r["kind"] for r in rows] == ["all", "draw", "discard"]
    assert all(r["differ"] == 0 and r["worth"] == 0 for r in rows)
    assert rows[1]["moves"] > 0 and rows[2]["moves"] > 0


def test_study__greedy_differs_from_the_planner_and_its_discards_cost_points():
    rows = {r["kind"]: r for r in mk.study(CZ2, "greedy", deals=12, kinds=("discard",))}
    assert rows["all"]["worth"] < 0 and rows["discard"]["differ"] > 0
    assert rows["discard"]["worth"] < 0  # greedy's own discards lose to the planner's


def test_study__an_unknown_kind_is_named():
    with pytest.raises(ValueError, match="'shuffle'"):
        mk.study(CZ2, "planner", deals=1, kinds=("shuffle",))


@pytest.mark.parametrize("agent", ["pimc:rollouts=2", "oracle:planner"])
def test_study__a_search_or_an_oracle_is_refused_by_name(agent):
    with pytest.raises(ValueError, match=f"agent '{agent}' does not act on an observation"):
        mk.study(CZ2, agent, deals=1)


def test_swap_spec__the_planners_draws_in_a_greedy_player_and_bad_specs_named():
    agent = make_agent("swap:net=greedy,kinds=draw+discard", CZ2)
    assert list(agent.swapped) == [0, 5] and agent.name == "swap:net=greedy,kinds=draw+discard"
    all_kinds = "+".join(ks.KINDS)
    mixed = play_match(CZ2, [make_agent(f"swap:net=greedy,kinds={all_kinds}", CZ2),
                             make_agent("planner", CZ2)], np.arange(3))
    alone = play_match(CZ2, [make_agent("planner", CZ2), make_agent("planner", CZ2)],
                       np.arange(3))
    np.testing.assert_array_equal(mixed.rewards, alone.rewards)
    with pytest.raises(ValueError, match="swap: kind 'shuffle'"):
        make_agent("swap:net=greedy,kinds=shuffle", CZ2)
    with pytest.raises(ValueError, match="swap: give the agent"):
        make_agent("swap:kinds=draw", CZ2)
    with pytest.raises(ValueError, match="does not act on an observation alone"):
        make_agent("swap:net=pimc:rollouts=2,kinds=draw", CZ2)


CZ2_FULL = options.preset("cz", num_players=2)  # the rules the shipped bot plays


def _rewards(agent: str, seeds: np.ndarray) -> np.ndarray:
    return play_match(CZ2_FULL, [make_agent(agent, CZ2_FULL), make_agent("planner", CZ2_FULL)],
                      seeds).rewards


def test_swap_margin__zero_keeps_a_likeliest_move_player_and_a_huge_one_is_the_planner():
    seeds = np.arange(4)
    net = "pretrained:cz_2p:argmax"
    planner = _rewards("planner", seeds)
    # its likeliest move is never less likely than the planner's: a margin of 0 keeps it
    np.testing.assert_array_equal(_rewards(f"swap:net={net},kinds=all,margin=0", seeds),
                                  _rewards(net, seeds))
    np.testing.assert_array_equal(_rewards(f"swap:net={net},kinds=all,margin=1e9", seeds),
                                  planner)
    middle = make_agent(f"swap:net={net},kinds=all,margin=2", CZ2_FULL)
    assert middle.margin == 2.0 and list(middle.swapped) == list(range(len(ks.KINDS)))


def test_swap_margin__a_middle_margin_keeps_some_departures_and_swaps_others():
    net = make_agent("pretrained:cz_2p", CZ2_FULL)  # as it plays: averaged over renamings
    swap = ks.KindSwap(net, make_agent("planner", CZ2_FULL), range(len(ks.KINDS)), margin=2.0)
    kept = []
    inner = swap.act_batch

    def spy(obs, mask, rng):
        moves = inner(obs, mask, rng)
        theirs = make_agent("planner", CZ2_FULL).act_batch(obs, mask, rng)
        kept.append(int((moves != theirs).sum()))
        return moves

    swap.act_batch = spy
    play_match(CZ2_FULL, [swap, make_agent("planner", CZ2_FULL)], np.arange(6))
    assert sum(kept) > 0  # some sure departures stay
    assert swap.differ.sum() > sum(kept)  # and some unsure ones were swapped


@pytest.mark.parametrize("margin", ["-1", "x", "nan"])
def test_swap_margin__bad_values_and_agents_without_a_distribution_are_named(margin):
    with pytest.raises(ValueError, match=f"swap: margin='{margin}'"):
        make_agent(f"swap:net=pretrained:cz_2p,kinds=all,margin={margin}", CZ2_FULL)
    with pytest.raises(ValueError, match="'greedy' gives no move distribution"):
        make_agent("swap:net=greedy,kinds=all,margin=1", CZ2_FULL)
