"""Tables that fit the data: piped output keeps every value whole, ``--tsv`` is for scripts, and the round-robin
and hero designs write reports with ``--out`` as the field design does."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from analyzer.cli.app import app

LONG = "weighted?w_points=1.5,w_wild=-2"


def _run(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def test_a_piped_table_holds_its_full_values() -> None:
    """CliRunner's stdout is not a terminal, like a pipe: nothing is cut to 80 columns (``poin…``) or folded."""
    out = _run("compare", LONG, "greedy", "suit-keeper", "--players", "3", "--deals", "200", "--jobs", "1", "-q")
    assert "…" not in out
    assert any(LONG in line and "[" in line and "]" in line for line in out.splitlines()), out
    sim = _run("simulate", "--strategies", f"{LONG},random", "--deals", "300", "--jobs", "1", "-q")
    assert "…" not in sim and sum(LONG in line for line in sim.splitlines()) == 2


def test_tsv_tables_for_scripts() -> None:
    out = _run("simulate", "--strategies", f"{LONG},random", "--deals", "300", "--jobs", "1", "-q", "--tsv")
    rows = [line.split("\t") for line in out.splitlines() if not line.startswith("#")]
    assert rows[0][:3] == ["pos", "strategy", "win % [95% CI]"] and len(rows) == 5
    assert all(len(r) == 6 for r in rows) and rows[1][1] == LONG
    rr = _run("compare-rules", "-a", "sevens=on", "--players", "2", "--deals", "200", "-q", "--tsv")
    assert "quantity\tpos\tA [95% CI]\tB [95% CI]\tA − B [95% CI] (paired)" in rr


def test_round_robin_and_hero_write_reports_with_out(tmp_path: Path) -> None:
    rr, hero = tmp_path / "rr", tmp_path / "hero"
    out = _run("compare", "--design", "round-robin", "--players", "2", "random", "greedy", "weighted", "--deals",
               "200", "--jobs", "1", "-q", "--out", str(rr))
    assert f"report written to {rr}/report.md" in out
    md = (rr / "report.md").read_text()
    assert "Round-robin" in md and "weighted" in md and "--design round-robin" in md and "--out" in md
    assert (rr / "report.html").is_file() and any((rr / "charts").glob("cross_*.png"))
    assert json.loads((rr / "results" / "tournaments.json").read_text())[0]["design"] == "round-robin"
    assert "report up to date" in _run("report", str(rr), "-q")  # drawn from these results already
    assert "report written" in _run("report", str(rr), "-q", "--redraw")  # rebuilt from the stored results
    _run("compare", "--design", "hero", "--players", "3", "greedy", "random", "--reference", "weighted",
         "--deals", "100", "--jobs", "1", "-q", "--out", str(hero))
    assert "Hero" in (hero / "report.md").read_text() and (hero / "report.html").is_file()
