"""Suit symmetry: the rules treat the four suits alike, so a deal whose suits are renamed
plays as the deal itself does, move for renamed move.

    perm = SUIT_PERMUTATIONS[5]                  # new suit of each suit, S H D C order
    obs2 = permute_observations(rules, obs, perm)  # what the seat sees in the renamed deal
    mask2 = permute_masks(mask, perm)
    move2 = action_map(perm)[move]               # the same move in the renamed deal

A renaming maps a natural card to the card of the same rank in the new suit and leaves the
joker alone; a run keeps its cells and takes the new suit as its key; a set keeps its rank
and moves its naturals to their new suits' cells (the set's joker keeps its own cell). Meld
slots, seats, piles' order and every count stay where they are.

What it is for: a label of one deal is a label of its 23 renamed deals too, so expert
iteration can teach a network every search label in several suit renamings
(``train.suit_copies``), as board games use their board's symmetries.
``tests/rummy/test_symmetry.py`` checks, on random deals of every preset, that the renamed
deal's observation, legal moves and next state are the renamings of the deal's own.
Imports only numpy and its siblings.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy.actions import MAX_MELDS, MELD_CELLS, RUN, SET
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, kind_of
from zolik_env.rummy.observe import obs_size, obs_slices
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State

Perm = tuple[int, ...]  # the new suit of suits 0..3
SUIT_PERMUTATIONS: tuple[Perm, ...] = tuple(itertools.permutations(range(NUM_SUITS)))
IDENTITY: Perm = SUIT_PERMUTATIONS[0]
SET_SUIT_CELLS = NUM_SUITS  # a set's cells 0..3 are its suits; cell 4 its joker

# observation slices counted by card kind (the last axis), and those that name a card
_BY_KIND = ("hand", "table_counts", "discard_counts", "bottom_card", "known_taken", "unseen",
            "must_use", "taken_unlaid")
_CARD_VALUED = ("discard_newest",)
# State fields counted by kind, naming one card (-1: none), or piles of cards
_STATE_BY_KIND = ("hands", "known_taken", "table_counts", "discard_counts", "taken_unlaid",
                  "snap_hand", "snap_known", "snap_table_counts", "snap_discard_counts")
_STATE_CARDS = ("stock", "discard", "bottom", "snap_bottom", "drawn", "must_use")
# (kind field, key field, cell fields) of the table now and at the turn's start
_STATE_TABLES = (("meld_kind", "meld_key", ("cells", "cell_owner")),
                 ("snap_kind", "snap_key", ("snap_cells", "snap_owner")))


def check_perm(perm: Perm) -> Perm:
    """``perm`` as a tuple, or a one-line error when it is no renaming of the four suits."""
    perm = tuple(int(s) for s in perm)
    if sorted(perm) != list(range(NUM_SUITS)):
        raise ValueError(f"suit permutation {perm}: give each of the suits 0..3 once")
    return perm


@functools.lru_cache(maxsize=32)
def kind_map(perm: Perm) -> np.ndarray:
    """int64 (NUM_KINDS,): the kind each card kind becomes (the joker stays)."""
    perm = check_perm(perm)
    out = np.arange(NUM_KINDS)
    for suit, rank in itertools.product(range(NUM_SUITS), range(NUM_RANKS)):
        out[kind_of(suit, rank)] = kind_of(perm[suit], rank)
    out.flags.writeable = False
    return out


def _cells_of_set(cells: np.ndarray, perm: Perm) -> np.ndarray:
    """A set's cells (last axis ``MELD_CELLS``) with its suit cells moved to the new suits."""
    out = cells.copy()
    out[..., list(perm)] = cells[..., :SET_SUIT_CELLS]
    return out


def _pattern_key(kind: int, key: int, cells: np.ndarray) -> tuple[int, int, bytes]:
    return int(kind), int(key), cells.astype(np.int8).tobytes()


@functools.lru_cache(maxsize=32)
def action_map(perm: Perm) -> np.ndarray:
    """int64 (NUM_ACTIONS,): the move each move becomes in the renamed deal."""
    perm = check_perm(perm)
    kinds = kind_map(perm)
    out = np.arange(A.NUM_ACTIONS)
    table = list(zip(A.MELD_PATTERN_KIND, A.MELD_PATTERN_KEY, A.MELD_PATTERN_CELLS,
                     strict=True))
    patterns = {_pattern_key(*pattern): i for i, pattern in enumerate(table)}
    for i, (kind, key, cells) in enumerate(table):
        moved = (_pattern_key(kind, perm[key], cells) if kind == RUN
                 else _pattern_key(kind, key, _cells_of_set(cells, perm)))
        out[A.MELD_BASE + i] = A.MELD_BASE + patterns[moved]
    slots = np.arange(MAX_MELDS)[:, None]
    naturals = np.arange(JOKER)
    out[A.LAYOFF_BASE + slots * JOKER + naturals] = A.LAYOFF_BASE + slots * JOKER + kinds[naturals]
    suits = np.arange(NUM_SUITS)
    out[A.ACE_HIGH_BASE + slots * NUM_SUITS + suits] = (
        A.ACE_HIGH_BASE + slots * NUM_SUITS + np.array(perm)[suits])
    out[A.DISCARD_BASE + np.arange(NUM_KINDS)] = A.DISCARD_BASE + kinds
    out.flags.writeable = False
    return out


