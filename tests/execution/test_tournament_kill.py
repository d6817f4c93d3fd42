"""A tournament experiment killed for real (SIGKILL) at several points resumes to a straight run's numbers.

``test_tournament_resume`` interrupts in-process with an exception between
chunks; here a child process is killed by the kernel wherever it happens to
be -- between chunks, mid-chunk, mid-write of a chunk file -- several times
over the same run, and every restart goes on from the stored chunks.  The
tables hold ``HighestCard`` (a user strategy), so they play on the numpy
simulator: no compiled kernel to load in every child.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from analyzer.execution.runs import run_experiment
from tests.helpers_experiments import design_experiment, parse

ROOT = Path(__file__).resolve().parents[2]
HIGHEST = "tests/plugin_example.py:HighestCard"
#: 5 chunks of the 2-player round-robin, then 5 of the 3-player hero tournament
EXP = design_experiment(field=(HIGHEST, "random"), reference=HIGHEST, deals=100, chunk_size=20)
CHUNKS = 10
#: the child sleeps this long before each chunk, so a kill can land at any point of a run
SLOW = 0.25
CHILD = """
import sys, time
import analyzer.execution.runs.tournament as tr
from analyzer.execution.runs import run_experiment
from tests.helpers_experiments import parse

real = tr._job
def job(*args):
    time.sleep(float(sys.argv[3]))
    return real(*args)
tr._job = job
run_experiment(parse(open(sys.argv[1]).read()), out=sys.argv[2], jobs=1, quiet=True, report=False)
"""


def _numbers(folder: Path) -> list[dict[str, Any]]:
    """Every number of results/tournaments.json but the wall-clock time."""
    res = json.loads((folder / "results" / "tournaments.json").read_text())
    return [{k: v for k, v in r.items() if k != "seconds"} for r in res]


def _stored(out: Path) -> int:
    return len(list((out / "chunks").glob("c*-k*.zip")))


def _child(exp: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(exp), str(out), str(SLOW)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _kill_when(proc: subprocess.Popen[bytes], out: Path, chunks: int, delay: float) -> int:
    """SIGKILL ``proc`` ``delay`` seconds after ``chunks`` chunk files exist; the chunks stored at the kill."""
    deadline = time.monotonic() + 300
    while _stored(out) < chunks:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the child stored no chunk in time"
        time.sleep(0.01)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return _stored(out)


def test_a_tournament_experiment_killed_at_several_points_resumes_to_the_numbers_of_a_straight_run(
        tmp_path: Path) -> None:
    exp = tmp_path / "tx.toml"
    exp.write_text(EXP)
    out = tmp_path / "killed"
    # kill points: before the first chunk file, right after chunk 1 (maybe mid-way through writing chunk 2),
    # mid-chunk 4, in the middle of the second tournament, after the last chunk (before or while the results
    # are written)
    seen = []
    for chunks, delay in ((0, 0.0), (1, 0.0), (3, SLOW * 1.5), (7, SLOW / 2), (CHUNKS, 0.0)):
        seen.append(_kill_when(_child(exp, out), out, chunks, delay))
    assert seen == sorted(seen) and seen[-1] == CHUNKS and len(set(seen)) >= 4, seen  # it went on each time
    assert not (out / "results" / "tournaments.json").exists() or _numbers(out)  # complete if there at all
    resumed = run_experiment(parse(EXP), out=out, jobs=1, quiet=True, report=False)
    manifest = json.loads((resumed / "manifest.json").read_text())
    assert manifest["chunks_resumed"] == CHUNKS and manifest["deals_this_run"] == 0
    straight = run_experiment(parse(EXP), out=tmp_path / "straight", jobs=1, quiet=True, report=False)
    assert _numbers(resumed) == _numbers(straight)
