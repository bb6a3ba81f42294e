"""``zolik eval --backend ray``: chunks as Ray tasks on a local Ray instance (2 CPUs).
The games equal those of ``--workers 1`` byte for byte, also when a worker process is
killed mid-run (Ray runs its task again); bad addresses and a missing extra are one line.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the [ray] extra (scripts/setup.sh installs it)")

from eval.config import make_config  # noqa: E402
from eval.tournament import run  # noqa: E402

ZOLIK = str(Path(sys.executable).parent / "zolik")
SETTINGS = {"agents": ["planner", "greedy"], "deals": 40, "chunk_deals": 4, "plots": False,
            "progress": False}


def _games(out):
    return (out / "games.csv").read_text()


def _task_pids():
    """Pids of the Ray worker processes running a chunk now (their title names the task)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if title.startswith(b"ray::_play_on_worker"):
                pids.append(int(entry.name))
    return pids


def test_ray_backend__the_same_games_as_one_local_worker(local_ray, tmp_path):
    run(make_config({**SETTINGS, "workers": 1, "out": str(tmp_path / "local")}))
    run(make_config({**SETTINGS, "backend": "ray", "out": str(tmp_path / "ray")}))
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    assert (tmp_path / "ray" / "pairs.csv").read_text() == \
        (tmp_path / "local" / "pairs.csv").read_text()


def test_ray_backend__a_killed_worker_has_its_chunk_run_again(local_ray, tmp_path):
    run(make_config({**SETTINGS, "workers": 1, "out": str(tmp_path / "local")}))
    killed: list[int] = []
    done = threading.Event()

    def kill_one() -> None:
        while not done.is_set() and not killed:
            pids = _task_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one)
    killer.start()
    try:
        run(make_config({**SETTINGS, "backend": "ray", "out": str(tmp_path / "ray")}))
    finally:
        done.set()
        killer.join()
    assert killed  # a worker died in the middle of a chunk
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")  # none lost, none twice


def test_ray_backend__an_address_nobody_answers_at_is_one_line_soon():
    started = time.time()
    done = subprocess.run([ZOLIK, "eval", "--agents", "random", "greedy", "--deals", "2",
                           "--backend", "ray", "--address", "127.0.0.1:1", "--no-progress"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and time.time() - started < 30
    assert done.stderr.strip().splitlines()[-1].startswith("zolik eval: no Ray cluster")
    assert "Traceback" not in done.stderr


def test_ray_backend__a_missing_extra_is_named(monkeypatch):
    from eval import ray_backend

    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(RuntimeError, match=r"the ray backend needs the \[ray\] extra"):
        ray_backend.import_ray()
