"""The run folder every run kind writes through (analyzer.execution.runs.folder.RunFolder)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analyzer.execution import runs
from analyzer.execution.runs.folder import RunFolder
from analyzer.execution.store import ResumeError
from analyzer.report.findings import earlier_engine

ROOT = Path(__file__).resolve().parents[2]


def test_every_committed_manifest_reads_with_its_kind_and_command() -> None:
    committed = sorted((ROOT / "reports").glob("*/manifest.json"))
    assert committed
    for path in committed:
        manifest = RunFolder(path.parent).manifest()
        assert manifest == json.loads(path.read_text()) and "name" in manifest, path


def test_manifest_and_results_round_trip_and_a_missing_manifest_is_empty(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    assert folder.manifest() == {} and not folder.has_manifest()
    frame = pd.DataFrame({"cell": [0, 1], "wins": [3, 4]})
    assert folder.write_result("positions.parquet", frame) == folder.results / "positions.parquet"
    folder.write_result("balance.json", {"deals": 10, "rules": ["a"]})
    folder.write_manifest({"name": "x", "kind": "balance", "seed": 3})
    assert folder.manifest() == {"name": "x", "kind": "balance", "seed": 3}
    assert folder.result_table("positions.parquet").equals(frame)
    assert json.loads((folder.results / "balance.json").read_text()) == {"deals": 10, "rules": ["a"]}
    assert not [p for p in folder.root.rglob(".tmp-*")]  # atomic writes leave no temporary file
    assert folder.report() == folder.root / "report.md" and folder.report(".md", "tune").name == "tune.md"


def test_a_manifest_that_is_not_one_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("[1, 2]")
    with pytest.raises(ResumeError, match="not a durak manifest"):
        RunFolder(tmp_path).manifest()


def test_the_registry_names_a_module_for_every_kind_and_decides_a_files_kind(tmp_path: Path) -> None:
    assert set(runs.KINDS) == {"cells", "tournament", "balance", "compare", "tune", "solve"}
    assert all(m.__name__ == f"analyzer.execution.runs.{m.__name__.rsplit('.', 1)[1]}" for m in runs.KINDS.values())
    assert runs.kind_of(runs.read_run_file(ROOT / "experiments" / "quick.toml")) == "cells"
    assert runs.kind_of(runs.read_run_file(ROOT / "experiments" / "balance_czech_4p.toml")) == "balance"
    design = tmp_path / "rr.toml"
    design.write_text('name = "rr"\nvariants = ["svinya"]\nplayers = [2]\nfield = ["greedy", "random"]\n'
                      'design = "round-robin"\ndeals = 100\n')
    assert runs.kind_of(runs.read_run_file(design)) == "tournament"


def test_every_committed_report_of_an_experiment_file_has_the_fingerprint_this_code_gives_it() -> None:
    """A committed report whose fingerprint this code does not compute was made by other code (another engine, other
    streams, another chunk format): ``durak run`` of its file would not resume it, and nothing says its numbers are
    this code's.  When this fails, run the file again into its folder (the manifest's command) and check the numbers."""
    checked = []
    for path in sorted((ROOT / "reports").glob("*/manifest.json")):
        manifest = json.loads(path.read_text())
        source = ROOT / "experiments" / f"{path.parent.name}.toml"
        if "fingerprint" not in manifest or not source.is_file():
            continue
        plan = runs.read_run_file(source)
        this_code = runs.fingerprint_of(plan) == manifest["fingerprint"]
        if earlier_engine(manifest):  # the findings page says so of it; its fingerprint must then be another's
            assert not this_code, f"reports/{path.parent.name} is this code's run: its manifest must not say otherwise"
            continue
        assert this_code, f"reports/{path.parent.name} is not this code's run of {source.name}: {manifest.get('command')}"
        checked.append(runs.kind_of(plan))
    assert {"cells", "tournament", "balance"} <= set(checked)
