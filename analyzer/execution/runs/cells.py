"""The run kind ``cells``: an experiment's cells x chunks in parallel, resumable, bit-reproducible.

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
  module keeps the chunk store and resuming; the folder (manifest, results) is
  :class:`analyzer.execution.runs.folder.RunFolder`, and the registry
  (:mod:`analyzer.execution.runs`) decides that a file is a run of cells.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import __version__
from analyzer.core.rules import format_value
from analyzer.execution import lineup as lineups
from analyzer.execution.code_tag import CodeTag, play_tag
from analyzer.execution.executor import (  # noqa: F401
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
from analyzer.execution.experiment import Cell, Experiment, ExperimentError  # noqa: F401
from analyzer.execution.progress import RunProgress
from analyzer.execution.runs.folder import RunFolder
from analyzer.execution.store import CHUNK_FORMAT, TABLES, ChunkStore, ResumeError  # noqa: F401
from analyzer.execution.totals import RunTotals
from analyzer.report.build import build_report

#: The seed derivation chunks use (analyzer.execution.seeds); part of the fingerprint so that
#: chunks seeded another way are never resumed.
SEEDING = "content-v1"


# --------------------------------------------------------------------------- fingerprint


def fingerprint(exp: Experiment, simulator: str | None = None) -> tuple[str, dict[str, Any]]:
    """Hash of everything that determines chunk contents, and the record it hashes (the engine of each cell too:
    engines draw random play from different streams)."""
    plugins: dict[str, str] = {}
    for spec in dict.fromkeys(s for c in exp.cells for s in c.lineup):
        file = spec.rsplit(":", 1)[0]
        if file.endswith(".py") and Path(file).is_file():
            plugins[spec] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    engines = cell_engines(exp.cells, simulator=simulator)
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


def cell_codes(exp: Experiment, simulator: str) -> dict[int, CodeTag]:
    """The tag of the code each cell's chunks are played by (its strategies' modules and the executor's)."""
    resolve = strategy_resolver(simulator)
    stand_in = None if simulator == DEFAULT_SIMULATOR else simulator
    return {c.index: play_tag(lineups.build(c.lineup, resolve), simulator=stand_in) for c in exp.cells}


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class CellsRun:
    """A finished run of cells as its command prints it: the folder, the manifest and the summed tables
    (``cells`` the cells table, ``tables`` by name with a ``cell`` column), all as written to the folder."""

    folder: Path
    manifest: dict[str, Any]
    cells: pd.DataFrame
    tables: dict[str, pd.DataFrame]


def run_cells(exp: Experiment, folder: RunFolder, *, command: str, jobs: int = -1, backend: str = "loky",
              scheduler: str | None = None, fresh: bool = False, quiet: bool = False, check: bool = False,
              simulator: str | None = None, report: bool = True) -> CellsRun:
    """Run every cell of an experiment of cells into ``folder`` and return its root (the registry,
    :func:`analyzer.execution.runs.run_experiment`, checks the arguments and picks this kind).

    Finished chunks go to ``folder.chunks`` as they finish (``fresh``: discarded first); then the summed tables
    to ``results/``, the manifest, and the report (``report`` and the experiment asks for one); what it wrote.
    Raises ResumeError when stored chunks belong to a different experiment.
    """
    sim, mode = simulator_path(simulator), engine_mode()  # $DURAK_ENGINE checked before the store opens
    started, t0 = _now(), time.perf_counter()

    fp, record = fingerprint(exp, sim)
    store = ChunkStore(folder.chunks, fp, cell_codes(exp, sim))
    store.open(fresh=fresh, record=record, experiment=exp.to_dict())  # refuses a foreign --out
    try:
        results, fresh_deals, resumed = _run_chunks(exp, store, sim=sim, jobs=jobs, backend=backend,
                                                    scheduler=scheduler, check=check, quiet=quiet)
    finally:
        store.close()
    elapsed = time.perf_counter() - t0

    cells = _cells_table(exp)
    folder.write_result("cells.parquet", cells)
    for name, df in results.items():
        folder.write_result(f"{name}.parquet", df)

    totals = results["totals"]
    total_chunks = sum(len(c.chunks()) for c in exp.cells)
    manifest = {
        "name": exp.name, "kind": "cells", "description": exp.description, "experiment": exp.to_dict(), "seed": exp.seed,
        "version": __version__,
        "fingerprint": fp, "simulator": sim, "started": started, "finished": _now(),
        "cells": len(exp.cells),
        "units": {u: sum(c.n for c in exp.cells if c.unit == u) for u in exp.counts},
        "total_deals": int(totals["deals_sum"].sum()),
        "deals_this_run": fresh_deals,
        "deals_per_second": round(fresh_deals / elapsed, 1) if elapsed > 0 else None,
        "seconds": round(elapsed, 3), "chunks": total_chunks, "chunks_resumed": resumed,
        "chunks_replayed": len(store.replayed),
        "command": command,
        "jobs": jobs, "backend": backend, "scheduler": scheduler, "check": check,
        "engine": mode, "engines": record["engines"],
        "reports": list(exp.reports),
    }
    folder.write_manifest(manifest)

    if report and exp.reports:
        build_report(folder.root)
    return CellsRun(folder.root, manifest, cells, results)


def _run_chunks(exp: Experiment, store: ChunkStore, *, sim: str, jobs: int, backend: str,
                scheduler: str | None, check: bool, quiet: bool
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
    line = store.replayed_line()
    if line is not None and not quiet:
        print(line, file=sys.stderr, flush=True)
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
                                                  jobs=jobs, backend=backend, scheduler=scheduler):
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
