"""The output folder belongs to whoever wrote it.

``durak run`` never deletes or overwrites what it did not write: ``--fresh``
removes only the chunk store's own files, and a folder holding another
experiment's results (a committed example report included) or a user's own
files is refused with one line.  Each test failed on the code before
analyzer/execution/store.py took ownership into account.
"""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path

import pytest

from analyzer.execution import store as store_mod
from analyzer.execution.runs import run_experiment
from analyzer.execution.store import ChunkStore, ResumeError, read_manifest, same_experiment
from tests.helpers_reports import copy_as_cloned

ROOT = Path(__file__).resolve().parents[2]
FAKE = "tests.fake_sim"


def _exp(tmp: Path, name: str = "tiny", players: int = 2, extra: str = "") -> Path:
    p = tmp / f"{name}_{players}.toml"
    p.write_text(f'name = "{name}"\nvariant = "czech"\nplayers = {players}\ndeals = 30\nchunk_size = 10\n'
                 f'reports = []\n{extra}', encoding="utf-8")
    return p


def _run(exp: Path, out: Path, **kw) -> Path:
    return run_experiment(exp, out=out, jobs=1, quiet=True, simulator=FAKE, report=False, **kw)


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_fresh_keeps_a_users_own_file_in_chunks(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    mine = out / "chunks" / "my notes.txt"
    mine.write_text("mine\n", encoding="utf-8")
    _run(_exp(tmp_path), out, fresh=True)
    assert mine.read_text(encoding="utf-8") == "mine\n"
    assert len(list((out / "chunks").glob("c*-k*.zip"))) == 3


def test_fresh_still_recomputes_every_chunk(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    _run(_exp(tmp_path), out, fresh=True)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["chunks_resumed"] == 0 and manifest["deals_this_run"] == 30


def test_a_committed_example_report_is_never_overwritten(tmp_path: Path) -> None:
    """An experiment named first_player aimed at reports/first_player (no chunks/)."""
    report = tmp_path / "first_player"
    copy_as_cloned("first_player", report)
    before = _snapshot(report)
    for fresh in (False, True):
        with pytest.raises(ResumeError, match="holds the results of another experiment .'first_player'") as ei:
            _run(_exp(tmp_path, "first_player"), report, fresh=fresh)
        assert "\n" not in str(ei.value) and "another --out" in str(ei.value)
        assert _snapshot(report) == before


def test_the_same_experiment_may_rerun_into_its_committed_report(tmp_path: Path) -> None:
    """README: `durak run experiments/quick.toml` in a fresh clone rewrites reports/quick."""
    report = tmp_path / "quick"
    copy_as_cloned("quick", report)
    _run(ROOT / "experiments" / "quick.toml", report, deals=20)
    assert json.loads((report / "manifest.json").read_text(encoding="utf-8"))["name"] == "quick"


def test_another_experiments_working_folder_is_refused(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path, "one"), tmp_path / "out")
    before = _snapshot(out)
    with pytest.raises(ResumeError, match="another experiment .'one'"):
        _run(_exp(tmp_path, "two"), out, fresh=True)
    assert _snapshot(out) == before


def test_an_edited_experiment_of_the_same_name_needs_fresh(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    with pytest.raises(ResumeError, match="use --fresh"):
        _run(_exp(tmp_path, players=3), out)
    _run(_exp(tmp_path, players=3), out, fresh=True)
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["experiment"]["players"] == [3]


def test_a_folder_of_someone_elses_files_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "thesis.tex").write_text("x", encoding="utf-8")
    with pytest.raises(ResumeError, match="not empty and holds no durak results .found 'thesis.tex'"):
        _run(_exp(tmp_path), out)
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]


