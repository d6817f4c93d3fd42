"""Stopping durak: one line, no stray workers.

Real subprocess runs, killed for real: SIGTERM prints one line (it printed four
lines of joblib warnings), a ``kill -9`` of the main process takes its workers
with it (they were seen alive 51 minutes later), and Ctrl-C of ``durak
simulate`` no longer promises chunks on disk (simulate stores none).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import analyzer.execution.executor as executor
from analyzer.cli.app import main
from analyzer.execution import lifeline
from tests.execution.test_decision_limit import wrapped_by_c_code

ROOT = Path(__file__).resolve().parents[2]
EXP = 'name = "sig"\nvariant = "czech"\nplayers = 2\ndeals = 60\nchunk_size = 10\nreports = []\n'


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _in_task(pid: int) -> list[int]:
    """The loky workers of ``pid`` whose main thread is in time.sleep (FAKE_SIM_SLEEP: a chunk is running)."""
    found = []
    for k in _children(pid):
        try:
            if (b"popen_loky" in Path(f"/proc/{k}/cmdline").read_bytes()
                    and Path(f"/proc/{k}/wchan").read_text() == "hrtimer_nanosleep"):
                found.append(k)
        except OSError:
            continue
    return found



def _hears_ctrl_c() -> None:
    """In the child before it starts: Ctrl-C acts whatever the parent ignores (a shell's background job, such as
    a CI run started with ``&``, ignores SIGINT, and a child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def _start_run(tmp: Path, sleep: str, pipes: bool = True) -> tuple[subprocess.Popen[str], Path]:
    exp = tmp / "sig.toml"
    exp.write_text(EXP, encoding="utf-8")
    out = tmp / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DURAK_SIMULATOR": "tests.fake_sim", "FAKE_SIM_SLEEP": sleep}
    p = subprocess.Popen([sys.executable, "-m", "analyzer", "run", str(exp), "--jobs", "2", "--out", str(out),
                          "--quiet"], cwd=tmp, env=env, text=True, preexec_fn=_hears_ctrl_c,
                         **({"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} if pipes else
                            {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}))
    return p, out


def _wait_for_chunks(out: Path, n: int, p: subprocess.Popen[str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while len(list((out / "chunks").glob("c*-k*.zip"))) < n:
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "no chunk finished in time"
        time.sleep(0.1)


def test_sigterm_is_one_line_stops_the_workers_and_resumes(tmp_path: Path) -> None:
    p, out = _start_run(tmp_path, "0.5")
    _wait_for_chunks(out, 1, p)
    kids = _children(p.pid)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert err == "durak: terminated; finished chunks are on disk, rerun to resume\n"
    deadline = time.monotonic() + 15
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(k) for k in kids)
    kept = len(list((out / "chunks").glob("c*-k*.zip")))
    again = subprocess.run([sys.executable, "-m", "analyzer", "run", str(tmp_path / "sig.toml"), "--jobs", "1",
                            "--out", str(out), "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "DURAK_SIMULATOR": "tests.fake_sim"})
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == kept >= 1


def test_kill_9_of_the_main_process_takes_its_workers_along(tmp_path: Path) -> None:
    """Each chunk sleeps 30 s, so without the parent watch the workers outlive this test."""
    p, out = _start_run(tmp_path, "30", pipes=False)  # a surviving worker would hold our pipes open
    deadline = time.monotonic() + 90
    while len(_in_task(p.pid)) < 2:  # both workers inside a chunk's 30 s sleep
        assert p.poll() is None and time.monotonic() < deadline, "no loky workers started"
        time.sleep(0.2)
    kids = _children(p.pid)
    p.kill()
    p.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [k for k in kids if _alive(k)]
    for k in left:  # do not leave them behind even when the test fails
        os.kill(k, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


def test_ctrl_c_of_simulate_does_not_promise_chunks(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(executor, "simulate_cells", interrupted)
    with pytest.raises(SystemExit) as ei:
        main(["simulate", "--deals", "10", "--jobs", "1"])
    assert ei.value.code == 130
    assert capsys.readouterr().err == "durak: interrupted\n"


def test_interrupt_line_names_resuming_only_for_run() -> None:
    assert lifeline.interrupt_line(["run", "x.toml"]).endswith("finished chunks are on disk, rerun to resume")
    assert lifeline.interrupt_line(["--help"]) == "durak: interrupted"
    assert lifeline.interrupt_line(["compare", "a", "b"]) == "durak: interrupted"


def test_ctrl_c_that_c_code_wrapped_in_a_system_error_is_still_one_line_and_exit_130(monkeypatch, capsys) -> None:
    """Ctrl-C landing inside numba's dispatcher, outside any strategy call, surfaces as a SystemError caused by
    it: the command still ends in its one line; a SystemError with no stop behind it is not mistaken for one."""
    import analyzer.cli.app as app_module

    def stopped(**_kwargs):
        raise wrapped_by_c_code(KeyboardInterrupt())

    monkeypatch.setattr(app_module, "app", stopped)
    with pytest.raises(SystemExit) as ei:
        main(["compare", "a", "b"])
    assert ei.value.code == 130
    assert capsys.readouterr().err.strip().splitlines() == ["durak: interrupted"]

    def broken(**_kwargs):
        raise wrapped_by_c_code(ValueError("not a stop"))

    monkeypatch.setattr(app_module, "app", broken)
    with pytest.raises(SystemError):
        main(["compare", "a", "b"])


def test_guarded_runs_in_process_without_a_watch() -> None:
    """The in-process path (jobs=1) must never watch our own parent (a closed shell would end the run)."""
    assert lifeline.guarded(os.getpid(), pow, 2, 10) == 1024
    assert lifeline._watching is None


IDLE_SCRIPT = """
import sys, time
from analyzer.execution.executor import run_tasks
print(sorted(run_tasks(pow, [(2, k) for k in range(8)], jobs=2)), flush=True)
time.sleep(600)  # the pool's workers sit idle while their parent waits here
"""


def test_kill_9_of_an_idle_parent_takes_its_idle_workers_along(tmp_path: Path) -> None:
    """Workers between tasks end with their parent too, well before loky's idle timeout (set to 300 s here)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DURAK_IDLE_WORKER_SECONDS": "300"}
    p = subprocess.Popen([sys.executable, "-c", IDLE_SCRIPT], cwd=tmp_path, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    assert p.stdout.readline().strip() == str([2 ** k for k in range(8)])
    kids = [k for k in _children(p.pid) if b"popen_loky" in Path(f"/proc/{k}/cmdline").read_bytes()]
    assert kids, "no loky workers started"
    p.kill()
    p.wait(timeout=10)
    deadline = time.monotonic() + 30  # a worker still starting up on a busy machine needs time to notice
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, f"idle workers {left} outlived their killed parent"


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


@pytest.mark.parametrize("moment", ["numpy", "llvmlite", "running"])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(tmp_path: Path, moment: str) -> None:
    """Ctrl-C while the imports load (numpy's, then numba's libraries just mapped) or during the run: one line,
    exit 130.  It printed a 20-line KeyboardInterrupt traceback in the first seconds.  A run this long keeps its
    finished chunks (in the user cache, here under tmp_path): once it plays, the line says where they are."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "DURAK_SIMULATE_KEEP": "1000000"}
    p = subprocess.Popen([sys.executable, "-m", "analyzer", "simulate", "--variant", "czech", "--players", "2",
                          "--deals", "100000000", "--jobs", "1"], cwd=tmp_path, env=env, text=True,
                         preexec_fn=_hears_ctrl_c,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lib = "llvmlite" if moment == "running" else moment
    deadline = time.monotonic() + 60
    while lib not in _maps(p.pid) and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.002)
    if moment == "running":
        time.sleep(3.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    kept = re.escape(str(tmp_path / "cache" / "durak-analyzer" / "simulate"))
    assert re.fullmatch(rf"durak: interrupted(; finished chunks are kept in {kept}/[0-9a-f]{{16}}; the same command "
                        r"resumes)?\n", err), err