def permute_masks(mask: np.ndarray, perm: Perm) -> np.ndarray:
    """bool (N, NUM_ACTIONS): the legal moves ``mask`` in the renamed deals."""
    out = np.zeros_like(mask)
    out[:, action_map(check_perm(perm))] = mask
    return out


def _by_kind(block: np.ndarray, perm: Perm) -> np.ndarray:
    """``block`` (N, ..., NUM_KINDS) counted by kind, its kinds renamed."""
    out = np.empty_like(block)
    out[..., kind_map(perm)] = block
    return out


def _cards(values: np.ndarray, perm: Perm) -> np.ndarray:
    """Card kinds (or -1 for none) renamed."""
    return np.where(values >= 0, kind_map(perm)[np.maximum(values, 0)], values).astype(
        values.dtype)


def _table(kind: np.ndarray, key: np.ndarray, cells: list[np.ndarray],
           perm: Perm) -> tuple[np.ndarray, list[np.ndarray]]:
    """A table's keys and cell arrays (N, M[, C]) renamed: runs take their new suits, sets
    move their suit cells."""
    runs = kind == RUN
    new_key = np.where(runs, np.array(perm)[np.clip(key, 0, NUM_SUITS - 1)], key).astype(key.dtype)
    sets = (kind == SET)[..., None]
    return new_key, [np.where(sets, _cells_of_set(c, perm), c) for c in cells]


def permute_observations(rules: RuleSet, obs: np.ndarray, perm: Perm) -> np.ndarray:
    """int16 (N, obs_size): what each seat of ``obs`` (plain observations, ``observe``)
    sees in its deal with the suits renamed."""
    perm = check_perm(perm)
    if obs.ndim != 2 or obs.shape[1] != obs_size(rules):
        raise ValueError(f"observations of shape {obs.shape}: want (N, {obs_size(rules)}), "
                         "plain observations without features or a privileged view")
    out = obs.copy()
    at = {name: slice(start, stop) for name, start, stop in obs_slices(rules)}
    n = len(obs)
    for name in _BY_KIND:
        out[:, at[name]] = _by_kind(obs[:, at[name]].reshape(n, -1, NUM_KINDS), perm).reshape(n, -1)
    for name in _CARD_VALUED:
        out[:, at[name]] = _cards(obs[:, at[name]], perm)
    cells = obs[:, at["meld_cells"]].reshape(n, MAX_MELDS, MELD_CELLS)
    key, (new_cells,) = _table(obs[:, at["meld_kind"]], obs[:, at["meld_key"]], [cells], perm)
    out[:, at["meld_key"]] = key
    out[:, at["meld_cells"]] = new_cells.reshape(n, -1)
    return out


def permute_counts(counts: np.ndarray, perm: Perm) -> np.ndarray:
    """(N, blocks x NUM_KINDS) rows of counts by kind (a critic view: other hands and the
    next stock cards) with the kinds renamed in every block."""
    n = len(counts)
    if counts.shape[1] % NUM_KINDS:
        raise ValueError(f"counts of width {counts.shape[1]}: want blocks of {NUM_KINDS} kinds")
    return _by_kind(counts.reshape(n, -1, NUM_KINDS), check_perm(perm)).reshape(n, -1)


def permute_state(state: State, perm: Perm) -> State:
    """A copy of ``state`` with every deal's suits renamed: hands, piles, the table and
    this turn's records (the stock keeps its order, so the renamed deal draws the renamed
    cards)."""
    perm = check_perm(perm)
    fields = state.to_dict()
    changes = {name: _by_kind(fields[name], perm) for name in _STATE_BY_KIND}
    changes.update({name: _cards(fields[name], perm) for name in _STATE_CARDS})
    for kind, key, cell_names in _STATE_TABLES:
        changes[key], cells = _table(fields[kind], fields[key],
                                     [fields[c] for c in cell_names], perm)
        changes.update(zip(cell_names, cells, strict=True))
    return state.replace(**changes)
