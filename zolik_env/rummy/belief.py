"""Belief sampling and information-set keys: deals consistent with everything one seat
has seen.

``sample_worlds(rules, state, seat, n, seed)`` returns a batch of ``n`` deals that ``seat``
cannot tell apart from ``state``: every public field and everything ``seat`` holds or
saw is kept; what it cannot see is dealt again at random:

- the other seats' hands, except the cards ``seat`` knows they hold (discards they took
  and have not laid again, ``known_taken``); each hand keeps its size;
- the stock's order (its size is public);
- jolly's stock-shuffle key (``rng_key``), which decides later rebuilds.

**Where it is exact.** The hidden cards (the other hands less their known cards, plus the
stock) form one multiset; a world is a uniformly random permutation of it, cut into the
hands' free places and the stock in order. Every assignment of the hidden cards that
agrees with the seat's view is equally likely: the sampler is the uniform distribution
over the consistent deals. It ignores what the other seats' *play* suggests about their
hands (a seat that never takes a 7 probably holds none); a search that wants that
inference weights the worlds itself.

**Whose turn.** The seat to act sees its own turn-start snapshot (UNDO restores it), so
``seat`` may be the seat to act at any point of its turn, or any seat while the seat to
act has not yet drawn (its snapshot is then its hand). In the middle of another seat's
turn the snapshot and the card it drew hold hidden cards this sampler does not resample:
that is a ``ValueError``.

The worlds are a pure function of what ``seat`` may know and ``seed``: two states that
differ only in hidden cards give identical worlds. ``infoset_key(rules, state, seat)``
names the set of deals ``seat`` cannot tell apart (every world of ``sample_worlds`` has
the true deal's key). numpy only.
"""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.masks import legal_action_mask
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, State


def sample_worlds(rules: RuleSet, state: State, seat: int, n: int, seed: int) -> State:
    """``n`` deals (a batch) that ``seat`` cannot tell from the one deal in ``state``.

    Raises:
        ValueError: naming ``n`` below 1, a seat out of range, a batch of more than one
            deal, a finished deal, or a seat that is not to act while another seat is
            mid-turn.
    """
    _check(rules, state, seat, n)
    rng = np.random.default_rng(seed)
    hands = state.hands[0].astype(np.int64)  # (P, K)
    known = state.known_taken[0].astype(np.int64)
    others = [p for p in range(rules.num_players) if p != seat]
    stock_len = int(state.stock_len[0])
    stock = np.bincount(state.stock[0, :stock_len].astype(np.int64), minlength=NUM_KINDS)
    free = {p: hands[p] - known[p] for p in others}
    pool = np.repeat(np.arange(NUM_KINDS), sum(free.values()) + stock)  # sorted multiset
    shuffled = pool[np.argsort(rng.random((n, pool.size)), axis=1)]  # (n, L) permutations
    worlds = state.take(np.zeros(n, np.int64)).to_dict()
    rows, start = np.arange(n)[:, None], 0
    for p in others:
        size = int(free[p].sum())
        dealt = np.zeros((n, NUM_KINDS), np.int64)
        np.add.at(dealt, (np.broadcast_to(rows, (n, size)), shuffled[:, start:start + size]), 1)
        worlds["hands"][:, p] = (dealt + known[p]).astype(worlds["hands"].dtype)
        start += size
    worlds["stock"][:, :stock_len] = shuffled[:, start:].astype(worlds["stock"].dtype)
    current = int(state.current[0])
    if current != seat:  # not yet drawn: its turn-start snapshot is its hand
        worlds["snap_hand"][:] = worlds["hands"][:, current]
    worlds["rng_key"][:] = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64)
    return State(**worlds)


