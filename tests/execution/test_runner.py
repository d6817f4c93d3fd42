"""Runner: reproducibility across jobs/backends, resuming, refusal, outputs (fake simulator)."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import analyzer.execution.runs.cells as runner_module
from analyzer.execution.executor import cell_seed, run_chunk
from analyzer.execution.experiment import ExperimentError, load_experiment
from analyzer.execution.runs import run_experiment
from analyzer.execution.seeds import chunk_seed
from analyzer.execution.store import ResumeError
from tests import fake_sim

ROOT = Path(__file__).resolve().parents[2]
SIM = "tests.fake_sim"
TABLES = ("cells", "positions", "totals", "hist")

EXP = """
name = "t"
variants = ["czech", "svinya"]
players = [2, 3]
field = ["random", "greedy"]
deals = 2_000
matches = 200
chunk_size = 1_000
match_chunk_size = 100
seed = 11
[grid]
reshuffle = ["turn_over", "shuffle"]
"""


@pytest.fixture
def exp_file(tmp_path: Path) -> Path:
    p = tmp_path / "t.toml"
    p.write_text(EXP)
    return p


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uninterrupted jobs=1 run of EXP that every other way of running must reproduce."""
    d = tmp_path_factory.mktemp("whole")
    (d / "t.toml").write_text(EXP)
    return run(d / "t.toml", d / "out")


def run(path: Path, out: Path, **kw: object) -> Path:
    kw.setdefault("jobs", 1)
    return run_experiment(path, out=out, simulator=SIM, quiet=True, report=False, **kw)  # type: ignore[arg-type]


def results(out: Path) -> dict[str, pd.DataFrame]:
    return {t: pd.read_parquet(out / "results" / f"{t}.parquet") for t in TABLES}


def assert_same(a: Path, b: Path) -> None:
    ra, rb = results(a), results(b)
    for t in TABLES:
        pd.testing.assert_frame_equal(ra[t], rb[t], check_exact=True)


def test_run_chunk_is_a_function_of_its_seed(exp_file: Path) -> None:
    exp = load_experiment(exp_file, resolve_strategy=fake_sim.get_strategy)
    cell = exp.cells[5]
    a = run_chunk(cell, 1, 400, cell_seed(11, cell, 1), False, simulator=SIM).tables()
    b = run_chunk(cell, 1, 400, cell_seed(11, cell, 1), False, simulator=SIM).tables()
    c = run_chunk(cell, 2, 400, cell_seed(11, cell, 2), False, simulator=SIM).tables()
    pd.testing.assert_frame_equal(a["positions"], b["positions"])
    assert not a["positions"].equals(c["positions"])
    assert list(a["positions"]["strategy"]) == list(cell.lineup)
    assert int(a["totals"]["n"].iloc[0]) == 400


def test_outputs_and_manifest(exp_file: Path, tmp_path: Path) -> None:
    out = run(exp_file, tmp_path / "out")
    r = results(out)
    cells = r["cells"]
    assert list(cells.columns) == ["cell", "variant", "players", "unit", "n", "lineup", "rules",
                                   "label", "reshuffle"]
    assert len(cells) == 2 * (2 + 1) * 2 * 2  # units x (czech 2,3 + svinya 2) x grid x rotations
    row = cells.iloc[2]
    assert row["lineup"] == "random,greedy" and row["reshuffle"] == "shuffle"
    assert row["rules"] == "reshuffle=shuffle"  # the one text form of the rules (RuleSet.describe)
    assert row["label"] == "czech 2p reshuffle=shuffle random,greedy"
    tot = r["totals"].set_index("cell")
    assert (tot["n"] == cells.set_index("cell")["n"]).all()
    pos = r["positions"]
    assert pos.groupby("cell")["n"].first().tolist() == cells["n"].tolist()
    assert set(r["hist"]["kind"]) == {"turns", "points", "deals"}
    m = json.loads((out / "manifest.json").read_text())
    for key in ("experiment", "seed", "version", "started", "finished", "total_deals",
                "deals_per_second", "command", "jobs", "backend", "reports", "fingerprint"):
        assert key in m
    assert m["experiment"]["name"] == "t" and m["seed"] == 11 and m["chunks_resumed"] == 0
    assert m["units"] == {"deal": 12 * 2_000, "match": 12 * 200}
    assert m["total_deals"] == int(tot["deals_sum"].sum()) > 12 * 2_000
    assert m["command"] == f"durak run {exp_file} --out {tmp_path / 'out'}"


