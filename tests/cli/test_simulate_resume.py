"""``durak simulate`` keeps its finished chunks when asked (``--out``) or when the run is long, and resumes.

A stopped run of a billion deals must not start over: the same command finds the chunks it kept (in ``--out``,
or for a long run in the user cache, in a folder named by what decides the chunks' content) and plays only the
rest; its numbers are those of a run never stopped, and of ``durak simulate`` without a store.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: every number a run prints that does not depend on how it was run (timing and the store aside)
NUMBERS = ("deals", "win_rate", "win_ci", "loser_rate", "mean_points", "wild_held_rate", "mean_turns", "blocked",
           "capped", "loser_by_wild_rate")
ARGS = ("simulate", "--variant", "prague", "--players", "3", "--jobs", "1", "--seed", "5", "--json")



def _hears_ctrl_c() -> None:
    """In the child before it starts: Ctrl-C acts whatever the parent ignores (a shell's background job, such as
    a CI run started with ``&``, ignores SIGINT, and a child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

def _env(tmp_path: Path, keep_from: int) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "DURAK_SIMULATE_KEEP": str(keep_from),
            "PYTHONPATH": str(ROOT)}


def _simulate(env: dict[str, str], *extra: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "analyzer", *ARGS, *extra], env=env, capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _numbers(result: dict) -> dict:
    return {k: result[k] for k in NUMBERS}


def test_simulate_out_keeps_the_run_and_resumes_it_with_the_same_numbers(tmp_path: Path) -> None:
    env = _env(tmp_path, 10**12)  # no automatic keeping: only --out stores
    plain = _simulate(env, "--deals", "150000")
    assert "stored" not in plain
    stored = _simulate(env, "--deals", "150000", "--out", str(tmp_path / "run"))
    assert _numbers(stored) == _numbers(plain)
    assert stored["stored"] == str(tmp_path / "run") and stored["chunks_resumed"] == 0
    assert (tmp_path / "run" / "manifest.json").is_file() and len(list((tmp_path / "run" / "chunks").glob("c*-k*.zip"))) == 3
    again = _simulate(env, "--deals", "150000", "--out", str(tmp_path / "run"))
    assert _numbers(again) == _numbers(plain) and again["chunks_resumed"] == 3 and again["deals_this_run"] == 0
    more = _simulate(env, "--deals", "200000", "--out", str(tmp_path / "run"))  # more deals: the first chunks reused
    assert more["chunks_resumed"] == 3 and more["deals_this_run"] == 50_000
    assert _numbers(more) == _numbers(_simulate(env, "--deals", "200000"))


#: the stopped run's deals: 16 chunks of 50,000, time enough to stop it after three
LONG = 800_000


def test_a_long_simulate_stopped_resumes_from_the_user_cache(tmp_path: Path) -> None:
    """Kept from 100,000 deals on (the threshold lowered for the test): stopped with Ctrl-C after a few chunks, the
    command says where they are; the same command resumes there, gives the numbers of a run never stopped, and
    removes the folder once it is done."""
    env = _env(tmp_path, 100_000)
    cmd = [sys.executable, "-m", "analyzer", *ARGS, "--deals", str(LONG)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=_hears_ctrl_c)
    kept = tmp_path / "cache" / "durak-analyzer" / "simulate"
    deadline = time.monotonic() + 300
    while len(list(kept.glob("*/chunks/c*-k*.zip"))) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be stopped: give it more deals"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    (folder,) = kept.iterdir()
    assert f"finished chunks are kept in {folder}; the same command resumes" in err.splitlines()[-1]
    done = len(list(folder.glob("chunks/c*-k*.zip")))  # finished chunks, not a .tmp- file half written
    assert 3 <= done < LONG // 50_000
    resumed = _simulate(env, "--deals", str(LONG))
    assert resumed["chunks_resumed"] == done and resumed["deals_this_run"] == LONG - 50_000 * done
    assert resumed["stored"] is None and not folder.exists()  # done: the cache holds nothing more
    assert _numbers(resumed) == _numbers(_simulate(_env(tmp_path, 10**12), "--deals", str(LONG)))
