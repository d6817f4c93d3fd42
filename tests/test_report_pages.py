"""`durak compare --out` writes an HTML page like an experiment's report, and `durak run` ends with the
headline answers and the path to report.html, also when stdout is not a terminal (issue 15 item 5)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from analyzer.cli.app import app

runner = CliRunner()


def test_compare_out_writes_an_html_page_that_answers_first(tmp_path: Path) -> None:
    folder = tmp_path / "cmp"
    r = runner.invoke(app, ["compare", "--players", "2", "greedy", "random", "--deals", "300", "--jobs", "1",
                            "--seed", "2", "--out", str(folder)])
    assert r.exit_code == 0, r.output
    assert f"{folder}/compare.html" in r.stdout
    page = (folder / "compare.html").read_text(encoding="utf-8")
    summary, ranking = page.index("id='summary'"), page.index("id='ranking-by-win-rate'")
    assert summary < page.index("data:image/png;base64,") < ranking  # the heat map on the first screen
    assert re.search(r"<strong>greedy</strong> wins [\d.]+% \[", page)
    assert "href='#pairs'" in page and "pairs are told apart" in page


def test_run_ends_with_the_headline_answers_and_the_report_path(tmp_path: Path) -> None:
    exp = tmp_path / "tiny.toml"
    exp.write_text('name = "tiny"\nvariants = ["czech"]\nplayers = [2, 3]\nfield = ["greedy", "random"]\n'
                   'deals = 200\nchunk_size = 200\nseed = 5\n', encoding="utf-8")
    out = tmp_path / "out"
    r = runner.invoke(app, ["run", str(exp), "--out", str(out), "--jobs", "1", "--quiet"])  # stdout: not a tty
    assert r.exit_code == 0, r.output
    lines = r.stdout.strip().splitlines()
    assert any(ln.startswith("Going first: Going first is worth most in czech") for ln in lines), r.stdout
    assert any(ln.startswith("Which strategy wins: ") for ln in lines)
    assert lines[-1] == f"report: {out / 'report.html'}" and (out / "report.html").exists()
    assert "**" not in r.stdout
