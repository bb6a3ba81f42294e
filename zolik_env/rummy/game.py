"""The batched Žolík core: ``init``, ``legal_action_mask``, ``step``, ``observe``.

    state = init(rules, seeds)                       # B deals, one seed each
    mask = legal_action_mask(rules, state)           # bool (B, NUM_ACTIONS)
    state, out = step(rules, state, actions)         # out: zolik_env.core.StepOut
    obs = observe(rules, state, seat)                # int16 (B, OBS)

The same four functions, under the same names, make the dice core (docs/core.md).

All chance happens in ``init`` (the shuffled pack) or comes from each deal's own key
(jolly's reshuffles), so ``step`` is a deterministic function of (state, actions), and
deal ``i`` plays the same alone or in any batch. Functions never mutate their inputs.

This module imports only numpy and its siblings: no gymnasium, pettingzoo or torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zolik_env.core import StepOut
from zolik_env.rummy import actions as A
from zolik_env.rummy import fits, moves, options, table
from zolik_env.rummy.cards import deck_counts
from zolik_env.rummy.dealing import deal
from zolik_env.rummy.jit import announce_compile, borrowed, kernel
from zolik_env.rummy.masks import check_pair, legal_action_mask, melding_allowed
from zolik_env.rummy.melds import require_rules
from zolik_env.rummy.observe import card_locations, critic_view, observe
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State
from zolik_env.rummy.values import hand_values, kernel_tables

__all__ = ["StepOut", "init", "legal_action_mask", "observe", "reset_in_place", "reset_where",
           "rewards_of", "step", "step_in_place"]


def init(rules: RuleSet, seeds: Sequence[int] | np.ndarray,
         deal_index: Sequence[int] | np.ndarray | int = 0) -> State:
    """Shuffle and deal B deals, one per seed. ``deal_index`` (per deal or one for all)
    picks the starting seat, ``deal_index % num_players`` (the seat rotates each deal)."""
    check_supported(rules)
    announce_compile(_entry_kernels())
    return deal(rules, seeds, deal_index)


def _entry_kernels() -> tuple[object, ...]:
    """The kernels that the core's public functions call from Python: each has its own
    cache entry once compiled (``jit.announce_compile``)."""
    from zolik_env.rummy import masks, observe, turns

    return (moves.step_rows, masks._mask_rows, observe._observe_rows, turns._begin_rows,
            _sample_rows)


def check_supported(rules: RuleSet) -> None:
    """Raise ``ValueError`` for option values the action table cannot express."""
    require_rules(rules)
    if rules.discard_pickup == "deep" and not 0 < rules.max_hand_cards <= A.MAX_PICKUP + 1:
        raise ValueError(f"discard_pickup='deep' needs max_hand_cards in 1..{A.MAX_PICKUP + 1} "
                         f"(deepest pick-up the action table expresses), got "
                         f"{rules.max_hand_cards}")


def _check_actions(rules: RuleSet, state: State, actions: np.ndarray) -> None:
    if actions.shape != (state.batch_size,):
        raise ValueError(f"expected one action per deal, shape ({state.batch_size},), got "
                         f"{actions.shape}")
    live = ~state.done
    out_of_range = live & ((actions < 0) | (actions >= A.NUM_ACTIONS))
    if out_of_range.any():
        b = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(f"game {b}: action {int(actions[b])} out of range [0, "
                         f"{A.NUM_ACTIONS})")
    mask = legal_action_mask(rules, state)
    chosen = mask[np.arange(state.batch_size), np.clip(actions, 0, A.NUM_ACTIONS - 1)]
    illegal = np.flatnonzero(live & ~chosen)
    if illegal.size:
        b = int(illegal[0])
        raise ValueError(f"game {b}: illegal move {A.action_to_string(int(actions[b]))!r} "
                         f"(action {int(actions[b])}) for seat {int(state.current[b])}"
                         + (f"; {illegal.size - 1} more illegal row(s)" if illegal.size > 1
                            else ""))


def _checked(rules: RuleSet, state: State, actions: Sequence[int] | np.ndarray,
             validate: bool) -> np.ndarray:
    """int64 (B,) ``actions``, legal where ``validate`` (else only their shape checked);
    integers only (a float or a flag is refused, not rounded) and a state of ``rules``."""
    check_pair(rules, state)
    given = np.asarray(actions)
    if given.size and given.dtype.kind not in "iu":
        raise ValueError(f"actions must be integer action ids, got {given.dtype} "
                         f"{given.ravel()[:3].tolist()!r}")
    actions = given.astype(np.int64, copy=False)
    if validate:
        _check_actions(rules, state, actions)
    elif actions.shape != (state.batch_size,):
        raise ValueError(f"expected one action per deal, shape ({state.batch_size},), got "
                         f"{actions.shape}")
    return actions


def step(rules: RuleSet, state: State, actions: Sequence[int] | np.ndarray,
         validate: bool = True) -> tuple[State, StepOut]:
    """Apply one action per deal (ignored for finished deals).

    Returns:
        (state, StepOut): rewards float32 (B, P), the deal scores oriented so that higher
        is better (cz penalties negated) on the step that ends the deal and 0 otherwise;
        terminated and truncated bool (B,), the state's own flags (True on every step of a
        finished deal).

    Raises:
        ValueError: with ``validate``, naming the first game whose action is illegal.
            Without it, the legality check (a mask per step) is skipped: an action id
            outside the table still raises, but another illegal move leaves its deal in an
            unspecified state.
    """
    actions = _checked(rules, state, actions, validate)
    new = state.copy()
    return new, _step_buffer(rules, new, actions)


def step_in_place(rules: RuleSet, state: State, actions: Sequence[int] | np.ndarray,
                  validate: bool = True) -> StepOut:
    """``step`` that writes the new position into ``state``'s own arrays and returns only
    the ``StepOut`` (whose arrays are new). For the sole owner of a state, such as an env
    stepping its one deal, which saves copying the state's buffer; anyone else
    holding ``state`` sees it change. Same checks and errors as ``step``."""
    return _step_buffer(rules, state, _checked(rules, state, actions, validate))


def step_rows_in_place(rules: RuleSet, state: State, rows: np.ndarray,
                       actions: np.ndarray) -> StepOut:
    """``step_in_place`` of the deals ``rows`` only (distinct, int64 (R,)), by ``actions``
    (R,), unchecked (as ``validate=False``): the same positions as taking the rows,
    stepping them and putting them back, without the two copies. The ``StepOut`` has one
    entry per row of ``rows``. Rows and actions must be integers, the state one of
    ``rules``' shape (``check_pair``)."""
    check_pair(rules, state)
    given_rows, given = np.asarray(rows), np.asarray(actions)
    if any(a.size and a.dtype.kind not in "iu" for a in (given_rows, given)):
        raise ValueError(f"rows and actions must be integers, got {given_rows.dtype} and "
                         f"{given.dtype}")
    rows, actions = given_rows.astype(np.int64), given.astype(np.int64)
    if actions.shape != rows.shape or rows.ndim != 1:
        raise ValueError(f"expected one action per row, shape {rows.shape}, got "
                         f"{actions.shape}")
    if rows.size and not (rows.min() >= 0 and rows.max() < state.batch_size):
        raise IndexError(f"rows outside the batch of {state.batch_size}")
    return _step_buffer(rules, state, actions, rows)


