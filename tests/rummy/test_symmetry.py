"""Suit symmetry (``zolik_env.rummy.symmetry``): a deal with its suits renamed is seen,
allowed and played as the deal itself renamed, under every preset and 2-4 players; a
renaming that is not one is caught."""

import numpy as np
import pytest

from zolik_env.rummy import game, rules
from zolik_env.rummy.actions import (
    DISCARD_BASE,
    LAYOFF_BASE,
    MELD_BASE,
    NUM_ACTIONS,
    RUN,
    SET,
    action_to_string,
    string_to_action,
)
from zolik_env.rummy.observe import critic_view, observe
from zolik_env.rummy.state import FIELD_NAMES
from zolik_env.rummy.symmetry import (
    IDENTITY,
    SUIT_PERMUTATIONS,
    action_map,
    kind_map,
    permute_counts,
    permute_masks,
    permute_observations,
    permute_state,
)

VARIANTS = [(name, p) for name in rules.PRESETS for p in (2, 3, 4)]
HEARTS_TO_DIAMONDS = (0, 2, 1, 3)  # S H D C -> S D H C


def test_action_map__renames_the_cards_a_move_names():
    moves = {"discard 5H": "discard 5D", "discard JK": "discard JK",
             "draw stock": "draw stock", "meld 5H 6H 7H": "meld 5D 6D 7D",
             "meld 9S 9H 9C": "meld 9S 9D 9C", "meld 9S 9H 9D": "meld 9S 9H 9D",
             "meld 4H JK 6H": "meld 4D JK 6D", "layoff 8H on 3": "layoff 8D on 3",
             "layoff AH on 2 high": "layoff AD on 2 high",
             "layoff JK on 4 low": "layoff JK on 4 low"}
    amap = action_map(HEARTS_TO_DIAMONDS)
    for move, renamed in moves.items():
        assert action_to_string(int(amap[string_to_action(move)])) == renamed, move


def test_action_map__is_a_permutation_that_composes_like_the_suits():
    rng = np.random.default_rng(0)
    assert np.array_equal(action_map(IDENTITY), np.arange(NUM_ACTIONS))
    for _ in range(10):
        p, q = (SUIT_PERMUTATIONS[i] for i in rng.integers(0, len(SUIT_PERMUTATIONS), 2))
        assert np.array_equal(np.sort(action_map(p)), np.arange(NUM_ACTIONS))
        both = tuple(q[p[s]] for s in range(4))  # p first, then q
        assert np.array_equal(action_map(q)[action_map(p)], action_map(both))
        assert np.array_equal(kind_map(q)[kind_map(p)], kind_map(both))


@pytest.mark.parametrize("bad", [(0, 1, 2), (0, 0, 1, 2), (0, 1, 2, 4)])
def test_bad_permutation__is_a_one_line_error(bad):
    with pytest.raises(ValueError, match="give each of the suits"):
        action_map(bad)


def _choose(rng, mask):
    """A random legal move per deal, preferring table moves so that tables fill up."""
    out = np.zeros(len(mask), np.int64)
    for b, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if not legal.size:
            continue
        table = legal[(legal >= MELD_BASE) & (legal < DISCARD_BASE)]
        out[b] = rng.choice(table if table.size and rng.random() < 0.7 else legal)
    return out


def _same(x, y):
    return all(getattr(x, n).tobytes() == getattr(y, n).tobytes() for n in FIELD_NAMES)


def _agrees(r, state, actions, perm, rename=permute_state):
    """Whether the renamed deals see, allow and play as the deals renamed (the first
    difference's name, or "")."""
    renamed = rename(state, perm)
    seats = state.current.astype(np.int64)
    if not np.array_equal(observe(r, renamed, seats),
                          permute_observations(r, observe(r, state, seats), perm)):
        return "observation"
    if not np.array_equal(critic_view(r, renamed, seats),
                          permute_counts(critic_view(r, state, seats), perm)):
        return "critic view"
    if not np.array_equal(game.legal_action_mask(r, renamed),
                          permute_masks(game.legal_action_mask(r, state), perm)):
        return "legal moves"
    after, out = game.step(r, state, actions)
    after_renamed, out_renamed = game.step(r, renamed, action_map(perm)[actions])
    if not _same(after_renamed, permute_state(after, perm)):
        return "next state"
    if not np.array_equal(out.rewards, out_renamed.rewards):
        return "rewards"
    return ""


@pytest.mark.parametrize("name,players", VARIANTS)
def test_renamed_deal__is_seen_allowed_and_played_as_the_deal_renamed(name, players):
    r = rules.preset(name, num_players=players)
    rng = np.random.default_rng(players)
    state = game.init(r, np.arange(12) + 700 * players)
    seen = {"sets": 0, "runs": 0, "layoffs": 0}
    for _ in range(400):
        actions = _choose(rng, game.legal_action_mask(r, state))
        perm = SUIT_PERMUTATIONS[rng.integers(1, len(SUIT_PERMUTATIONS))]
        assert _agrees(r, state, actions, perm) == ""
        seen["sets"] += int((state.meld_kind == SET).sum())
        seen["runs"] += int((state.meld_kind == RUN).sum())
        seen["layoffs"] += int(((actions >= LAYOFF_BASE) & (actions < DISCARD_BASE - 1)).sum())
        state = game.step(r, state, actions)[0]
        if state.done.all():
            break
    assert min(seen.values()) > 0, seen  # the deals reached sets, runs and lay-offs


def test_planted_asymmetry__a_renaming_that_misses_the_hands_is_caught():
    r = rules.preset("cz", num_players=2)
    state = game.init(r, np.arange(4))
    actions = _choose(np.random.default_rng(0), game.legal_action_mask(r, state))

    def hands_left_alone(s, perm):
        return permute_state(s, perm).replace(hands=s.hands)

    assert _agrees(r, state, actions, HEARTS_TO_DIAMONDS) == ""
    assert _agrees(r, state, actions, HEARTS_TO_DIAMONDS, rename=hands_left_alone) != ""


def test_permute_observations__refuses_observations_with_features():
    r = rules.preset("cz", num_players=2)
    obs = observe(r, game.init(r, [1]), 0)
    with pytest.raises(ValueError, match="plain observations"):
        permute_observations(r, np.concatenate([obs, obs], axis=1), IDENTITY)
