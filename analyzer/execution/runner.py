"""Run an experiment: cells x chunks in parallel, resumable, bit-reproducible.

Why it is built this way:

* **Seeds.** Chunk k of cell c is simulated from
  ``SeedSequence(experiment seed, spawn_key=(c, k))`` and nothing else, and a
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
* **Simulator.** :func:`run_chunk` imports the simulator lazily by module path
  (default ``analyzer.sim.simulator``; ``simulator=`` or ``$DURAK_SIMULATOR`` for a
  stand-in, e.g. ``tests.fake_sim``).  The path travels with every task, so
  loky and dask workers import the same module as the parent.  A stand-in may
  define ``get_strategy`` too; otherwise ``analyzer.core.registry`` resolves names.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import pandas as pd
from numpy.random import SeedSequence

from analyzer.execution.experiment import Cell, Experiment, ExperimentError, load_experiment
from analyzer.execution.store import (CHUNK_FORMAT, TABLES, ChunkStore, ResumeError,  # noqa: F401
                                      _atomic_write, _parquet_bytes)

DEFAULT_SIMULATOR = "analyzer.sim.simulator"
SIMULATOR_ENV = "DURAK_SIMULATOR"
BACKENDS = ("loky", "dask")
#: Key columns of each summed table (besides ``cell``); every other column is summed.
KEYS = {"positions": ["position", "strategy"], "totals": [], "hist": ["kind", "bin"]}


# --------------------------------------------------------------------------- one chunk


def simulator_path(simulator: str | None = None) -> str:
    """The simulator module to use: the argument, else $DURAK_SIMULATOR, else the real one."""
    return simulator or os.environ.get(SIMULATOR_ENV) or DEFAULT_SIMULATOR


def _module(path: str) -> ModuleType:
    return importlib.import_module(path)


def strategy_resolver(simulator: str | None = None) -> Callable[[str], Any]:
    """``get_strategy`` of a stand-in simulator module if it has one, else the registry's."""
    path = simulator_path(simulator)
    if path != DEFAULT_SIMULATOR:
        fn = getattr(_module(path), "get_strategy", None)
        if fn is not None:
            return fn  # type: ignore[no-any-return]
    from analyzer.core.registry import get_strategy

    return get_strategy


def run_chunk(cell: Cell, chunk_index: int, n: int, seed: SeedSequence, check: bool, *,
              simulator: str | None = None) -> dict[str, pd.DataFrame]:
    """Simulate ``n`` deals (or matches) of one cell and return their sums.

    Strategies are built afresh per chunk, so a stateful strategy cannot carry
    anything from one chunk to the next (that would make results depend on
    which chunks a worker happened to run).
    """
    mod = _module(simulator_path(simulator))
    simulate = mod.simulate_matches if cell.unit == "match" else mod.simulate_deals
    resolve = strategy_resolver(simulator)
    strategies = [resolve(spec) for spec in cell.lineup]
    res = simulate(cell.rules(), strategies, n, seed, check=check)
    if len(res) != n:
        raise RuntimeError(f"simulator returned {len(res)} results for chunk {chunk_index} "
                           f"of cell {cell.index}, expected {n}")
    from analyzer.stats.sums import summarize

    return summarize(res, list(cell.lineup))


def chunk_seed(seed: int, cell: int, chunk: int) -> SeedSequence:
    """The only source of a chunk's randomness (see module docstring)."""
    return SeedSequence(seed, spawn_key=(cell, chunk))


def _chunk_job(cell: Cell, k: int, n: int, seed: int, check: bool, simulator: str
               ) -> tuple[int, int, int, dict[str, pd.DataFrame]]:
    """Worker entry: run_chunk plus the chunk's identity (results arrive unordered)."""
    return cell.index, k, n, run_chunk(cell, k, n, chunk_seed(seed, cell.index, k), check,
                                       simulator=simulator)


# --------------------------------------------------------------------------- fingerprint


