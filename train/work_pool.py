"""Work split over processes with one progress bar: the warm start's teacher data and
its features are made in ``spawn`` worker processes (safe with torch), each reporting its
progress to the parent's bar through a queue; the workers end with their parent
(``eval.lifeline``)."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import queue
from collections.abc import Callable
from typing import Any

from eval.lifeline import die_with_parent


class _QueueBar:
    """A worker's progress bar: its updates go to the parent's bar through ``ticks``."""

    def __init__(self, ticks: Any) -> None:
        self.ticks = ticks

    def update(self, n: int) -> None:
        self.ticks.put(n)


def in_processes(fn: Callable[..., Any], jobs: list[dict[str, Any]], workers: int,
                 bar: Any, on_done: Callable[[int, Any], None] | None = None) -> list[Any]:
    """``[fn(**job, bar=...) for job in jobs]``, in up to ``workers`` processes, with every
    job's progress shown on ``bar`` (closed at the end). ``on_done(i, result)`` is called
    as each job ends, in the order they end: a caller keeps each finished job's work at
    once, so a run stopped midway loses only the jobs still playing."""
    done = on_done or (lambda i, result: None)
    if workers <= 1 or len(jobs) <= 1:
        results = []
        for i, job in enumerate(jobs):
            results.append(fn(**job, bar=bar))
            done(i, results[-1])
        bar.close()
        return results
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, cf.ProcessPoolExecutor(
            min(workers, len(jobs)), mp_context=context, initializer=die_with_parent) as pool:
        ticks = manager.Queue()
        futures = [pool.submit(fn, **job, bar=_QueueBar(ticks)) for job in jobs]
        job_of = {future: i for i, future in enumerate(futures)}
        pending: set[cf.Future[Any]] = set(futures)
        while pending:
            finished, pending = cf.wait(pending, timeout=0.5)
            _drain(ticks, bar)
            for future in sorted(finished, key=job_of.__getitem__):
                done(job_of[future], future.result())
        results = [future.result() for future in futures]
    bar.close()
    return results


def _drain(ticks: Any, bar: Any) -> None:
    while True:
        try:
            bar.update(ticks.get_nowait())
        except queue.Empty:
            return


def progress_bar(total: int, enabled: bool) -> Any:
    return make_bar(total, "teacher decisions", "dec", enabled)


def make_bar(total: int, desc: str, unit: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, mininterval=2)
