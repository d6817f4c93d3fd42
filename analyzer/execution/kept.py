"""A ``durak simulate`` that keeps its finished chunks: resumable, as ``durak run`` is.

``--out DIR`` keeps them in ``DIR``; a long run (:data:`analyzer.execution.play.KEEP_FROM` deals or more) keeps
them in the user cache, in a folder named by what decides the chunks' content (the cell, the seed, the engines),
so that only the same command finds it again, and removes the folder once the run is done.  The cell plays as a
one-cell experiment through the run kinds' registry (:func:`analyzer.execution.runs.play_experiment`): its chunk store, its
seeds, so the numbers are those of the same run without a store.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.core.files import user_cache_bases, writable
from analyzer.execution import lifeline, play
from analyzer.execution.experiment import Cell
from analyzer.execution.runs import play_experiment
from analyzer.execution.runs.cells import fingerprint


def kept_folder(cell: Cell, seed: int) -> Path | None:
    """The user-cache folder of a long run's chunks (None where no cache folder is writable)."""
    fp, _ = fingerprint(play.one_cell_experiment(cell, seed))  # the deals count is not in it
    return next((base / "simulate" / fp[:16] for base in user_cache_bases() if writable(base / "simulate")), None)


def play_kept(cell: Cell, seed: int, out: Path | None, *, jobs: int, check: bool,
              quiet: bool) -> tuple[dict[str, pd.DataFrame], float, dict[str, Any]]:
    """The cell with its chunks kept in ``out`` (None: the user cache, removed at the end): its tables, the
    seconds this invocation took, and what ``--json`` says of the store (``deals_per_second``: of the deals
    played now)."""
    folder = out if out is not None else kept_folder(cell, seed)
    if folder is None:  # nowhere to keep them: played as a short run is
        tables, elapsed = play.play_cell(cell, seed=seed, jobs=jobs, check=check)
        return tables, elapsed, {}
    lifeline.keeps_chunks(f"finished chunks are kept in {folder}; the same command resumes")
    t0 = time.perf_counter()
    done = play_experiment(play.one_cell_experiment(cell, seed), out=folder, jobs=jobs, quiet=quiet, check=check,
                           report=False).cells
    assert done is not None  # a one-cell experiment is a run of cells
    elapsed = time.perf_counter() - t0
    lifeline.keeps_chunks("")
    tables = play.cell_tables(done.tables, cell.index)
    if out is None:
        shutil.rmtree(folder, ignore_errors=True)
    return tables, elapsed, {"stored": None if out is None else str(folder),
                             "chunks_resumed": done.manifest["chunks_resumed"],
                             "deals_this_run": done.manifest["deals_this_run"],
                             "deals_per_second": done.manifest["deals_per_second"]}