def fingerprint(exp: Experiment, simulator: str | None = None) -> tuple[str, dict[str, Any]]:
    """Hash of everything that determines chunk contents, and the record it hashes."""
    from analyzer import __version__

    plugins: dict[str, str] = {}
    for spec in dict.fromkeys(s for c in exp.cells for s in c.lineup):
        file = spec.rsplit(":", 1)[0]
        if file.endswith(".py") and Path(file).is_file():
            plugins[spec] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    record = {
        "format": CHUNK_FORMAT, "version": __version__, "simulator": simulator_path(simulator),
        "seed": exp.seed, "plugins": plugins,
        "cells": [{"index": c.index, "unit": c.unit, "lineup": list(c.lineup),
                   "chunk_size": c.chunk_size, "rules": {"variant": c.variant, "players": c.players,
                                                         **c.rules().options()}}
                  for c in exp.cells],
    }
    canon = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest(), record


# --------------------------------------------------------------------------- execution


def _parallel_results(tasks: list[tuple[Cell, int, int]], *, seed: int, check: bool, simulator: str,
                      jobs: int, backend: str, scheduler: str | None
                      ) -> Iterator[tuple[int, int, int, dict[str, pd.DataFrame]]]:
    """Run the tasks; yield each result as soon as it is finished (any order)."""
    from joblib import Parallel, delayed, parallel_config

    calls = (delayed(_chunk_job)(cell, k, n, seed, check, simulator) for cell, k, n in tasks)
    if backend == "loky":
        yield from Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered",
                            batch_size=1)(calls)
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler:
            _check_scheduler(scheduler)
            try:
                client = stack.enter_context(Client(scheduler, set_as_default=False, timeout="10s"))
            except (OSError, ValueError, TimeoutError) as exc:
                raise ExperimentError(f"--scheduler {scheduler!r}: cannot connect: "
                                      f"{' '.join(str(exc).split()) or type(exc).__name__}") from None
        else:
            workers = jobs if jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + jobs)
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None))
            client = stack.enter_context(Client(cluster, set_as_default=False))
        stack.enter_context(parallel_config(backend="dask", client=client))
        yield from Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)(calls)


def _check_scheduler(address: str) -> None:
    """Refuse a malformed or unreachable scheduler address before dask builds a Client.

    A Client that fails half-way leaves a traceback at exit and a long wait; a plain
    socket says "no" at once.
    """
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = url.hostname, url.port
    except ValueError:
        host, port = None, None
    if url.scheme not in ("tcp", "tls") or not host or not port:
        raise ExperimentError(f"--scheduler {address!r}: expected an address like tcp://HOST:8786")
    try:
        with socket.create_connection((host, port), timeout=10):
            pass
    except OSError as exc:
        raise ExperimentError(f"--scheduler {address!r}: cannot connect: {exc.strerror or exc}") from None


