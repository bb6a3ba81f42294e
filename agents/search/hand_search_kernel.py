"""The compiled part of ``agents.search.hand_search.best_melds``: the exact search over a
hand's count vector, given its candidate melds as arrays.

The lowest natural card left is either kept in hand (its dead value) or laid in one of
the candidates whose lowest natural it is; sub-hands are memoised by their code in the
mixed radix of the starting counts. Ties go to keeping the card, then to the earlier
candidate (a later one only when strictly better), as the readable recursion in
``tests/agents/test_hand_search.py`` states it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.typed import Dict

from zolik_env.rummy.jit import inline_kernel, kernel

NEG = -1.0e9  # the value of "no choice holds a clean run"


_MEMO_ENTRY = types.Tuple((types.float64, types.float64, types.int64, types.int64))
_KEEP = -1  # the choice "keep the lowest card in hand"


@kernel
def search_kernel(left: np.ndarray, start: np.ndarray, uses: np.ndarray, sizes: np.ndarray,
                  jokers: np.ndarray, values: np.ndarray, clean: np.ndarray,
                  dead: np.ndarray) -> tuple[float, np.ndarray, float, np.ndarray]:
    """(best value, its candidates, best value with a clean run, its candidates) for the
    hand ``left`` (counts by position, the jokers last). Candidates are rows of ``uses``
    (the positions of their naturals, ``sizes`` of them), those whose lowest natural is
    position ``i`` in rows ``start[i]:start[i + 1]``. Sub-hands are memoised by their
    code in the mixed radix of the starting counts."""
    radix = np.ones(len(left), np.int64)
    for i in range(1, len(left)):
        radix[i] = radix[i - 1] * (left[i - 1] + 1)
    code = 0
    for i in range(len(left)):
        code += left[i] * radix[i]
    memo = Dict.empty(key_type=types.int64, value_type=_MEMO_ENTRY)
    counts = left.copy()
    value, clean_value = _solve(counts, code, radix, start, uses, sizes, jokers, values, clean,
                                dead, memo)
    best = _chain(left, code, radix, start, uses, sizes, jokers, clean, memo, False)
    clean_best = _chain(left, code, radix, start, uses, sizes, jokers, clean, memo, True)
    return value, best, clean_value, clean_best


@kernel
def _solve(counts: np.ndarray, code: int, radix: np.ndarray, start: np.ndarray,
           uses: np.ndarray, sizes: np.ndarray, jokers: np.ndarray, values: np.ndarray,
           clean: np.ndarray, dead: np.ndarray, memo: Any) -> tuple[float, float]:
    """(best, best with a clean run) of the hand ``counts`` (edited, and restored by the
    end). The sub-hand of each frame, whose first natural left is at position ``low`` or
    later, either keeps its lowest natural (its dead value) or lays it in a candidate
    whose lowest natural it is; every sub-hand's best choices go into ``memo``.

    A depth-first search with an explicit stack of frames (one per sub-hand on the path):
    numba's on-disk cache cannot hold a recursive function."""
    last = len(dead)
    depth = int(counts.sum()) + 2  # every step down lays or keeps a card
    frame_code = np.empty(depth, np.int64)
    frame_low = np.empty(depth, np.int64)
    frame_next = np.empty(depth, np.int64)  # the next candidate to try
    frame_taken = np.empty(depth, np.int64)  # what leads to the child now searched
    frame_best = np.empty(depth, np.float64)
    frame_best_choice = np.empty(depth, np.int64)
    frame_clean = np.empty(depth, np.float64)
    frame_clean_choice = np.empty(depth, np.int64)
    d = 0
    frame_code[0], frame_low[0] = code, 0
    entering = True
    result, result_clean = 0.0, NEG  # of the frame just finished
    while d >= 0:
        if entering:  # a new sub-hand: known, empty, or its first child (keep the card)
            code = frame_code[d]
            if code in memo:
                entry = memo[code]
                result, result_clean = entry[0], entry[1]
                entering = False
                d -= 1
                continue
            low = frame_low[d]
            while low < last and counts[low] == 0:
                low += 1
            frame_low[d] = low
            if low == last:
                result, result_clean = 0.0, NEG
                entering = False
                d -= 1
                continue
            counts[low] -= 1
            frame_taken[d], frame_next[d] = _KEEP, start[low]
            frame_code[d + 1], frame_low[d + 1] = code - radix[low], low
            d += 1
            continue
        low, taken = frame_low[d], frame_taken[d]  # back from a child: fold its result in
        if taken == _KEEP:
            counts[low] += 1
            frame_best[d], frame_best_choice[d] = result + dead[low], _KEEP
            frame_clean[d], frame_clean_choice[d] = result_clean + dead[low], _KEEP
        else:
            _take(counts, uses[taken], sizes[taken], jokers[taken], 1)
            if values[taken] + result > frame_best[d]:
                frame_best[d], frame_best_choice[d] = values[taken] + result, taken
            with_clean = values[taken] + (result if clean[taken] else result_clean)
            if with_clean > frame_clean[d]:
                frame_clean[d], frame_clean_choice[d] = with_clean, taken
        c = frame_next[d]
        while c < start[low + 1] and not _fits(counts, uses[c], sizes[c], jokers[c]):
            c += 1
        if c < start[low + 1]:  # the next candidate's child
            _take(counts, uses[c], sizes[c], jokers[c], -1)
            frame_taken[d], frame_next[d] = c, c + 1
            frame_code[d + 1] = frame_code[d] - _code_of(radix, uses[c], sizes[c], jokers[c])
            frame_low[d + 1] = low
            d += 1
            entering = True
            continue
        memo[frame_code[d]] = (frame_best[d], frame_clean[d], frame_best_choice[d],
                               frame_clean_choice[d])
        result, result_clean = frame_best[d], frame_clean[d]
        d -= 1
    return result, result_clean


