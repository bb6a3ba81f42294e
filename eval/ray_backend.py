"""Tournaments on Ray: ``zolik eval --backend ray [--address auto|HOST:PORT]``.

The same chunks as the local backend (``eval.tournament``: ``chunk_deals`` deal seeds of
one pair) become Ray tasks. Each Ray worker process builds the agents once, from the
same arguments a local worker gets (specs, factories or pickled Policy objects, the
agent registry), put into Ray's object store once per run; a task sends its pair and
seeds and gets the chunk's ``MatchResult`` back (a few arrays per deal). Results are
taken in submission order, so sequential stopping, the chunk store (``--resume``) and
the report see exactly what ``--workers 1`` sees: ``games.csv`` is identical byte for
byte. A worker that dies (killed, out of memory, its node lost) has its task run again
by Ray (``max_retries``); a chunk is counted once, when its result arrives.

Without ``--address`` a local Ray instance starts with ``--workers`` CPUs (0: all);
``auto`` joins the cluster this machine belongs to (``ray start`` was run here);
``HOST:PORT`` joins the head node at that address. An address nobody answers at is one
line within seconds; a missing ``[ray]`` extra is one line naming it.
"""

from __future__ import annotations

import socket
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

CONNECT_TIMEOUT_S = 10.0
TASK_RETRIES = 3


def import_ray() -> Any:
    """The ``ray`` module; a one-line error naming the extra when it is not installed."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray backend needs the [ray] extra: pip install -e '.[ray]'"
                           ) from None
    return ray


def check_address(address: str) -> None:
    """Fail fast (one line) when nothing listens at ``HOST:PORT``; Ray itself would keep
    retrying for a long time."""
    if not address or address == "auto" or address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--address must be auto or HOST:PORT, got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as error:
        raise RuntimeError(f"no Ray cluster answers at {address} "
                           f"({error.strerror or error})") from None


def start(address: str, workers: int) -> Any:
    """Connect to (or start) Ray; returns the module."""
    ray = import_ray()
    check_address(address)
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address:
            kwargs["address"] = address
        elif workers:
            kwargs["num_cpus"] = workers
        try:
            ray.init(**kwargs)
        except ConnectionError as error:
            raise RuntimeError(f"cannot join the Ray cluster at {address}: {error}") from None
    return ray


_PLAYER: dict[str, Any] = {}  # per Ray worker process: the init arguments it built


def _play_on_worker(run: str, init: Callable[..., None], play: Callable[[Any], Any],
                    init_args: tuple[Any, ...], task: Any) -> Any:
    """A Ray task: ``init(*init_args)`` once per worker process and run (build the
    agents), then ``play(task)``: the chunk's result."""
    if _PLAYER.get("run") != run:
        init(*init_args)
        _PLAYER["run"] = run
    return play(task)


def ordered_results(tasks: Iterator[Any], skip: Callable[[Any], bool], workers: int,
                    init: Callable[..., None], play: Callable[[Any], Any],
                    init_args: tuple[Any, ...], address: str
                    ) -> Iterator[tuple[Any, Any]]:
    """``eval.tournament``'s ``_ordered_results`` on Ray: each task ``play(task)`` after
    ``init(*init_args)`` in its worker (module-level functions: Ray sends them by name);
    results yielded in task order; up to 2 x the cluster's CPUs run ahead."""
    ray = start(address, workers)
    remote = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(_play_on_worker)
    shared, run = ray.put(init_args), uuid.uuid4().hex
    ahead = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    window: deque[tuple[Any, Any]] = deque()

    def fill() -> None:
        while len(window) < ahead:
            task = next((t for t in tasks if not skip(t)), None)
            if task is None:
                return
            window.append((task, remote.remote(run, init, play, shared, task)))

    fill()
    while window:
        task, ref = window.popleft()
        yield task, ray.get(ref)
        fill()
