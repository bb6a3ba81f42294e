"""Round-robin duplicate matches of a pool of agents, over processes, with optional
sequential stopping; ``run(cfg)`` plays them, summarises and writes the report.

Work is cut into chunks of ``chunk_deals`` consecutive deal seeds per pair. Chunks run
in worker processes (``spawn``: safe with torch) and come back in submission order, so
every pair sees its chunks in seed order whatever the number of workers. Sequential
stopping looks at a pair's interval after each of its chunks (from ``min_deals`` on)
and drops the pair's later chunks; the stopping point depends only on the chunks
before it, so results are identical for any ``workers``.

Repeated looks make the nominal 95% level optimistic for the stopped pair (optional
stopping); use ``min_deals`` and treat a stop as a screening result.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.base import Policy
from agents.registry import make_agent
from eval import stats
from eval.config import EvalConfig
from eval.harness import MatchResult, concat_results, play_match
from eval.result import EvalResult
from eval.summary import Pair, summarize_pool
from zolik_env.rummy.options import RuleSet

Task = tuple[Pair, np.ndarray]  # (pair of agent indices, deal seeds)


def unique_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: the spec, with ``#2``, ``#3`` ... for repeated specs."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(names)


_WORKER: dict[str, Any] = {}


def _init_worker(rules: RuleSet, specs: Sequence[str], policies: Sequence[Policy] | None,
                 names: Sequence[str], seed: int, rng_scope: str) -> None:
    """Build the agents once per process (from specs unless policies were given)."""
    built = list(policies) if policies is not None else [make_agent(s, rules) for s in specs]
    _WORKER.update(rules=rules, policies=built, names=tuple(names), seed=seed,
                   rng_scope=rng_scope)


def _play_task(task: Task) -> MatchResult:
    (i, j), seeds = task
    w = _WORKER
    return play_match(w["rules"], [w["policies"][i], w["policies"][j]], seeds, seed=w["seed"],
                      rng_scope=w["rng_scope"], names=[w["names"][i], w["names"][j]])


def _ordered_results(tasks: Iterator[Task], skip: Callable[[Task], bool], workers: int,
                     init_args: tuple[Any, ...]) -> Iterator[tuple[Task, MatchResult]]:
    """Play tasks (skipping those ``skip`` rejects when their turn to start comes) and
    yield their results in task order; up to 2 x ``workers`` tasks run ahead."""
    if workers <= 1:
        _init_worker(*init_args)
        for task in tasks:
            if not skip(task):
                yield task, _play_task(task)
        return
    context = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                initargs=init_args) as pool:
        window: deque[tuple[Task, cf.Future[MatchResult]]] = deque()

        def fill() -> None:
            while len(window) < 2 * workers:
                task = next((t for t in tasks if not skip(t)), None)
                if task is None:
                    return
                window.append((task, pool.submit(_play_task, task)))

        fill()
        while window:
            task, future = window.popleft()
            yield task, future.result()
            fill()


def _tasks(cfg: EvalConfig, pairs: Sequence[Pair]) -> Iterator[Task]:
    """Chunk-major order: chunk 0 of every pair, then chunk 1, ..."""
    seeds = cfg.seed_start + np.arange(cfg.deals, dtype=np.int64)
    for start in range(0, cfg.deals, cfg.chunk_deals):
        for pair in pairs:
            yield pair, seeds[start:start + cfg.chunk_deals]


def _should_stop(cfg: EvalConfig, parts: list[MatchResult]) -> bool:
    match = concat_results(parts)
    if not cfg.sequential or match.num_deals < cfg.min_deals:
        return False
    diff = stats.pair_difference(match)
    return stats.excludes_zero(stats.summarize(diff, cfg.confidence, cfg.bootstrap, cfg.seed))


def play_pool(cfg: EvalConfig, policies: Sequence[Policy] | None = None
              ) -> tuple[tuple[str, ...], dict[Pair, MatchResult], set[Pair]]:
    """Play every pair of ``cfg.agents`` (or of ``policies``, named by ``cfg.agents``).

    Returns:
        (agent names, match per pair (i, j) with i < j, pairs stopped early).
    """
    names = unique_names(cfg.agents)
    if policies is not None and len(policies) != len(names):
        raise ValueError(f"{len(policies)} policies for {len(names)} agent names")
    pairs = list(combinations(range(len(names)), 2))
    parts: dict[Pair, list[MatchResult]] = {pair: [] for pair in pairs}
    stopped: set[Pair] = set()
    init_args = (cfg.rules(), cfg.agents, policies, names, cfg.seed, cfg.rng_scope)
    total = cfg.deals * len(pairs)
    with tqdm(total=total, desc="deals", unit="deal", disable=not cfg.progress) as bar:
        results = _ordered_results(_tasks(cfg, pairs), lambda t: t[0] in stopped,
                                   cfg.num_workers(), init_args)
        for (pair, seeds), result in results:
            if pair in stopped:
                continue
            parts[pair].append(result)
            bar.update(seeds.size)
            if _should_stop(cfg, parts[pair]):
                stopped.add(pair)
                bar.total -= cfg.deals - sum(p.num_deals for p in parts[pair])
                bar.refresh()
    return names, {pair: concat_results(p) for pair, p in parts.items()}, stopped


def run(cfg: EvalConfig, policies: Sequence[Policy] | None = None,
        write: bool = True) -> EvalResult:
    """Play, summarise and (with ``write``) write the report into the run directory."""
    names, matches, stopped = play_pool(cfg, policies)
    summary = summarize_pool(names, matches, cfg.players, stopped, cfg.confidence,
                             cfg.bootstrap, cfg.seed)
    result = EvalResult(cfg, names, matches, summary, stopped)
    if write:
        from eval.report import write_report  # matplotlib only when writing

        result.out_dir = write_report(result)
    return result
