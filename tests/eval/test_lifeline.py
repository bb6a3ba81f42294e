"""Workers die with their parent: ``zolik eval --workers 2`` killed with -9 leaves no
worker and no resource tracker running (``eval.lifeline``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def _wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_a_worker_ends_when_its_parent_is_killed(tmp_path):
    script = ("import multiprocessing as mp, time, sys\n"
              "from eval.lifeline import die_with_parent\n"
              "def child():\n    die_with_parent(0.1)\n    time.sleep(60)\n"
              "if __name__ == '__main__':\n"
              "    p = mp.get_context('spawn').Process(target=child); p.start()\n"
              "    print(p.pid, flush=True); time.sleep(60)\n")
    (tmp_path / "parent.py").write_text(script)
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    child = int(parent.stdout.readline())
    assert alive({child})
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert _wait_for(lambda: not alive({child}), 5)


def test_eval_workers__gone_after_kill_9(tmp_path):
    command = [sys.executable, "-m", "cli.main", "eval", "--agents", "random", "random",
               "--deals", "200000", "--chunk-deals", "50", "--workers", "2", "--no-plots",
               "--out", str(tmp_path / "ev")]
    parent = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        assert _wait_for(lambda: len(children(parent.pid)) >= 3, 120)  # 2 workers, tracker
        spawned = children(parent.pid)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert _wait_for(lambda: not alive(spawned), 10), alive(spawned)