def _step_buffer(rules: RuleSet, state: State, actions: np.ndarray,
                 rows: np.ndarray | None = None) -> StepOut:
    """Step ``state`` in place (its buffer) by int64 ``actions``, in ``rows`` (all)."""
    rows = np.arange(state.layout.batch) if rows is None else rows
    rewards = np.zeros((len(rows), rules.num_players), np.float32)
    ended = np.empty((2, len(rows)), np.bool_)
    tables = kernel_tables(rules)
    moves.step_rows(tables.params, tables.hand_value, tables.cell_value, rows, actions,
                    rewards, ended, state.buffer, state.layout.table)
    return StepOut(rewards, ended[0], ended[1])


def rewards_of(rules: RuleSet, state: State) -> np.ndarray:
    """int (B, P): the deal scores with higher = better (cz penalties negated)."""
    scores = state.scores.astype(np.int32)
    return -scores if rules.lower_is_better else scores


def hand_points(rules: RuleSet, state: State) -> np.ndarray:
    """int32 (B, P): the penalty points of the cards each seat holds, as if the deal ended
    now with them in hand (before any not-opened surcharge)."""
    points: np.ndarray = state.hands.astype(np.int32) @ hand_values(rules).astype(np.int32)
    return points


def conserved_cards(rules: RuleSet, state: State) -> np.ndarray:
    """int (B, K): every card counted once wherever it lies (hands, stock, discard pile,
    bottom card, table); equals the pack for every deal when no card is lost or made."""
    cards: np.ndarray = card_locations(state).sum(1)
    return cards


