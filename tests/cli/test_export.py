"""Exports from the command line are the API's frames (analyzer.api), byte for byte as CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import analyzer
from analyzer.cli.app import app

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def test_simulate_csv_is_the_api_simulate_frame(tmp_path: Path) -> None:
    out = tmp_path / "sim.csv"
    _run("simulate", "--strategies", "greedy,random", "--players", "3", "--deals", "600", "--seed", "3", "--jobs",
         "1", "--quiet", "--json", "--csv", str(out))
    frame = analyzer.simulate("greedy,random", players=3, deals=600, seed=3, jobs=1)
    assert out.read_text() == frame.to_csv(index=False)
    assert set(pd.read_csv(out)["metric"]) == {"win", "loss", "wild_held", "mean_points"}


def test_compare_csv_is_the_api_compare_frame(tmp_path: Path) -> None:
    out = tmp_path / "cmp.csv"
    _run("compare", "greedy", "random", "--players", "2", "--deals", "300", "--seed", "2", "--jobs", "1", "-q",
         "--json", "--csv", str(out))
    frame = analyzer.compare(["greedy", "random"], players=2, deals=300, seed=2, jobs=1)
    assert out.read_text() == frame.to_csv(index=False)
    res = CliRunner().invoke(app, ["compare", "--design", "round-robin", "a", "b", "--csv", str(out)])
    assert res.exit_code == 2 and "--csv belongs to --design field" in res.stderr


def test_export_of_a_run_folder_is_the_api_results_frame(tmp_path: Path) -> None:
    folder = ROOT / "reports" / "quick"
    csv, parquet = tmp_path / "quick.csv", tmp_path / "quick.parquet"
    assert "160 rows written" in _run("export", str(folder), "--csv", str(csv), "--parquet", str(parquet))
    frame = analyzer.results(folder)
    assert csv.read_text() == frame.to_csv(index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame)
    assert list(frame.columns) == ["cell", "label", "variant", "players", "unit", "rules", "position", "strategy",
                                   "metric", "rate", "lo", "hi", "n"]


def test_deals_export_is_the_api_deals_frame(tmp_path: Path) -> None:
    csv, parquet = tmp_path / "d.csv", tmp_path / "d.parquet"
    _run("deals", "--variant", "prague", "--players", "3", "--strategies", "greedy random", "--deals", "50",
         "--seed", "4", "--rule", "starter_effects=off", "--csv", str(csv), "--parquet", str(parquet))
    frame = analyzer.deals("greedy random", variant="prague", players=3, n=50, seed=4,
                           rules={"starter_effects": False})
    assert csv.read_text() == frame.to_csv(index=False) and len(frame) == 150
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame)


def test_exports_refuse_in_one_line(tmp_path: Path) -> None:
    for args in (["deals", "--deals", "5"], ["export", str(tmp_path), "--csv", str(tmp_path / "x.csv")],
                 ["deals", "--deals", "5", "--csv", str(tmp_path / "no" / "x.csv")]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1, res.output
