"""Compiled kernels: the core's rules run as numba-compiled loops over the deals.

numpy's per-call overhead made one deal cost as much as a hundred: a step was dozens of
array operations of a few elements each. The moves, masks and observations are therefore
written once, as scalar code over one deal (``for b in range(B)`` calling a per-deal
function), and compiled with ``numba.njit``. That is the one implementation of the rules
in the batched core; the readable rules API (``rules.check_meld``, ``check_opening``,
``score_deal``) stays the specification, and the tests hold the kernels to it.

``kernel`` compiles with an on-disk cache (``__pycache__`` beside the source, or
``NUMBA_CACHE_DIR``), so only the first import on a machine pays the compile. That first
compile takes a minute or more, so ``announce_compile`` (called by ``game.init``) says so
on stderr, once per process, when some kernel has no usable cache entry yet.

``params(rules)`` is the rule set as one int64 array, read inside kernels through the
``R_*`` indices; option strings become the small codes below.

This module imports only numpy, numba and the rule options.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from zolik_env.rummy.options import RuleSet

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def by_identity(function: Callable[[RuleSet], T]) -> Callable[[RuleSet], T]:
    """Memoise a function of a rule set by the object's identity. Hashing a ``RuleSet``
    (thirty fields) costs more than the kernel call it prepares when a batch holds one
    deal; the cache keeps its rule sets alive, so an identity is never reused."""
    cache: dict[int, tuple[RuleSet, T]] = {}

    @functools.wraps(function)
    def cached(rules: RuleSet) -> T:
        hit = cache.get(id(rules))
        if hit is None:
            hit = cache[id(rules)] = (rules, function(rules))
        return hit[1]

    return cached


# About how long the first compile of the core's kernels takes: 58 s of wall clock (40 s
# of CPU) for ``game.compile_kernels`` with an empty cache, on 2 cores shared with a
# training run (2026-12-04).
COMPILE_SECONDS = 60


def kernel(function: F) -> F:
    """``numba.njit`` with the on-disk cache, typed so that callers keep the signature."""
    return cast(F, numba.njit(cache=True, nogil=True)(function))


def uncached(dispatchers: Iterable[Any]) -> bool:
    """Some dispatcher is not compiled in this process and has no usable on-disk cache
    entry (none, or one numba would reject: a changed source, another numba), so its
    first call compiles. Reads numba's cache index, which takes microseconds; when
    numba's internals are not as expected it says False (no announcement). Give kernels
    that Python calls: one called only from other kernels is compiled into them and may
    have no index of its own."""
    for dispatcher in dispatchers:
        if dispatcher.signatures:
            continue
        try:
            if not dispatcher._cache._cache_file._load_index():
                return True
        except Exception:  # another numba's internals: stay quiet
            return False
    return False


_announced: list[bool] = []


def announce_compile(dispatchers: Iterable[Any], seconds: int = COMPILE_SECONDS) -> bool:
    """Once per process: print ``zolik: compiling ... (first run only, about N s)`` on
    stderr when one of ``dispatchers`` has to be compiled (``uncached``). Returns whether
    it printed."""
    if _announced:
        return False
    _announced.append(True)
    if not uncached(dispatchers):
        return False
    print(f"zolik: compiling the rules core's kernels with numba (first run only, about "
          f"{seconds} s; later runs load them from the cache)", file=sys.stderr, flush=True)
    return True


def inline_kernel(function: F) -> F:
    """A ``kernel`` that other kernels compile into themselves (numba's
    ``inline="always"``) rather than call: for the moves one action dispatches to and
    small helpers, which timed faster inlined; inlining everything made the first
    compile minutes long, so the rest stay calls."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(function))


# Indices into ``params(rules)``.
(R_PLAYERS, R_STARTER_DISCARDS_FIRST, R_BOTTOM_CARD, R_BOTTOM_FROM_ROUND, R_NO_MELD_ROUNDS,
 R_DEEP_PICKUP, R_PICKUP_NEEDS_OPENED, R_MAX_HAND_CARDS, R_FEWER_JOKERS, R_JOKERS_ADJACENT,
 R_MAX_JOKERS_IN_SET, R_OPENING_POINTS, R_CLEAN_RUN, R_SHUFFLE_REBUILD, R_REBUILD_KEEPS,
 R_MAX_REBUILDS, R_MAX_TURNS, R_SCORING, R_NEVER_OPENED_PENALTY, R_WINNER_BONUS,
 R_CLOSED_MULTIPLIER, R_NO_PICKUP, R_BOTTOM_MUST_LAY) = range(23)
