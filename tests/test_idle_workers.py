"""Issue 11 item 7: killing only the main process leaves no worker behind — busy ones (tests/test_signals.py)
and idle ones, which exit after the executor's idle timeout instead of loky's 300 s."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import os, time
from analyzer.execution.executor import run_tasks
def f(x):
    return os.getpid()
pids = sorted({r for r in run_tasks(f, [(1,), (2,)], jobs=4)})  # some workers never get a task
print(" ".join(map(str, pids)), flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie counts as gone
        return f.read().split()[2] != "Z"


def test_idle_workers_exit_soon_after_the_main_process_is_killed() -> None:
    env = {**os.environ, "DURAK_IDLE_WORKER_SECONDS": "2", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert proc.stdout is not None
    busy = [int(p) for p in proc.stdout.readline().split()]
    listing = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(proc.pid)], capture_output=True, text=True,
                             check=False).stdout.splitlines()
    workers = [int(line.split()[0]) for line in listing if "LokyProcess" in line]  # not loky's trackers
    assert busy and set(busy) <= set(workers) and len(workers) > len(busy)  # idle workers among them
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(_alive(p) for p in workers), f"workers {workers} outlived their killed parent"
