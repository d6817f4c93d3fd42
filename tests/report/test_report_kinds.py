"""``durak report FOLDER`` draws any run kind's report again from what the run stored: the kind from the
folder's manifest (or, for folders written before every kind kept one, from the file its run stores)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.report.kinds import folder_kind

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_every_committed_report_folder_is_known_by_its_kind() -> None:
    expect = {"balance_czech_3p": "balance", "balance_czech_4p": "balance", "balance_prague_3p": "balance",
              "balance_prague_4p": "balance", "compare_example": "compare", "first_player": "cells",
              "house_rules": "cells", "quick": "cells", "skill": "tournament", "skill_curves": "cells",
              "strategies": "tournament", "strength": "tournament", "wild_penalty": "cells", "wild_rule": "cells"}
    for name, kind in expect.items():
        assert folder_kind(ROOT / "reports" / name) == kind, name
    for tuned in (ROOT / "reports" / "tuning").iterdir():
        assert folder_kind(tuned) == "tune", tuned
    for solved in (ROOT / "reports" / "perfect").glob("*/solve.json"):
        assert folder_kind(solved.parent) == "solve", solved
    assert folder_kind(ROOT / "experiments") is None


def test_a_comparison_folder_keeps_a_manifest_and_its_report_is_drawn_again_the_same(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    res = runner.invoke(app, ["compare", "greedy", "random", "--variant", "svinya", "--deals", "200", "--out", str(out),
                              "-q"])
    assert res.exit_code == 0, res.output
    assert folder_kind(out) == "compare"
    first = {p: (out / p).read_text() for p in ("compare.md", "compare.html")}
    for p in first:
        (out / p).unlink()
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    assert "compare.md" in res.output and "compare.html" in res.output
    assert {p: (out / p).read_text() for p in first} == first  # the command is kept too (the manifest)


@pytest.mark.parametrize("stored, page", [("tuning/*/tune.json", "tune.md"), ("perfect/*/solve.json", "solve.md")])
def test_a_committed_tuning_or_solve_page_is_drawn_again_word_for_word(tmp_path: Path, stored: str, page: str) -> None:
    folders = sorted(p.parent for p in (ROOT / "reports").glob(stored))
    assert folders
    for folder in folders:
        copy = tmp_path / folder.name
        shutil.copytree(folder, copy)
        res = runner.invoke(app, ["report", str(copy)])
        assert res.exit_code == 0, res.output
        assert (copy / page).read_text() == (folder / page).read_text(), folder.name


def test_a_folder_with_no_run_in_it_is_one_line(tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", str(tmp_path)])
    assert res.exit_code != 0 and "no run's results here" in res.output and "Traceback" not in res.output
