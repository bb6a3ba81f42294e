"""Worker processes that end with their parent, even when the parent is killed with -9.

A ``ProcessPoolExecutor`` worker waits on its task queue; when its parent dies without
closing the pool (``kill -9``, an out-of-memory kill) nothing tells the worker, and it
(with multiprocessing's resource tracker, which waits for every holder of its pipe) would
run on as an orphan. ``die_with_parent``, called first in a worker, starts a daemon
thread that ends the process as soon as its parent process is gone.
"""

from __future__ import annotations

import os
import threading
import time

POLL_S = 0.5


def die_with_parent(poll: float = POLL_S) -> None:
    """End this process (``os._exit``) within ``poll`` seconds of its parent's end."""
    parent = os.getppid()
    if parent <= 1:  # already orphaned: adopted by init
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, poll), name="zolik-lifeline",
                     daemon=True).start()


def _watch(parent: int, poll: float) -> None:
    while True:
        time.sleep(poll)
        if os.getppid() != parent:  # re-parented: the parent is gone
            os._exit(1)
