"""Run an experiment: cells x chunks in parallel, resumable, bit-reproducible.

Why it is built this way:

* **Seeds.** Chunk k of a cell is simulated from
  :func:`analyzer.execution.seeds.chunk_seed` of (experiment seed, "cell", the
  cell's content -- rules text, line-up, unit --, k) and nothing else, and a
  chunk is stored as sums (:func:`analyzer.stats.sums.summarize`), summed at the
  end in (cell, chunk) order.  So results are identical for any ``jobs``,
  backend, finishing order, or number of interruptions.
* **Resuming.** Every finished chunk is written at once, atomically (temp file
  in the same directory, fsync, ``os.replace``) to ``OUT/chunks/`` as a zip of
  parquet tables plus a meta record; zip CRCs and the meta (fingerprint, cell,
  chunk, size) are checked on reading, so a torn or foreign file is recomputed,
  never trusted.  ``OUT/chunks/FINGERPRINT`` is a hash of everything that
  determines a chunk's content (cells with their full rule sets, lineups, seed,
  chunk sizes, simulator, analyzer version, plugin file contents); a different
  one refuses to resume.  The per-cell count is not part of it: a chunk's
  content does not depend on it, so raising ``deals`` reuses finished chunks.
* **Execution.** Chunks run through :mod:`analyzer.execution.executor`, the
  same code ``durak simulate`` and ``durak compare`` use (loky or Dask; the
  simulator by module path, e.g. ``tests.fake_sim`` for a stand-in).  This
  module keeps the chunk store, resuming and the manifest.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import __version__
from analyzer.core.files import folder_problem
from analyzer.core.rules import format_value
from analyzer.execution.executor import (  # noqa: F401
    BACKENDS,
    DEFAULT_SIMULATOR,
    KEYS,
    SIMULATOR_ENV,
    cell_engines,
    cell_seed,
    engine_mode,
    run_cell_chunks,
    run_chunk,
    simulator_path,
    strategy_resolver,
    streams_of,
)
from analyzer.execution.experiment import Cell, Experiment, ExperimentError, load_experiment
from analyzer.execution.progress import RunProgress
from analyzer.execution.store import CHUNK_FORMAT, TABLES, ChunkStore, ResumeError, atomic_write, parquet_bytes  # noqa: F401
from analyzer.execution.totals import RunTotals
from analyzer.execution.tournament_run import run_tournaments
from analyzer.report.build import build_report

#: The seed derivation chunks use (analyzer.execution.seeds); part of the fingerprint so that
#: chunks seeded another way are never resumed.
SEEDING = "content-v1"


# --------------------------------------------------------------------------- fingerprint


def fingerprint(exp: Experiment, simulator: str | None = None, engine: str | None = None) -> tuple[str, dict[str, Any]]:
    """Hash of everything that determines chunk contents, and the record it hashes (the engine of each cell too:
    the compiled kernel and the numpy simulator draw random play from different streams)."""
    plugins: dict[str, str] = {}
    for spec in dict.fromkeys(s for c in exp.cells for s in c.lineup):
        file = spec.rsplit(":", 1)[0]
        if file.endswith(".py") and Path(file).is_file():
            plugins[spec] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    engines = cell_engines(exp.cells, engine=engine, simulator=simulator)
    record = {
        "format": CHUNK_FORMAT, "version": __version__, "simulator": simulator_path(simulator),
        "seed": exp.seed, "seeding": SEEDING, "plugins": plugins,
        "engines": engines, "streams": streams_of(engines),
        "cells": [{"index": c.index, "unit": c.unit, "lineup": list(c.lineup),
                   "chunk_size": c.chunk_size, "rules": {"variant": c.variant, "players": c.players,
                                                         **c.rules.options()}}
                  for c in exp.cells],
    }
    canon = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest(), record


# --------------------------------------------------------------------------- execution


def _cells_table(exp: Experiment) -> pd.DataFrame:
    rows = []
    for c in exp.cells:
        row: dict[str, Any] = {
            "cell": c.index, "variant": c.variant, "players": c.players, "unit": c.unit, "n": c.n,
            "lineup": ",".join(c.lineup), "rules": c.rules.describe(), "label": c.label,
        }
        row.update({k: format_value(v) for k, v in c.grid})
        rows.append(row)
    return pd.DataFrame(rows)


def _command(exp: Experiment, deals: int | None, out: Path | None) -> str:
    argv = ["durak", "run", exp.source]
    if deals is not None:
        argv += ["--deals", str(deals)]
    if out is not None:
        argv += ["--out", str(out)]
    return shlex.join(argv)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


#: Where a run writes unless told (``runs/<name>``): git ignores it, so running an experiment of the repository
#: leaves a clone clean and the committed example reports under ``reports/`` as they are.
RUNS = Path("runs")


def run_experiment(
    experiment: str | Path | Experiment, *, out: str | Path | None = None, deals: int | None = None,
    jobs: int = -1, backend: str = "loky", scheduler: str | None = None, resume: bool = True,
    fresh: bool = False, quiet: bool = False, check: bool = False, simulator: str | None = None,
    report: bool = True, engine: str | None = None,
) -> Path:
    """Run every cell of an experiment and write ``runs/<name>/`` (or ``out``); return it.

    Args:
        experiment: an experiment file or a parsed :class:`Experiment`.
        out: output directory; default ``runs/<name>`` (:data:`RUNS`).
        deals: deals (matches, for match cells) per cell, overriding the file.
        jobs: parallel jobs, joblib style (-1 = all cores / all dask workers).
        backend: ``"loky"`` (local processes) or ``"dask"`` (joblib's dask backend on a
            distributed Client at ``scheduler``; without one, a loopback LocalCluster).
        resume: reuse finished chunks in ``out/chunks`` (False behaves as ``fresh``).
        fresh: wipe stored chunks first.
        quiet: no progress on stderr (a bar on a terminal, elsewhere a line every ~10 s).
        check: ask the simulator to check invariants (slower; results unchanged).
        simulator: module path of the simulator (default ``analyzer.sim.simulator``).
        report: call ``analyzer.report.build.build_report(out)`` afterwards, if that module exists.
        engine: the engine mode (``auto``, ``compiled``, ``numpy``; default ``$DURAK_ENGINE`` or auto).

    Raises:
        ExperimentError: a malformed experiment or bad argument (one line), or
            ResumeError when stored chunks belong to a different experiment.
    """
    if backend not in BACKENDS:
        raise ExperimentError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0:
        raise ExperimentError(f"jobs: must be a non-zero integer (-1 = all cores), got {jobs!r}")
    sim = simulator_path(simulator)
    if isinstance(experiment, Experiment):
        exp = experiment
    else:
        exp = load_experiment(experiment, resolve_strategy=strategy_resolver(sim))
    if deals is not None:
        exp = exp.with_count(deals)
    out_dir = Path(out) if out is not None else RUNS / exp.name
    if problem := folder_problem(out_dir):
        raise ExperimentError(f"--out {out_dir}: {problem}")
    if exp.tournament:  # design = "round-robin" | "hero": every line-up of a tournament on the same decks
        return run_tournaments(exp, out_dir, jobs=jobs, quiet=quiet, report=report, fresh=fresh or not resume,
                               command=_command(exp, deals, Path(out) if out is not None else None))
    started, t0 = _now(), time.perf_counter()

    fp, record = fingerprint(exp, sim, engine)
    store = ChunkStore(out_dir / "chunks", fp)
    store.open(fresh=fresh or not resume, record=record, experiment=exp.to_dict())  # refuses a foreign --out
    try:
        results, fresh_deals, resumed = _run_chunks(exp, store, sim=sim, jobs=jobs, backend=backend,
                                                  scheduler=scheduler, check=check, quiet=quiet, engine=engine)
    finally:
        store.close()
    elapsed = time.perf_counter() - t0

    res_dir = out_dir / "results"
    res_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(res_dir / "cells.parquet", parquet_bytes(_cells_table(exp)))
    for name, df in results.items():
        atomic_write(res_dir / f"{name}.parquet", parquet_bytes(df))

    totals = results["totals"]
    total_chunks = sum(len(c.chunks()) for c in exp.cells)
    manifest = {
        "name": exp.name, "description": exp.description, "experiment": exp.to_dict(), "seed": exp.seed, "version": __version__,
        "fingerprint": fp, "simulator": sim, "started": started, "finished": _now(),
        "cells": len(exp.cells),
        "units": {u: sum(c.n for c in exp.cells if c.unit == u) for u in exp.counts},
        "total_deals": int(totals["deals_sum"].sum()),
        "deals_this_run": fresh_deals,
        "deals_per_second": round(fresh_deals / elapsed, 1) if elapsed > 0 else None,
        "seconds": round(elapsed, 3), "chunks": total_chunks, "chunks_resumed": resumed,
        "command": _command(exp, deals, Path(out) if out is not None else None),
        "jobs": jobs, "backend": backend, "scheduler": scheduler, "check": check,
        "engine": engine_mode(engine), "engines": record["engines"],
        "reports": list(exp.reports),
    }
    atomic_write(out_dir / "manifest.json", (json.dumps(manifest, indent=2) + "\n").encode())

    if report and exp.reports:
        build_report(out_dir)
    return out_dir


def _run_chunks(exp: Experiment, store: ChunkStore, *, sim: str, jobs: int, backend: str,
                scheduler: str | None, check: bool, quiet: bool, engine: str | None = None
                ) -> tuple[dict[str, pd.DataFrame], int, int]:
    """Fold the finished chunks in, run the rest, and return every cell's summed tables.

    Returns (summed tables with a ``cell`` column, deals simulated now, chunks reused).  Chunks are folded into
    running totals (:class:`~analyzer.execution.totals.RunTotals`) in (cell, chunk) order as soon as they may be,
    and dropped: one that must wait for an earlier one of its cell is read back from the store when its turn
    comes, so memory does not grow with the number of chunks, however many are stored or run.
    """
    totals = RunTotals(exp.cells)
    todo: list[tuple[Cell, int, int]] = []
    resumed = 0
    for cell in exp.cells:
        for k, n in cell.chunks():
            tables = store.read(cell.index, k, n)
            if tables is None:
                todo.append((cell, k, n))
            else:
                resumed += 1
                totals.add(cell.index, k, _reader(store, cell.index, k, n, tables, totals))
    left = {c.index: 0 for c in exp.cells}
    for cell, _, _ in todo:
        left[cell.index] += 1
    total = sum(c.n for c in exp.cells)
    unit = "deals" if set(exp.counts) == {"deal"} else "matches" if set(exp.counts) == {"match"} \
        else "deals+matches"
    fresh_deals = 0
    with RunProgress(total_units=total, total_cells=len(exp.cells),
                     done_units=total - sum(n for _, _, n in todo),
                     done_cells=sum(1 for v in left.values() if v == 0), unit=unit,
                     enabled=not quiet) as bar:
        if todo:
            for ci, k, n, sums in run_cell_chunks(todo, seed=exp.seed, check=check, simulator=sim,
                                                  jobs=jobs, backend=backend, scheduler=scheduler, engine=engine):
                store.write(ci, k, n, sums.tables())
                back = store.read(ci, k, n)  # what a resumed run would see, byte for byte
                if back is None:
                    raise RuntimeError(f"chunk {k} of cell {ci} did not read back from {store.root}")
                fresh_deals += int(back["totals"]["deals_sum"].iloc[0])
                totals.add(ci, k, _reader(store, ci, k, n, back, totals))
                left[ci] -= 1
                bar.advance(n, cell_done=left[ci] == 0)
    return totals.tables(), fresh_deals, resumed


def _reader(store: ChunkStore, cell: int, k: int, n: int, tables: dict[str, pd.DataFrame], totals: RunTotals
            ) -> dict[str, pd.DataFrame] | Callable[[], dict[str, pd.DataFrame]]:
    """A stored chunk as :meth:`RunTotals.add` takes it: the tables just read if it is its cell's next chunk,
    else a call that reads them again when it is (so a chunk that waits holds no memory)."""
    if totals.due(cell, k):
        return tables

    def read() -> dict[str, pd.DataFrame]:
        again = store.read(cell, k, n)
        if again is None:
            raise RuntimeError(f"chunk {k} of cell {cell} is no longer readable in {store.root}")
        return again
    return read
