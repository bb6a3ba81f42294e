"""A run dir's files: a fresh dir for a new run, and what a resumed run needs, the newest
checkpoint that loads and logs cut back to it so that every step is logged once (used by
``train.ppo``, ``train.dice.ppo`` and ``train.rllib.ppo``)."""

from __future__ import annotations

import contextlib
import csv
import os
import pathlib
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

_CHECKPOINT = re.compile(r"step_(\d+)\.zip")


def new_run_dir(run_root: str | pathlib.Path, prefix: str) -> pathlib.Path:
    """Make and return ``run_root/{prefix}__{time}``; a run started in the same second as
    another (two seeds side by side) gets ``-2``, ``-3``, ... rather than the same dir."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    pathlib.Path(run_root).mkdir(parents=True, exist_ok=True)
    for suffix in range(1, 1000):
        run_dir = pathlib.Path(run_root) / f"{prefix}__{stamp}{'' if suffix == 1 else f'-{suffix}'}"
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            continue
    raise FileExistsError(f"{run_root}: a thousand runs named {prefix}__{stamp} already")


def step_of(path: pathlib.Path) -> int:
    return int(path.stem.split("_")[1])


def checkpoints(folder: pathlib.Path) -> list[pathlib.Path]:
    """``step_N.zip`` files in ``folder``, oldest first (other names are ignored)."""
    return sorted((p for p in folder.glob("step_*.zip") if _CHECKPOINT.fullmatch(p.name)),
                  key=step_of)


def newest_intact(folder: pathlib.Path, load: Callable[[pathlib.Path], Any]
                  ) -> tuple[Any, int]:
    """``(load(path), step)`` of the newest checkpoint in ``folder`` that loads, or
    ``(None, 0)``; each one that does not is skipped with a one-line warning."""
    for path in reversed(checkpoints(folder)):
        try:
            return load(path), step_of(path)
        except Exception as error:
            print(f"warning: skipping damaged checkpoint {path} ({type(error).__name__}: "
                  f"{error})", file=sys.stderr)
    return None, 0


def truncate_csv(log: pathlib.Path, column: str, step: int) -> dict[str, str] | None:
    """Drop the rows of ``log`` whose ``column`` is past ``step`` (atomically); the last
    row kept, or None."""
    if not log.exists():
        return None
    with log.open(newline="") as f:
        rows = list(csv.DictReader(f))
    kept = [r for r in rows if not r.get(column) or float(r[column]) <= step]
    if len(kept) < len(rows):
        tmp = log.with_name(f".{log.name}.tmp")
        with tmp.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(kept)
        os.replace(tmp, log)
    return kept[-1] if kept else None


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Inside: SIGTERM (a scheduler's stop, ``kill``) raises ``KeyboardInterrupt`` as
    Ctrl-C does, so a training session saves before it ends (main thread only; elsewhere
    signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class StopRequest:
    """Set by Ctrl-C or SIGTERM inside ``stop_requests``; the loop checks ``requested``."""

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:  # asked twice: stop now, whatever is half done
            raise KeyboardInterrupt(f"signal {signum}")
        self.requested = True
        print("stopping after this iteration (again to stop at once, without saving it)",
              file=sys.stderr)


@contextlib.contextmanager
def stop_requests() -> Iterator[StopRequest]:
    """Inside: the first Ctrl-C or SIGTERM only asks the training loop to stop at its next
    boundary (so a checkpoint never holds a half-done update); a second one interrupts.
    Outside the main thread signals cannot be handled and nothing changes."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous = {sig: signal.signal(sig, request._handle)
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield request
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