NUM_PARAMS = 23

# ``R_SCORING`` codes, in the order of the option's allowed values.
SCORING_PENALTY, SCORING_POINTS, SCORING_LAID = 0, 1, 2
_SCORING = {"penalty": SCORING_PENALTY, "points": SCORING_POINTS, "laid": SCORING_LAID}


@by_identity
def params(rules: RuleSet) -> np.ndarray:
    """int64 (NUM_PARAMS,): the options the kernels read, indexed by the ``R_*`` names."""
    values = {
        R_PLAYERS: rules.num_players,
        R_STARTER_DISCARDS_FIRST: rules.starter_discards_first,
        R_BOTTOM_CARD: rules.bottom_card,
        R_BOTTOM_FROM_ROUND: rules.bottom_card_from_round,
        R_NO_MELD_ROUNDS: rules.no_meld_rounds,
        R_DEEP_PICKUP: rules.discard_pickup == "deep",
        R_PICKUP_NEEDS_OPENED: rules.pickup_needs_opened,
        R_MAX_HAND_CARDS: rules.max_hand_cards,
        R_FEWER_JOKERS: rules.jokers_fewer_than_naturals,
        R_JOKERS_ADJACENT: rules.jokers_adjacent_in_run,
        R_MAX_JOKERS_IN_SET: rules.max_jokers_in_set,
        R_OPENING_POINTS: rules.opening_points,
        R_CLEAN_RUN: rules.opening_needs_clean_run,
        R_SHUFFLE_REBUILD: rules.stock_rebuild == "shuffle",
        R_REBUILD_KEEPS: rules.rebuild_keeps,
        R_MAX_REBUILDS: rules.max_stock_rebuilds,
        R_MAX_TURNS: rules.max_turns,
        R_SCORING: _SCORING[rules.scoring],
        R_NEVER_OPENED_PENALTY: rules.never_opened_penalty,
        R_WINNER_BONUS: rules.winner_bonus,
        R_CLOSED_MULTIPLIER: rules.closed_from_hand_multiplier,
        R_NO_PICKUP: rules.discard_pickup == "none",
        R_BOTTOM_MUST_LAY: rules.bottom_card_must_lay,
    }
    out = np.array([int(values[i]) for i in range(NUM_PARAMS)], np.int64)
    out.flags.writeable = False
    return out


@inline_kernel
def copy_into(target: np.ndarray, source: np.ndarray) -> None:
    """``target[...] = source`` for two C-contiguous arrays of one size (rows of the
    State's fields), as one flat loop: numba's own slice assignment walks a 2-D row
    element by element through its general indexing, several times slower."""
    copy_prefix(target, source, target.size)


@inline_kernel
def copy_prefix(target: np.ndarray, source: np.ndarray, count: int) -> None:
    """The first ``count`` entries of ``copy_into`` (in C order): the used meld slots of a
    table row."""
    flat_target = target.reshape(-1)
    flat_source = source.reshape(-1)
    for i in range(count):
        flat_target[i] = flat_source[i]


_cgutils: Any = cgutils  # untyped


@intrinsic
def _borrowed(typingctx: Any, array: Any) -> Any:
    if not isinstance(array, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = _cgutils.create_struct_proxy(signature.return_type)(context, builder,
                                                                   value=args[0])
        view.meminfo = _cgutils.get_null_value(view.meminfo.type)
        view.parent = _cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


A = TypeVar("A", bound=np.ndarray)
borrowed = cast(Callable[[A], A], _borrowed)
"""``borrowed(array)`` inside a kernel: ``array`` as a view that holds no reference to its
memory (the same data, shape and strides, with numba's ``meminfo`` and ``parent`` null).

A kernel's State fields are views of the buffer its caller passed in and holds, so they
need no reference counts of their own. With them, every view taken in a kernel
(``s.hands[b, cur]``) and every call passing the 45 fields on counted the buffer up and
down with atomic instructions: about 60% of a batched step's time under ``perf``. A null
``meminfo`` makes numba's reference counting skip them. Only for views of memory that
outlives the kernel call: the State's fields and the kernel's own arguments (see
``state.fields_in_kernel`` for views handed back to Python)."""