class InfoState:
    """What one seat may know of one deal, for agents that search: the seat's observation
    and legal moves, its information-set key, and worlds sampled from its belief.

    The evaluation harness hands one to an agent with an ``act_info`` method (see
    ``agents.base.SearchPolicy``) when that agent's seat is to act. It does not hold the
    true deal: it holds one world sampled with a fixed seed, which gives the seat the same
    observation, moves, key and worlds (all are functions of what the seat may know, as
    ``sample_worlds`` and ``infoset_key`` are tested to be), so not even an agent that
    reads its attributes can peek at hidden cards. Like ``sample_worlds`` it needs the
    seat to be the one to act, or any seat before the seat to act has drawn.
    """

    __slots__ = ("_deal", "rules", "seat")

    def __init__(self, rules: RuleSet, state: State, seat: int) -> None:
        _check_deal(rules, state, seat, "InfoState")
        self.rules = rules
        self.seat = int(seat)
        self._deal = sample_worlds(rules, state, seat, 1, seed=0) if not bool(
            state.done[0]) else state  # a finished deal hides nothing

    @classmethod
    def of_seat_to_act(cls, rules: RuleSet, state: State, row: int) -> InfoState:
        """The information state of the seat to act in deal ``row`` of a batch."""
        one = state.take(np.array([row]))
        return cls(rules, one, int(one.current[0]))

    def observation(self) -> np.ndarray:
        """int16 (OBS,): the seat's observation (``observe``)."""
        obs: np.ndarray = observe(self.rules, self._deal, self.seat)[0]
        return obs

    def legal_mask(self) -> np.ndarray:
        """bool (A,): the legal moves when the seat is to act, else all false."""
        if int(self._deal.current[0]) != self.seat:
            return np.zeros(NUM_ACTIONS, bool)
        mask: np.ndarray = legal_action_mask(self.rules, self._deal)[0]
        return mask

    def worlds(self, n: int, seed: int) -> State:
        """``sample_worlds(rules, deal, seat, n, seed)``: ``n`` deals the seat cannot tell
        from this one, a batch the core steps like any other."""
        return sample_worlds(self.rules, self._deal, self.seat, n, seed)

    def key(self) -> bytes:
        """``infoset_key(rules, deal, seat)``."""
        return infoset_key(self.rules, self._deal, self.seat)


HIDDEN = ("hands", "stock", "rng_key", "snap_hand", "drawn")  # handled by ``infoset_key``


def infoset_key(rules: RuleSet, state: State, seat: int) -> bytes:
    """A key of the information set of ``seat`` in the one deal of ``state``: equal for
    exactly the deals ``seat`` cannot tell apart.

    It holds every public field whole (the table, the discard pile in order, who took
    what, turn and phase, snapshots of the table, outcome) and of the hidden ones what
    ``seat`` sees: its own hand and every hand's size; the stock's size (its own field);
    the turn-start snapshot and drawn card when ``seat`` is to act, else the snapshot's
    size. Two deals with one key give ``seat`` the same observation and the same moves.
    """
    _check_deal(rules, state, seat, "infoset_key")
    hands = state.hands[0].astype(np.int64)
    own_turn = int(state.current[0]) == seat
    parts = [np.int64(seat).tobytes(), hands[seat].tobytes(), hands.sum(1).tobytes()]
    if own_turn:
        parts += [state.snap_hand[0].tobytes(), state.drawn[0].tobytes()]
    else:
        parts.append(np.int64(state.snap_hand[0].astype(np.int64).sum()).tobytes())
    for name, value in state.to_dict().items():
        if name not in HIDDEN:
            parts += [name.encode(), value[0].tobytes()]
    return b"|".join(parts)


def _check_deal(rules: RuleSet, state: State, seat: int, caller: str) -> None:
    """A seat in range and a batch of one deal, else a ``ValueError`` naming them."""
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not (
            0 <= seat < rules.num_players):
        raise ValueError(f"seat={seat!r} is not a seat in 0..{rules.num_players - 1}")
    if state.batch_size != 1:
        raise ValueError(f"{caller} takes a batch of one deal, got {state.batch_size}")


def _check(rules: RuleSet, state: State, seat: int, n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n={n!r}: sample at least one world")
    _check_deal(rules, state, seat, "sample_worlds")
    if bool(state.done[0]):
        raise ValueError("the deal is over: nothing is hidden any more")
    if int(state.current[0]) != seat and int(state.phase[0]) != PHASE_DRAW:
        raise ValueError(f"seat={seat} is not to act and seat {int(state.current[0])} is "
                         f"mid-turn: its snapshot and drawn card are hidden (see the module "
                         f"docstring)")


__all__ = ["HIDDEN", "InfoState", "infoset_key", "sample_worlds"]
