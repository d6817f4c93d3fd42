"""bench_search (issue 13): the rows durak bench prints for pimc count searched decisions and their rollouts,
on its batch path (the simulator's fast path) and on the engine's table runner."""

from __future__ import annotations

import pytest

import analyzer.execution.bench_search as bench
from analyzer.execution.benchmark import Row
from strategies.pimc import MIN_WORLDS


@pytest.mark.parametrize("path", bench.PATHS)
def test_search_counts_decisions_and_rollouts_on_both_paths(path: str) -> None:
    got = bench.measure("czech", 2, 3, "pimc?budget=1000,worlds=40", path=path)
    assert got["decisions"] > 0 and got["total"] > 0 and got["seconds"] > 0
    # every searched decision rolls out at least two actions in at least MIN_WORLDS worlds, at most 40
    assert 2 * MIN_WORLDS * got["decisions"] <= got["rollouts"]


def test_search_rows_give_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "CASES", (("czech", 2, 2),))
    rows = [Row(**r) for r in bench.search_rows()]  # type: ignore[arg-type]
    assert [(r.engine, r.unit) for r in rows] == [("search batch", "decisions"), ("search batch", "rollouts"),
                                                  ("search table", "decisions"), ("search table", "rollouts")]
    assert all(r.one_core > 0 for r in rows)
    assert rows[1].one_core > rows[0].one_core and rows[3].one_core > rows[2].one_core
