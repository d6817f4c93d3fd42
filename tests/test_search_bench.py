"""bench_search (issue 13): the rows durak bench prints for pimc count searched decisions and their rollouts."""

from __future__ import annotations

import analyzer.execution.bench_search as bench
from analyzer.execution.benchmark import Row
from strategies.pimc import MIN_WORLDS


def test_search_rows_count_decisions_and_rollouts(monkeypatch) -> None:  # noqa: ANN001 - pytest fixture
    monkeypatch.setattr(bench, "CASES", (("czech", 2, 3),))
    got = bench.measure("czech", 2, 3, "pimc?budget=1000,worlds=40")
    assert got["decisions"] > 0 and got["seconds"] > 0
    # every searched decision rolls out at least two actions in at least MIN_WORLDS worlds, at most 40
    assert 2 * MIN_WORLDS * got["decisions"] <= got["rollouts"]
    rows = [Row(**r) for r in bench.search_rows()]  # type: ignore[arg-type]
    assert [r.unit for r in rows] == ["decisions", "rollouts"]
    assert rows[1].one_core > rows[0].one_core > 0
