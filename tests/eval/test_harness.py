"""Duplicate matches: seat rotations, every agent gets every hand, determinism."""

import numpy as np
import pytest

from agents.random_policy import RandomPolicy
from eval.harness import (
    concat_results,
    play_dice,
    play_match,
    play_to_end,
    seat_rotations,
)
from tests.eval.policies import MeldFirst, Recorder
from zolik_env.rummy import game
from zolik_env.rummy.options import preset

SEEDS = 2_000_000_000 + np.arange(6)


@pytest.mark.parametrize("agents, players", [(2, 2), (2, 3), (2, 4), (3, 3), (4, 4), (3, 4)])
def test_seat_rotations__every_agent_sits_at_every_seat_equally_often(agents, players):
    rotations = seat_rotations(agents, players)
    for a in range(agents):
        assert (rotations == a).any(0).all(), (a, rotations)
    seats_held = [(rotations == a).sum() for a in range(agents)]
    assert len(set(seats_held)) == 1, seats_held
    assert len({tuple(r) for r in rotations}) == len(rotations)


def test_seat_rotations__documented_schemes():
    assert seat_rotations(2, 4).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert seat_rotations(3, 3).tolist() == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert seat_rotations(2, 3).tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1],
                                             [1, 0, 1], [0, 1, 1], [1, 1, 0]]
    assert len(seat_rotations(3, 4)) == 12
    with pytest.raises(ValueError, match="cannot share"):
        seat_rotations(3, 2)


@pytest.mark.parametrize("players", [2, 4])
def test_play_match__every_agent_gets_every_dealt_hand(players):
    rules = preset("cz", num_players=players)
    first, second = Recorder(), Recorder()
    play_match(rules, [first, second], SEEDS[:3])
    dealt = game.init(rules, SEEDS[:3]).hands.reshape(-1, 53)  # every seat of every deal
    for recorder in (first, second):
        seen = {h.tobytes() for h in np.asarray(recorder.first_hands, np.int8)}
        missing = [i for i, h in enumerate(dealt) if h.tobytes() not in seen]
        assert not missing, f"{recorder.name} never held dealt hands {missing}"


def test_play_match__outcomes_are_the_core_scores_oriented():
    rules = preset("cz")
    match = play_match(rules, [MeldFirst(), RandomPolicy()], SEEDS)
    assert match.scores.shape == (6, 2, 2)
    np.testing.assert_array_equal(match.rewards, -match.scores)  # cz: lower is better
    won = match.winner >= 0
    assert won.any()
    assert not (won & match.truncated).any()
    # MeldFirst (agent 0) goes out in most games; the seat that went out opened
    out_seats = match.rotations[None].repeat(6, 0)[won, match.winner[won]]
    assert (out_seats == 0).mean() > 0.5
    assert match.opened[won, match.winner[won]].all()


def test_play_match__same_deals_same_outcome_in_any_batch():
    rules = preset("jolly")
    whole = play_match(rules, [RandomPolicy(), RandomPolicy()], SEEDS, seed=3)
    parts = concat_results([play_match(rules, [RandomPolicy(), RandomPolicy()], SEEDS[i:i + 2],
                                       seed=3) for i in range(0, 6, 2)])
    for field in ("scores", "opened", "winner", "turns"):
        np.testing.assert_array_equal(getattr(whole, field), getattr(parts, field))
    other = play_match(rules, [RandomPolicy(), RandomPolicy()], SEEDS, seed=4)
    assert not np.array_equal(whole.turns, other.turns)  # the eval seed matters


def test_play_match__chunk_scope_is_reproducible():
    rules = preset("cz")
    runs = [play_match(rules, [RandomPolicy(), RandomPolicy()], SEEDS, rng_scope="chunk")
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0].scores, runs[1].scores)


class ThreadCounter(RandomPolicy):
    """Random play that notes torch's thread count each time it acts."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def act_batch(self, obs, mask, rng):
        import torch

        self.seen.add(torch.get_num_threads())
        return super().act_batch(obs, mask, rng)


def test_play_match__networks_act_on_one_torch_thread_and_the_count_comes_back():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        counter = ThreadCounter()
        play_match(preset("cz"), [counter, RandomPolicy()], SEEDS[:2], rng_scope="chunk")
        assert counter.seen == {1}  # small batches: more threads only contend for the cores
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


class Illegal(RandomPolicy):
    name = "cheater"

    def act_batch(self, obs, mask, rng):
        return np.argmin(mask, axis=1).astype(np.int64)


def test_play_match__illegal_action_names_the_agent():
    with pytest.raises(ValueError, match="cheater"):
        play_match(preset("cz"), [RandomPolicy(), Illegal()], SEEDS[:2])


def test_play_match__explicit_rotations_and_shared_generator():
    rules = preset("cz", num_players=2)
    a, b = RandomPolicy(), RandomPolicy()
    one = play_match(rules, [a, b], SEEDS[:3], rng_scope="shared", rotations=[[1, 0]], seed=7)
    again = play_match(rules, [a, b], SEEDS[:3], rng_scope="shared", rotations=[[1, 0]], seed=7)
    assert one.rotations.tolist() == [[1, 0]] and one.rewards.shape == (3, 1, 2)
    assert np.array_equal(one.rewards, again.rewards) and np.array_equal(one.turns, again.turns)
    with pytest.raises(ValueError, match="rng_scope"):
        play_match(rules, [a, b], SEEDS[:1], rng_scope="game")


def test_play_to_end__final_states_in_seed_order_whatever_the_end_order():
    rules = preset("cz", num_players=2)
    seat_agent = np.zeros((SEEDS.size, 2), np.int64)
    gens = [[np.random.default_rng(0)]]
    final = play_to_end(game, rules, [MeldFirst()], seat_agent, SEEDS, gens)
    assert final.done.all() and final.batch_size == SEEDS.size
    assert len(set(final.turn.tolist())) > 1  # the games ended at different steps
    for i in (0, 3, 5):  # each game alone ends in the same state
        alone = play_to_end(game, rules, [MeldFirst()], seat_agent[:1], SEEDS[i:i + 1], gens)
        assert np.array_equal(final.take([i]).scores, alone.scores)
        assert np.array_equal(final.take([i]).turn, alone.turn)


def test_play_dice__plays_every_game_to_the_end_in_any_batch():
    from agents.dice.players import OptimalAgent, RandomAgent
    from zolik_env.dice import DiceRules

    rules = DiceRules()
    best = play_dice(rules, OptimalAgent(rules), 40, seed=3, batch=16)
    assert best.scores.shape == (40,) and (best.boxes >= 0).all()
    same = play_dice(rules, OptimalAgent(rules), 40, seed=3, batch=40)
    assert np.array_equal(best.scores, same.scores)  # the dice depend on the game seed only
    rand = play_dice(rules, RandomAgent(), 40, seed=3, batch=16)
    assert np.array_equal(rand.scores, play_dice(rules, RandomAgent(), 40, seed=3, batch=16).scores)
    assert best.scores.mean() > rand.scores.mean()