@kernel
def _chain(left: np.ndarray, code: int, radix: np.ndarray, start: np.ndarray,
           uses: np.ndarray, sizes: np.ndarray, jokers: np.ndarray, clean: np.ndarray,
           memo: Any, want_clean: bool) -> np.ndarray:
    """The candidates the memoised choices lay, from the whole hand down: the best
    choices, or (``want_clean``) the clean ones, which continue with the best choices of
    the rest once a clean run is laid."""
    counts = left.copy()
    chosen = np.empty(len(left) + 1, np.int64)
    n = 0
    low = 0
    last = len(left) - 1
    while True:
        while low < last and counts[low] == 0:
            low += 1
        if low == last or code not in memo:
            break
        entry = memo[code]
        choice = entry[3] if want_clean else entry[2]
        if choice == _KEEP:
            counts[low] -= 1
            code -= radix[low]
            continue
        chosen[n] = choice
        n += 1
        _take(counts, uses[choice], sizes[choice], jokers[choice], -1)
        code -= _code_of(radix, uses[choice], sizes[choice], jokers[choice])
        if want_clean and clean[choice]:
            want_clean = False
    return chosen[:n].copy()


@inline_kernel
def _fits(counts: np.ndarray, use: np.ndarray, size: int, joker_count: int) -> bool:
    """The hand still holds every natural of the candidate and enough jokers."""
    for j in range(size):
        if counts[use[j]] == 0:
            return False
    return joker_count <= counts[len(counts) - 1]


@inline_kernel
def _take(counts: np.ndarray, use: np.ndarray, size: int, joker_count: int, sign: int) -> None:
    for j in range(size):
        counts[use[j]] += sign
    counts[len(counts) - 1] += sign * joker_count


@inline_kernel
def _code_of(radix: np.ndarray, use: np.ndarray, size: int, joker_count: int) -> int:
    code = joker_count * radix[len(radix) - 1]
    for j in range(size):
        code += radix[use[j]]
    return code