def test_jobs_do_not_change_results(exp_file: Path, tmp_path: Path, whole: Path) -> None:
    assert_same(whole, run(exp_file, tmp_path / "b", jobs=2))


def test_resume_after_a_crash_is_identical(exp_file: Path, tmp_path: Path, whole: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cell = load_experiment(exp_file, resolve_strategy=fake_sim.get_strategy).cells[7]
    crash = cell_seed(11, cell, 1).spawn_key  # cell 7, chunk 1: in the middle of the run
    monkeypatch.setenv("FAKE_SIM_CRASH", ",".join(map(str, crash)))
    with pytest.raises(RuntimeError, match="fake crash"):
        run(exp_file, tmp_path / "broken")
    stored = list((tmp_path / "broken" / "chunks").glob("c*.zip"))
    assert 0 < len(stored) < 48
    monkeypatch.delenv("FAKE_SIM_CRASH")
    run(exp_file, tmp_path / "broken")
    assert_same(whole, tmp_path / "broken")
    m = json.loads((tmp_path / "broken" / "manifest.json").read_text())
    assert m["chunks_resumed"] == len(stored)


def test_damaged_chunks_are_recomputed(exp_file: Path, tmp_path: Path, whole: Path) -> None:
    out = run(exp_file, tmp_path / "out")
    chunks = sorted((out / "chunks").glob("c*.zip"))
    data = chunks[3].read_bytes()
    chunks[3].write_bytes(data[: len(data) // 2])  # torn
    chunks[4].write_bytes(data)  # a valid file, but of another chunk
    raw = bytearray(chunks[5].read_bytes())
    raw[len(raw) // 3] ^= 0xFF  # bit rot inside a member: CRC mismatch
    chunks[5].write_bytes(bytes(raw))
    (out / "chunks" / ".tmp-leftover.zip").write_bytes(data[:100])
    run(exp_file, out)
    assert_same(whole, out)
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == len(chunks) - 3
    assert not list((out / "chunks").glob(".tmp-*"))


def test_changed_experiment_refuses_to_resume(exp_file: Path, tmp_path: Path) -> None:
    out = run(exp_file, tmp_path / "out")
    exp_file.write_text(EXP.replace("description", "x").replace("seed = 11", "seed = 12"))
    with pytest.raises(ResumeError) as ei:
        run(exp_file, out)
    assert str(ei.value) == (f"experiment changed since the stored chunks in {out / 'chunks'}; "
                             "use --fresh or another --out")
    run(exp_file, out, fresh=True)
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == 0


def test_equivalent_edits_still_resume(exp_file: Path, tmp_path: Path) -> None:
    """Only what changes chunk contents counts: a description or a default spelled out does not."""
    out = run(exp_file, tmp_path / "out", deals=200)
    exp_file.write_text('description = "now documented"\n' + EXP + 'hand_size = [5]\n')
    run(exp_file, out, deals=200)
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] == 12 * 1 + 12 * 2


def test_more_deals_reuse_finished_chunks(tmp_path: Path) -> None:
    path = tmp_path / "more.toml"
    path.write_text('variant = "svinya"\nfield = ["random", "greedy"]\ndeals = 2_000\nchunk_size = 1_000\n')
    out = run(path, tmp_path / "out")
    run(path, out, deals=2_500)
    m = json.loads((out / "manifest.json").read_text())
    assert m["chunks_resumed"] == 2 * 2  # chunks 0 and 1 of both cells; chunk 2 (500) is new
    assert "--deals 2500" in m["command"]
    assert_same(run(path, tmp_path / "ref", deals=2_500), out)


def test_bad_arguments(exp_file: Path, tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="backend"):
        run(exp_file, tmp_path / "o", backend="spark")
    with pytest.raises(ExperimentError, match="jobs"):
        run(exp_file, tmp_path / "o", jobs=0)
    with pytest.raises(ExperimentError, match="deals override"):
        run(exp_file, tmp_path / "o", deals=-1)


def test_report_hook(exp_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []
    monkeypatch.setattr(runner_module, "build_report", seen.append)
    out = run_experiment(exp_file, out=tmp_path / "o", simulator=SIM, quiet=True, jobs=1, deals=100)
    assert seen == [out]


def test_quiet_off_a_terminal_prints_nothing(exp_file: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    run_experiment(exp_file, out=tmp_path / "o", simulator=SIM, jobs=1, deals=100, report=False)
    assert capsys.readouterr() == ("", "")


def test_dask_backend_matches_local(exp_file: Path, tmp_path: Path, whole: Path) -> None:
    distributed = pytest.importorskip("distributed")
    # a worker process of its own: it must import the simulator by its path, as remote ones do
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                                  processes=True, dashboard_address=None) as cluster:
        remote = run(exp_file, tmp_path / "dask", backend="dask",
                     scheduler=cluster.scheduler_address, jobs=-1)
    assert_same(whole, remote)
    assert json.loads((remote / "manifest.json").read_text())["backend"] == "dask"


def test_kill_9_then_resume(exp_file: Path, tmp_path: Path, whole: Path) -> None:
    """A real run killed at a random moment resumes to the uninterrupted result."""
    out = tmp_path / "killed"
    code = ("import sys; from analyzer.execution.runs import run_experiment; "
            f"run_experiment(sys.argv[1], out=sys.argv[2], simulator={SIM!r}, jobs=2, quiet=True, report=False)")
    env = {**os.environ, "FAKE_SIM_SLEEP": "0.05", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", code, str(exp_file), str(out)], cwd=ROOT, env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    # wait until some chunks exist, then kill at a random moment soon after
    while not list((out / "chunks").glob("c*.zip")):
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(random.uniform(0.0, 0.3))
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its loky workers, mid-write or not
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    done = len(list((out / "chunks").glob("c*.zip")))
    assert 0 < done < 48
    run(exp_file, out)
    assert_same(whole, out)


def test_chunk_seeds_are_independent_of_everything_else() -> None:
    a = chunk_seed(1, "cell", "deal|czech 4p|random", 3).generate_state(4)
    assert np.array_equal(a, chunk_seed(1, "cell", "deal|czech 4p|random", 3).generate_state(4))
    for other in (chunk_seed(2, "cell", "deal|czech 4p|random", 3), chunk_seed(1, "compare", "deal|czech 4p|random", 3),
                  chunk_seed(1, "cell", "deal|czech 3p|random", 3), chunk_seed(1, "cell", "deal|czech 4p|random", 4)):
        assert not np.array_equal(a, other.generate_state(4))


def test_a_cells_streams_follow_its_content_not_its_index(exp_file: Path) -> None:
    """A cell's numbers depend on what it is; cells never share a stream."""
    exp = load_experiment(exp_file, resolve_strategy=fake_sim.get_strategy)
    keys = {tuple(cell_seed(11, c, 0).spawn_key) for c in exp.cells}
    assert len(keys) == len(exp.cells)
    moved = dataclasses.replace(exp.cells[5], index=0)
    assert cell_seed(11, moved, 0).spawn_key == cell_seed(11, exp.cells[5], 0).spawn_key