def _sum_tables(parts: dict[str, list[pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """Sum chunk tables per cell; inputs are in (cell, chunk) order, so float sums are too."""
    out = {}
    for name in TABLES:
        df = pd.concat(parts[name], ignore_index=True)
        keys = ["cell", *KEYS[name]]
        out[name] = df.groupby(keys, sort=True, as_index=False).sum()
    return out


def _cells_table(exp: Experiment) -> pd.DataFrame:
    rows = []
    for c in exp.cells:
        row: dict[str, Any] = {
            "cell": c.index, "variant": c.variant, "players": c.players, "unit": c.unit, "n": c.n,
            "lineup": ",".join(c.lineup), "rules": c.rules().to_json(), "label": c.label,
        }
        row.update({k: str(v) for k, v in c.grid})
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
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_experiment(
    experiment: str | Path | Experiment, *, out: str | Path | None = None, deals: int | None = None,
    jobs: int = -1, backend: str = "loky", scheduler: str | None = None, resume: bool = True,
    fresh: bool = False, quiet: bool = False, check: bool = False, simulator: str | None = None,
    report: bool = True,
) -> Path:
    """Run every cell of an experiment and write ``reports/<name>/`` (or ``out``); return it.

    Args:
        experiment: an experiment file or a parsed :class:`Experiment`.
        out: output directory; default ``reports/<name>``.
        deals: deals (matches, for match cells) per cell, overriding the file.
        jobs: parallel jobs, joblib style (-1 = all cores / all dask workers).
        backend: ``"loky"`` (local processes) or ``"dask"`` (joblib's dask backend on a
            distributed Client at ``scheduler``; without one, a loopback LocalCluster).
        resume: reuse finished chunks in ``out/chunks`` (False behaves as ``fresh``).
        fresh: wipe stored chunks first.
        quiet: no progress bar (there is none off a terminal either).
        check: ask the simulator to check invariants (slower; results unchanged).
        simulator: module path of the simulator (default ``analyzer.sim.simulator``).
        report: call ``analyzer.report.report.build_report(out)`` afterwards, if that module exists.

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
    out_dir = Path(out) if out is not None else Path("reports") / exp.name
    for parent in (out_dir, *out_dir.parents):
        if parent.exists() and not parent.is_dir():
            raise ExperimentError(f"--out {out_dir}: {parent} is a file, not a folder")
    started, t0 = _now(), time.perf_counter()

    fp, record = fingerprint(exp, sim)
    store = ChunkStore(out_dir / "chunks", fp)
    store.open(fresh=fresh or not resume, record=record)
    try:
        parts, fresh_deals, resumed = _run_chunks(exp, store, sim=sim, jobs=jobs, backend=backend,
                                                  scheduler=scheduler, check=check, quiet=quiet)
    finally:
        store.close()
    elapsed = time.perf_counter() - t0

    results = _sum_tables(parts)
    res_dir = out_dir / "results"
    res_dir.mkdir(parents=True, exist_ok=True)
    _atomic_write(res_dir / "cells.parquet", _parquet_bytes(_cells_table(exp)))
    for name, df in results.items():
        _atomic_write(res_dir / f"{name}.parquet", _parquet_bytes(df))

    from analyzer import __version__

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
        "reports": list(exp.reports),
    }
    _atomic_write(out_dir / "manifest.json", (json.dumps(manifest, indent=2) + "\n").encode())

    if report and exp.reports:
        try:
            from analyzer.report.report import build_report
        except ImportError as e:
            if not quiet:
                print(f"note: no report built ({e}); results are in {res_dir}", file=sys.stderr)
        else:
            build_report(out_dir)
    return out_dir


def _run_chunks(exp: Experiment, store: ChunkStore, *, sim: str, jobs: int, backend: str,
                scheduler: str | None, check: bool, quiet: bool
                ) -> tuple[dict[str, list[pd.DataFrame]], int, int]:
    """Load finished chunks, run the rest, and return every chunk's tables in fixed order.

    Returns (tables by name in (cell, chunk) order with a ``cell`` column, deals
    simulated now, chunks reused).
    """
    from analyzer.cli.progress import RunProgress

    done: dict[tuple[int, int], dict[str, pd.DataFrame]] = {}
    todo: list[tuple[Cell, int, int]] = []
    for cell in exp.cells:
        for k, n in cell.chunks():
            tables = store.read(cell.index, k, n)
            if tables is None:
                todo.append((cell, k, n))
            else:
                done[(cell.index, k)] = tables
    resumed = len(done)
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
            for ci, k, n, tables in _parallel_results(todo, seed=exp.seed, check=check, simulator=sim,
                                                      jobs=jobs, backend=backend, scheduler=scheduler):
                store.write(ci, k, n, tables)
                back = store.read(ci, k, n)  # what a resumed run would see, byte for byte
                if back is None:
                    raise RuntimeError(f"chunk {k} of cell {ci} did not read back from {store.root}")
                done[(ci, k)] = back
                fresh_deals += int(back["totals"]["deals_sum"].iloc[0])
                left[ci] -= 1
                bar.advance(n, cell_done=left[ci] == 0)
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in TABLES}
    for cell in exp.cells:
        for k, _ in cell.chunks():
            for name, df in done[(cell.index, k)].items():
                parts[name].append(df.assign(cell=cell.index))
    return parts, fresh_deals, resumed
