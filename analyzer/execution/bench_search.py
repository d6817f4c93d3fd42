"""Benchmark rows of the search strategy: ``pimc`` at its default budget, one core.

``durak bench`` includes these rows (analyzer.execution.benchmark.search_rows).
For each case, ``pimc`` plays ``weighted`` on a few duplicate decks (both
seatings), on each of its two paths:

* ``batch`` -- the fast path on the kernel paused at pimc's decisions:
  ``choose_batch`` searches every paused deal where pimc must choose in one
  compiled call (what experiments, compare and tournaments use);
* ``table`` -- the engine's table runner: ``choose_known``, one search per
  decision, the observer's Knowledge kept in Python.

Each path gives two rows:

* ``decisions`` -- searched decisions per second of the whole run (the
  kernel or table runner, the other players and the searches: what a
  tournament pays; 1000 / that = ms per decision, shown in the case);
* ``rollouts`` -- (world x action) deals played to their end per second inside
  the searches alone (sampling worlds, applying every action, the rollouts).

The first deals (compiling, or loading the kernels from numba's cache) are
played before the clock starts, pimc's batch search on the kernel compiled for
the case's rules and rollout line-up (what a run gets after its first few
thousand decisions: analyzer.kernel.search.ROWS).  Times are CPU seconds of this process (one
core; the kernel runs no threads here).

The batch ``decisions`` rows also give ``all_cores``: one process per core, each
warmed up, then started together at a barrier, each playing as many decks as the
one-core run (:func:`measure_cores`); searched decisions of all of them over the
slowest one's wall time (what an experiment on every core gets).  The batch rows run
:data:`ROUNDS` rounds of one core then every core and give the best and the
median of each, with the machine's own two-thread speed-up measured beside
(:func:`search_rows`).  ``ismcts`` (the second search family)
has batch rows of its own at its default iterations (its ``rollouts`` are its
iterations: one rollout each).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.execution.executor import simulate_deals
from analyzer.kernel.probe import two_thread_scaling
from analyzer.kernel.search import rows_kernel
from analyzer.knowledge.table import simulate_observed

#: (variant, players, duplicate decks) of the rows
CASES = (("czech", 2, 200), ("svinya", 2, 40), ("czech", 4, 60))
#: pimc's two paths: the simulator's fast path (one compiled search per batch) and the engine's table runner
PATHS = ("batch", "table")
#: the searchers of the rows and their paths (ismcts has the batch path only: it has no choose_known)
SEARCHERS = (("pimc", PATHS), ("ismcts", ("batch",)))
#: rounds of the batch rows (one core, then every core, in each)
ROUNDS = 3


def _warm(searcher: object, rules: RuleSet) -> None:
    """pimc's batch rows on the kernel compiled for the rules and its rollout line-up, as a run past its first
    :data:`~analyzer.kernel.search.SPECIALISE_ROWS` decisions plays them (compiled here, or loaded from
    numba's cache); ismcts has one kernel for every rule set."""
    if getattr(searcher, "family", None) == "pimc":
        p, kinds, _ = searcher._compile(rules)  # type: ignore[attr-defined]
        rows_kernel(p, kinds, 0, specialise=True)


def _play(path: str, rules: RuleSet, lineup: Sequence[object], orders: np.ndarray, seed: int) -> None:
    if path == "table":
        simulate_observed(rules, lineup, orders, np.random.SeedSequence(seed))
    else:
        simulate_deals(rules, lineup, len(orders), np.random.SeedSequence(seed), decks=orders)


def measure(variant: str, players: int, decks: int, spec: str = "pimc", seed: int = 0,
            path: str = "batch") -> dict[str, float]:
    """Search decisions, rollouts, search seconds and the run's CPU seconds (``total``) of ``spec`` (pimc or
    ismcts) against ``weighted`` on ``decks`` decks, both seatings, on ``path`` (:data:`PATHS`)."""
    if path not in PATHS:
        raise ValueError(f"path must be one of {', '.join(PATHS)}, not {path!r}")
    rules = make_rules(variant, players)
    pimc, other = get_strategy(spec), get_strategy("weighted")
    orders = shuffled_decks(rules.deck_size, decks, np.random.default_rng(seed)).astype(np.int8)
    _warm(pimc, rules)
    _play(path, rules, [pimc] + [other] * (players - 1), orders[:1], seed)  # compile / load
    pimc.decisions, pimc.rollouts, pimc.seconds = 0, 0, 0.0  # type: ignore[attr-defined]
    t0 = time.process_time()
    for lineup in ([pimc] + [other] * (players - 1), [other] * (players - 1) + [pimc]):
        _play(path, rules, lineup, orders, seed)
    total = time.process_time() - t0
    return {"decisions": pimc.decisions, "rollouts": pimc.rollouts, "seconds": pimc.seconds,  # type: ignore[attr-defined]
            "total": total}


def _core_worker(variant: str, players: int, orders: np.ndarray, spec: str, seed: int, barrier: Any,
                 out: Any) -> None:
    """One process of :func:`measure_cores`: warm up, wait for the others, play ``orders`` (both seatings)."""
    rules = make_rules(variant, players)
    searcher, other = get_strategy(spec), get_strategy("weighted")
    _warm(searcher, rules)
    _play("batch", rules, [searcher] + [other] * (players - 1), orders[:1], seed)  # compile / load
    searcher.decisions = 0  # type: ignore[attr-defined]
    barrier.wait()
    t0 = time.perf_counter()
    for lineup in ([searcher] + [other] * (players - 1), [other] * (players - 1) + [searcher]):
        _play("batch", rules, lineup, orders, seed)
    out.put((searcher.decisions, time.perf_counter() - t0))  # type: ignore[attr-defined]


def measure_cores(variant: str, players: int, decks: int, spec: str = "pimc", seed: int = 0,
                  cores: int | None = None) -> dict[str, float]:
    """Searched decisions per second of wall time on ``cores`` processes (default: every core), the decks
    split between them, started together at a barrier after their warm-up: {"decisions", "wall", "cores"}."""
    cores = cores or os.cpu_count() or 1
    rules = make_rules(variant, players)
    orders = shuffled_decks(rules.deck_size, decks, np.random.default_rng(seed)).astype(np.int8)
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(cores), ctx.Queue()
    procs = [ctx.Process(target=_core_worker, args=(variant, players, orders[i::cores], spec, seed, barrier, out))
             for i in range(cores)]
    for proc in procs:
        proc.start()
    got = [out.get() for _ in procs]
    for proc in procs:
        proc.join()
    return {"decisions": sum(g[0] for g in got), "wall": max(g[1] for g in got), "cores": cores}


def search_rows(cores: int | None = None, rounds: int = ROUNDS) -> list[dict[str, object]]:
    """Rows in :class:`analyzer.execution.benchmark.Row`'s fields: decisions/s and rollouts/s on one core, and
    the batch path's decisions/s on every core (:func:`measure_cores`; ``cores`` = 1 skips it).

    The batch path runs ``rounds`` rounds, one core then every core in each (the best and the median of each
    figure): as the kernel rows, every core plays ``cores`` times the one-core decks, each process as many as the
    one-core run, so a run's fixed costs (its warm-up batch, the slowest process's last decks) weigh alike in both
    figures; beside each every-core run, the machine's own two-thread speed-up of pure arithmetic
    (analyzer.kernel.probe) is taken, the row's ``ceiling`` their median.
    """
    cores = cores or os.cpu_count() or 1
    rows: list[dict[str, object]] = []
    for spec, paths in SEARCHERS:
        for variant, players, decks in CASES:
            for path in paths:
                parallel = path == "batch" and cores > 1
                runs, every, ceiling = [], [], []
                for _ in range(rounds if path == "batch" else 1):
                    runs.append(measure(variant, players, decks, spec=spec, path=path))
                    if parallel:
                        par = measure_cores(variant, players, decks * cores, spec=spec, cores=cores)
                        every.append(par["decisions"] / max(par["wall"], 1e-9))
                        ceiling.append(two_thread_scaling())
                rates = {unit: [g[unit] / max(g["total" if unit == "decisions" else "seconds"], 1e-9) for g in runs]
                         for unit in ("decisions", "rollouts")}
                got = runs[int(np.argmax(rates["decisions"]))]
                ms = 1000 * float(np.median([g["total"] / max(g["decisions"], 1) for g in runs]))
                case = f"{variant} {players}p {spec} vs weighted, {path} ({ms:.1f} ms/decision)"
                engine = f"search {path}" if spec == "pimc" else f"{spec} {path}"
                for unit in ("decisions", "rollouts"):
                    row: dict[str, object] = {
                        "case": case, "engine": engine, "unit": unit, "n": int(got[unit]),
                        "one_core": max(rates[unit]), "one_core_median": float(np.median(rates[unit])),
                        "repeats": len(runs), "all_cores": None, "ns_per_turn": None, "turns": None}
                    if unit == "decisions" and every:
                        row.update(all_cores=max(every), all_cores_median=float(np.median(every)),
                                   ceiling=float(np.median(ceiling)))
                    rows.append(row)
    return rows