def pack(rules: RuleSet) -> np.ndarray:
    """int16 (K,) the full pack of ``rules``."""
    return deck_counts(rules.num_jokers)


def reset_where(rules: RuleSet, state: State, rows: np.ndarray, seeds: Sequence[int] | np.ndarray,
                deal_index: Sequence[int] | np.ndarray | int = 0) -> State:
    """``state`` with the deals in ``rows`` replaced by fresh deals from ``seeds`` (for
    vectorised environments that reset finished deals in place)."""
    rows = np.asarray(rows, np.int64)
    if rows.size == 0:
        return state
    new = state.copy()
    reset_in_place(rules, new, rows, seeds, deal_index)
    return new


def reset_in_place(rules: RuleSet, state: State, rows: np.ndarray,
                   seeds: Sequence[int] | np.ndarray,
                   deal_index: Sequence[int] | np.ndarray | int = 0) -> None:
    """``reset_where`` that writes the fresh deals into ``state``'s own arrays: for the
    sole owner of a batch, like ``step_in_place`` (a batch of 1,024 deals is 3 MiB, so
    the copy ``reset_where`` makes costs more than dealing a few new deals)."""
    rows = np.asarray(rows, np.int64)
    if rows.size:
        state.put(rows, init(rules, seeds, deal_index))


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int64 (B,): one uniformly random legal action per row (0 for rows with none): the
    legal action at index ``floor(u * count)`` among the row's, for ``u = rng.random()``."""
    out = np.zeros(len(mask), np.int64)
    if not np.count_nonzero(mask):  # (no random number is drawn then)
        return out
    _sample_rows(np.ascontiguousarray(mask, np.bool_), rng.random(len(mask)), out)
    return out


@kernel
def _sample_rows(mask: np.ndarray, uniform: np.ndarray, out: np.ndarray) -> None:
    """The legal actions of each row in order, found eight mask bytes at a time (most of
    a row is illegal), then the one at ``floor(uniform * count)``."""
    mask, uniform, out = borrowed(mask), borrowed(uniform), borrowed(out)
    size = mask.shape[1]
    whole = size - size % 8
    legal = np.empty(size, np.int64)
    for b in range(len(mask)):
        row = mask[b]
        words = row[:whole].view(np.uint64)
        count = 0
        for w in range(len(words)):
            if words[w]:
                for a in range(8 * w, 8 * w + 8):
                    if row[a]:
                        legal[count] = a
                        count += 1
        for a in range(whole, size):
            if row[a]:
                legal[count] = a
                count += 1
        if count:
            out[b] = legal[min(int(uniform[b] * count), count - 1)]


def compile_kernels() -> None:
    """Compile (or load from the on-disk cache) every kernel of the core, by using each
    public function once on a small batch. ``scripts/test.sh`` calls it before the test
    workers start, so that a fresh checkout compiles once rather than once per worker."""
    rules = options.preset("jolly", num_players=3)
    state = init(rules, [0, 1])
    rng = np.random.default_rng(0)
    while not state.done.all():
        mask = legal_action_mask(rules, state)
        observe(rules, state, state.current, privileged=True)
        critic_view(rules, state, state.current)
        state, _ = step(rules, state, sample_legal(mask, rng))
    state = reset_where(rules, state.take(np.array([1, 0])), np.array([1]), [2])
    melding_allowed(rules, state)
    fits.table_fits(rules, state.meld_kind, state.meld_key, state.cells)
    table.meets_opening(rules, state.meld_kind, state.meld_key, state.cells,
                        state.meld_kind > 0)
