"""Dask runs on the cluster, and a lost cluster ends the run in one line.

Before analyzer/execution/cluster.py: with one worker thread joblib ran every
task inside this process (manifest: ``backend: dask``); with every worker dead
the run waited forever; with the scheduler dead it ended in a 57-line traceback.
Clusters here are ``dask scheduler``/``dask worker`` processes on 127.0.0.1 only,
each in its own process group so a test can kill it whole; every wait is bounded.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client

from analyzer.execution.cluster import ClusterError, dask_results
from analyzer.execution.executor import run_tasks

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def _pid() -> int:
    return os.getpid()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spawn(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([PY, "-m", *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _kill(p: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait(timeout=10)


class Cluster:
    """A scheduler and a one-thread worker on 127.0.0.1, killable separately."""

    def __init__(self, worker_env: dict[str, str] | None = None) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = _spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port,
                                 "--no-dashboard"])
        self.worker = _spawn(["distributed.cli.dask_worker", self.address, "--nthreads", "1", "--nworkers", "1",
                              "--host", "127.0.0.1", "--no-dashboard"], worker_env)
        with Client(self.address, timeout="20s", set_as_default=False) as client:  # up, with its worker
            client.wait_for_workers(1, timeout=20)

    def close(self) -> None:
        _kill(self.worker)
        _kill(self.scheduler)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    yield c
    c.close()


def _later(seconds: float, fn) -> None:
    threading.Timer(seconds, fn).start()


def test_one_thread_cluster_runs_on_the_cluster_and_a_dead_scheduler_is_one_line(cluster: Cluster) -> None:
    """joblib ran these in-process (one thread in all: n_jobs == 1), so the pid was ours."""
    pids = list(run_tasks(_pid, [(), ()], jobs=-1, backend="dask", scheduler=cluster.address))
    assert len(pids) == 2 and os.getpid() not in pids
    # then the scheduler dies under a running task: one line, in bounded time (not a 57-line traceback)
    results = dask_results(time.sleep, [(30,), (30,)], scheduler=cluster.address, lost_after=60)
    _later(1.0, lambda: _kill(cluster.scheduler))
    t0 = time.monotonic()
    with pytest.raises(ClusterError, match=r"the scheduler is gone\); finished chunks are kept"):
        list(results)
    assert time.monotonic() - t0 < 20


def test_all_workers_dead_is_one_line_in_bounded_time(cluster: Cluster) -> None:
    results = dask_results(time.sleep, [(30,), (30,)], scheduler=cluster.address, lost_after=2)
    _later(1.0, lambda: _kill(cluster.worker))
    t0 = time.monotonic()
    with pytest.raises(ClusterError, match="lost the Dask scheduler at .*no worker for 2 s.*rerun to resume"):
        list(results)
    assert time.monotonic() - t0 < 20


def test_lost_scheduler_mid_run_keeps_chunks_and_resumes(tmp_path: Path) -> None:
    """The whole CLI: one stderr line, exit 2, no traceback; the rerun reuses the finished chunks."""
    c = Cluster(worker_env={"FAKE_SIM_SLEEP": "0.5"})  # 20 chunks: 10 s at least
    try:
        exp = tmp_path / "e.toml"
        exp.write_text('name = "e"\nvariant = "czech"\nplayers = 2\ndeals = 200\nchunk_size = 10\nreports = []\n',
                       encoding="utf-8")
        out = tmp_path / "out"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DURAK_SIMULATOR": "tests.fake_sim"}
        run = subprocess.Popen([PY, "-m", "analyzer", "run", str(exp), "--backend", "dask", "--scheduler", c.address,
                                "--out", str(out), "--quiet"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(list((out / "chunks").glob("c*-k*.zip"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        _kill(c.scheduler)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 2, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith("durak: error: lost the Dask scheduler at") and "rerun to resume" in err
        kept = len(list((out / "chunks").glob("c*-k*.zip")))
        assert 2 <= kept < 20
        again = subprocess.run([PY, "-m", "analyzer", "run", str(exp), "--jobs", "1", "--out", str(out), "--quiet"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert again.returncode == 0, again.stderr
        assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == kept
    finally:
        c.close()


def test_a_scheduler_lost_between_rounds_says_rerun_to_resume(cluster: Cluster) -> None:
    """A run of several rounds connects once per round: a scheduler that served the first and is gone for the
    next was lost mid-run (it said "cannot connect", as for an address that never answered)."""
    assert len(list(run_tasks(_pid, [()], jobs=-1, backend="dask", scheduler=cluster.address))) == 1
    _kill(cluster.scheduler)
    with pytest.raises(ClusterError, match=r"^lost the Dask scheduler at tcp://.*; finished chunks are kept; "
                                           r"rerun to resume$"):
        list(run_tasks(_pid, [()], jobs=-1, backend="dask", scheduler=cluster.address))
