"""bench_search (26): the rows durak bench prints for pimc and ismcts count searched decisions and
their rollouts, on the batch path (the simulator's fast path, also on every core) and on the engine's table runner."""

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


def test_search_rows_give_both_paths_and_both_searchers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "CASES", (("czech", 2, 2),))
    monkeypatch.setattr(bench, "SEARCHERS", (("pimc", bench.PATHS), ("ismcts?iterations=50,budget=0", ("batch",))))
    rows = [Row(**r) for r in bench.search_rows(cores=1)]  # type: ignore[arg-type]
    assert [(r.engine, r.unit) for r in rows] == [("search batch", "decisions"), ("search batch", "rollouts"),
                                                  ("search table", "decisions"), ("search table", "rollouts"),
                                                  ("ismcts?iterations=50,budget=0 batch", "decisions"),
                                                  ("ismcts?iterations=50,budget=0 batch", "rollouts")]
    assert all(r.one_core > 0 for r in rows)
    assert rows[1].one_core > rows[0].one_core and rows[3].one_core > rows[2].one_core
    assert rows[5].n == 50 * rows[4].n  # one rollout an iteration
    assert all(r.all_cores is None for r in rows)  # one core: no parallel run


def test_every_core_searches_its_share_of_the_decks() -> None:
    """measure_cores: the decks split between two processes started together; every searched decision of
    both counted (about as many as one process playing all the decks finds: the split changes the deals'
    indices, so their streams, not their number)."""
    one = bench.measure("czech", 2, 4, "pimc?budget=1000,worlds=40")
    two = bench.measure_cores("czech", 2, 4, "pimc?budget=1000,worlds=40", cores=2)
    assert two["cores"] == 2 and two["wall"] > 0
    assert one["decisions"] > 0 and 0.5 * one["decisions"] <= two["decisions"] <= 2 * one["decisions"]


def test_every_core_plays_as_many_decks_a_process_as_one_core_in_repeated_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch rows: ``rounds`` rounds of one core then every core; each process of the every-core run plays as
    many decks as the one-core run (``cores`` times the decks in all), so a run's fixed costs weigh alike; the
    best and the median of both figures, and the machine's own two-thread speed-up beside (its median)."""
    asked: list[int] = []
    rates = iter([100.0, 300.0, 200.0])
    monkeypatch.setattr(bench, "CASES", (("czech", 2, 2),))
    monkeypatch.setattr(bench, "SEARCHERS", (("pimc?budget=1000,worlds=40", ("batch",)),))
    monkeypatch.setattr(bench, "measure_cores", lambda v, p, decks, spec, cores: asked.append(decks) or
                        {"decisions": next(rates), "wall": 1.0, "cores": cores})
    ceilings = iter([1.9, 1.5, 1.7])
    monkeypatch.setattr(bench, "two_thread_scaling", lambda: next(ceilings))
    rows = [Row(**r) for r in bench.search_rows(cores=2, rounds=3)]  # type: ignore[arg-type]
    assert asked == [4, 4, 4]
    decisions = rows[0]
    assert decisions.repeats == 3 and decisions.all_cores == 300.0 and decisions.all_cores_median == 200.0
    assert decisions.ceiling == 1.7
    assert decisions.one_core >= (decisions.one_core_median or 0) > 0
    assert rows[1].unit == "rollouts" and rows[1].all_cores is None
