"""``durak bench`` (issue 3, point 7): every figure it prints is a measured, positive rate.

Timings are never asserted (STYLE.md: speed lives in benchmarks, not tests);
only that the command runs from the CLI and reports each measurement.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from analyzer.cli.app import app


def test_bench_json_reports_every_path_for_each_variant() -> None:
    res = CliRunner().invoke(app, ["bench", "--deals", "4000", "--simple-deals", "300", "--engine-deals", "20",
                                   "--variants", "czech,svinya", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["unit"] == "deals per second" and out["cores"] >= 1 and 0 < out["peak_mib"] < 1024
    assert [v["variant"] for v in out["variants"]] == ["czech", "svinya"]
    for v in out["variants"]:
        for key in ("one_core", "all_cores", "simple_path", "engine"):
            assert v[key] > 0, (v["variant"], key)
        assert abs(v["speed_up"] - v["all_cores"] / v["one_core"]) < 0.01
        assert v["players"] == {"czech": 4, "svinya": 2}[v["variant"]]


def test_bench_without_simple_or_engine_runs_prints_null() -> None:
    res = CliRunner().invoke(app, ["bench", "--deals", "2000", "--simple-deals", "0", "--engine-deals", "0",
                                   "--variants", "prague", "--json"])
    assert res.exit_code == 0, res.output
    (v,) = json.loads(res.stdout)["variants"]
    assert v["simple_path"] is None and v["engine"] is None and v["one_core"] > 0
