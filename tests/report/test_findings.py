"""docs/findings.md is what the committed reports say: regenerated from their stored results it is the committed page,
and a changed number in a report changes the page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from analyzer.cli.app import main
from analyzer.report import findings
from analyzer.report.render import render_md

ROOT = Path(__file__).resolve().parents[2]


def _copy_reports(dest: Path, *names: str) -> Path:
    """The stored results (no charts, no pages) of the named report folders, under ``dest/reports``."""
    for name in names:
        shutil.copytree(ROOT / "reports" / name, dest / "reports" / name,
                        ignore=shutil.ignore_patterns("charts", "*.html", "*.png", "*.svg"))
    return dest


def test_the_committed_findings_page_is_what_the_reports_give(capsys: pytest.CaptureFixture[str]) -> None:
    main(["findings", "--root", str(ROOT), "--check"])  # returns: exit code 0
    assert "is up to date" in capsys.readouterr().out


def test_the_page_states_each_finding_with_its_interval_size_source_and_seed() -> None:
    text = (ROOT / findings.FINDINGS_PATH).read_text(encoding="utf-8")
    for rel in ("first_player", "skill/strong", "skill_curves", "wild_penalty", "wild_rule", "strategies", "skill",
                "balance_czech_4p", "balance_prague_4p"):
        assert f"From [`reports/{rel}`](../reports/{rel}/)" in text, rel
    assert text.count("seed ") >= 10 and "No seed" not in text and "no seed is involved" in text
    assert "52.4% [52.3, 52.5]" in text  # czech 2p first mover, random play: rate and interval
    assert "| 500,000 |" in text  # and its sample size


def test_a_changed_number_in_a_report_changes_the_page(tmp_path: Path) -> None:
    root = _copy_reports(tmp_path, "tuning", "perfect")
    tuned = render_md(findings.tuned(root), root)
    perfect = render_md(findings.perfect(root), root)
    tune = root / "reports" / "tuning" / "weighted-czech-2p" / "tune.json"
    t = json.loads(tune.read_text(encoding="utf-8"))
    t["holdout"]["margin"] += 0.001
    tune.write_text(json.dumps(t), encoding="utf-8")
    solve = root / "reports" / "perfect" / "czech-8x2" / "solve.json"
    s = json.loads(solve.read_text(encoding="utf-8"))
    s["first_mover_value"] = -s["first_mover_value"]
    solve.write_text(json.dumps(s), encoding="utf-8")
    assert render_md(findings.tuned(root), root) != tuned
    assert render_md(findings.perfect(root), root) != perfect


def test_a_changed_count_in_a_run_report_changes_the_first_mover_table(tmp_path: Path) -> None:
    root = _copy_reports(tmp_path, "first_player")
    res = findings._results(root, "first_player")
    table = findings._first_mover_table(res, with_fairness=True)
    pos = root / "reports" / "first_player" / "results" / "positions.parquet"
    df = pd.read_parquet(pos)
    df.loc[df["position"] == 0, "wins"] += 2_000  # position 0 wins 0.4 pp more in every cell
    df.to_parquet(pos)
    changed = findings._first_mover_table(findings._results(root, "first_player"), with_fairness=True)
    assert not changed.equals(table)
    assert (changed["deals"] == table["deals"]).all()  # the sample sizes stay; the rates move


def test_findings_without_reports_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["findings", "--root", str(tmp_path)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no reports/ folder" in err


def test_check_fails_on_a_page_that_differs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(findings, "findings_markdown", lambda root=".": "# the page\n")
    page = tmp_path / "findings.md"
    page.write_text("# the page, edited by hand\n", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        main(["findings", "--root", str(ROOT), "--out", str(page), "--check"])
    assert done.value.code == 1 and "differs from what reports/ gives" in capsys.readouterr().err
    page.write_text("# the page\n", encoding="utf-8")
    main(["findings", "--root", str(ROOT), "--out", str(page), "--check"])  # returns: exit code 0
    assert "is up to date" in capsys.readouterr().out


def test_a_verdict_near_the_line_is_one_another_seed_may_turn() -> None:
    """The plug-in chance that an independent run of the same size agrees: near certain far from zero, a coin
    toss for an estimate on the line, about 95% for a null estimate of zero, and falling as the interval nears it."""
    assert findings.same_verdict_again(10.0, 8.0, 12.0, True) > 0.999
    assert abs(findings.same_verdict_again(1.96, 0.0, 3.92, True) - 0.5) < 0.01
    assert abs(findings.same_verdict_again(0.0, -2.0, 2.0, False) - 0.95) < 0.005
    again = findings.same_verdict_again
    near, far = again(2.0, -0.2, 4.2, False), again(0.5, -1.7, 2.7, False)
    assert near < far < 0.95
    assert findings.same_verdict_again(3.6, 1.5, 5.8, True) < findings.same_verdict_again(5.4, 3.4, 7.5, True)


@pytest.mark.parametrize("manifest, said", [
    ({"kind": "cells", "engine": "auto", "engines": ["compiled", "numpy"]}, True),
    ({"kind": "cells", "engine": "auto", "engines": ["compiled", "compiled"]}, False),
    ({"kind": "tournaments", "seed": 41}, True),  # older than the engine record every run now writes
    ({"kind": "tournaments", "seed": 41, "engine": "compiled"}, False),
    ({"kind": "balance", "seed": 0}, True),
])
def test_a_report_played_on_the_retired_simulator_says_so_under_its_finding(tmp_path: Path, manifest: dict,
                                                                           said: bool) -> None:
    """Its numbers stand (that simulator was held equal to the rules engine), but a rerun of its file today
    draws other deals: the line under the finding says so, and only there."""
    folder = tmp_path / "reports" / "x"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({**manifest, "command": "durak run experiments/x.toml"}))
    line = findings._where(tmp_path, "x", 7).content
    assert (findings.EARLIER_ENGINE in line) is said and line.startswith("From [`reports/x`]")


@pytest.mark.parametrize("recorded, shown", [
    ("DURAK_ENGINE=compiled durak run experiments/x.toml", "durak run experiments/x.toml"),
    ("DURAK_ENGINE=auto durak run experiments/x.toml --out reports/x", "durak run experiments/x.toml --out reports/x"),
    ("durak run experiments/x.toml", "durak run experiments/x.toml"),
])
def test_a_finding_names_its_command_as_a_reader_runs_it_today(tmp_path: Path, recorded: str, shown: str) -> None:
    """A run made under ``DURAK_ENGINE=compiled`` (the default's synonym, the same fingerprint) is shown without it:
    a reader who copies the command needs no setting that does nothing."""
    folder = tmp_path / "reports" / "x"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"kind": "cells", "engines": ["compiled"], "command": recorded}))
    assert f"(`{shown}`)" in findings._where(tmp_path, "x", 7).content