def test_a_run_killed_before_its_manifest_resumes(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    (out / "manifest.json").unlink()
    _run(_exp(tmp_path), out)
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["chunks_resumed"] == 3


@pytest.mark.parametrize("garbage", [b"\xff\xfe\x00garbage", b"not a fingerprint\n", b""])
def test_garbage_fingerprint_is_one_line_and_fresh_recovers(tmp_path: Path, garbage: bytes) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    (out / "chunks" / "FINGERPRINT").write_bytes(garbage)
    with pytest.raises(ResumeError, match="FINGERPRINT is damaged .not a fingerprint.; use --fresh"):
        _run(_exp(tmp_path), out)
    _run(_exp(tmp_path), out, fresh=True)


def test_fingerprint_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    fp = out / "chunks" / "FINGERPRINT"
    fp.unlink()
    fp.mkdir()
    with pytest.raises(ResumeError, match="FINGERPRINT is damaged"):
        _run(_exp(tmp_path), out, fresh=True)  # not a file of ours: left alone


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", '"text"', "[" * 100_000])
def test_a_manifest_that_is_not_an_object_is_one_line(tmp_path: Path, text: str) -> None:
    out = _run(_exp(tmp_path), tmp_path / "out")
    (out / "manifest.json").write_text(text, encoding="utf-8")
    with pytest.raises(ResumeError, match="manifest.json: not a durak manifest") as ei:
        _run(_exp(tmp_path), out)
    assert "\n" not in str(ei.value)
    with pytest.raises(ResumeError):
        read_manifest(out / "manifest.json")


def test_full_disk_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # what write/fsync raise: no file name

    monkeypatch.setattr(store_mod.os, "fsync", full)
    with pytest.raises(OSError) as ei:
        _run(_exp(tmp_path), out)
    assert ei.value.errno == errno.ENOSPC
    assert ei.value.filename and str(out) in ei.value.filename, ei.value
    assert ei.value.strerror == "cannot write: No space left on device"
    assert not list(out.rglob(".tmp-*"))  # the torn temp file is gone


def test_same_experiment_ignores_counts_reports_and_new_keys() -> None:
    ours = {"name": "a", "seed": 1, "deals": 10, "reports": ["x"], "source": "a.toml", "new_key": 1}
    assert same_experiment({"name": "a", "seed": 1, "deals": 99, "reports": ["y"]}, ours)
    assert not same_experiment({"name": "a", "seed": 2}, ours)
    assert not same_experiment({"name": "b", "seed": 1}, ours)
    assert not same_experiment([1, 2], ours)


def test_store_open_without_experiment_keeps_old_behaviour(tmp_path: Path) -> None:
    s = ChunkStore(tmp_path / "chunks", "0" * 64)
    s.open(fresh=False, record={})
    s.close()
    assert (tmp_path / "chunks" / "FINGERPRINT").read_text() == "0" * 64 + "\n"


# --------------------------------------------------------------------------- reading a results folder back


def _finished_copy(tmp: Path) -> Path:
    folder = tmp / "quick"
    copy_as_cloned("quick", folder)
    return folder


@pytest.mark.parametrize("text, words", [("[1, 2]", "a JSON list, not an object"), ('"x"', "a JSON str"),
                                         ("[" * 100_000, "not valid JSON")])
def test_load_results_refuses_a_manifest_that_is_not_an_object(tmp_path: Path, text: str, words: str) -> None:
    from analyzer.stats.tables import ResultsError, load_results

    folder = _finished_copy(tmp_path)
    (folder / "manifest.json").write_text(text, encoding="utf-8")
    with pytest.raises(ResultsError, match=words) as ei:
        load_results(folder)
    assert "\n" not in str(ei.value)


@pytest.mark.parametrize("table, change, words", [
    ("cells", lambda df: df.drop(columns=["players"]), "column 'players' is missing"),
    ("cells", lambda df: df.assign(players="four"), "column 'players' holds"),
    ("positions", lambda df: df.rename(columns={"wins": "won"}), "column 'wins' is missing"),
    ("totals", lambda df: df[["cell"]], "column 'n' is missing"),
    ("hist", lambda df: df.assign(count="many"), "column 'count' holds"),
])
def test_load_results_refuses_tables_with_the_wrong_columns(tmp_path: Path, table: str, change, words: str) -> None:
    import pandas as pd

    from analyzer.stats.tables import ResultsError, load_results

    folder = _finished_copy(tmp_path)
    path = folder / "results" / f"{table}.parquet"
    change(pd.read_parquet(path)).to_parquet(path)
    with pytest.raises(ResultsError, match=f"{table}.parquet: {words}"):
        load_results(folder)


def test_load_results_reads_every_committed_report() -> None:
    from analyzer.stats.tables import load_results

    folders = sorted((ROOT / "reports").glob("**/results"))
    assert len(folders) >= 8
    for folder in folders:
        if (folder / "tournaments.json").is_file():  # an experiment of tournaments (design = ...)
            assert json.loads((folder / "tournaments.json").read_text()), folder
        elif (folder / "balance.json").is_file():  # a rule-balance exploration (durak balance)
            assert json.loads((folder / "balance.json").read_text())["finalists"], folder
        else:
            assert len(load_results(folder.parent).cells) > 0, folder


def test_a_run_killed_while_writing_its_first_manifest_resumes(tmp_path: Path) -> None:
    """A kill between the temporary file and its rename leaves only a torn ``.tmp-*`` write: the folder is still
    the run's own, so the rerun takes it (and removes the torn file) instead of calling it someone else's."""
    out = tmp_path / "out"
    (out / "chunks").mkdir(parents=True)
    (out / ".tmp-abc123.json").write_text('{"na', encoding="utf-8")
    out = _run(_exp(tmp_path), out)
    assert (out / "manifest.json").is_file() and not list(out.glob(".tmp-*"))
