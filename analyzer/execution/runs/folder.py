"""A run's folder, the same object for every run kind: its manifest, its results, its chunks, its report.

::

    FOLDER/manifest.json      what ran (name, kind, seed, fingerprint, the command that reproduces it, ...)
    FOLDER/results/           the stored results (parquet tables, JSON records)
    FOLDER/chunks/            the chunk store of a resumable run (analyzer.execution.store.ChunkStore)
    FOLDER/report.md, .html   the report (drawn by analyzer/report/ from results/)

The manifest and ``results/`` are written atomically (:func:`analyzer.execution.store.atomic_write`): a reader
sees all of a file or nothing, so a run killed while writing leaves the previous file or none.  A manifest is read as a user file
(bounded, checked to be a JSON object): committed folders under ``reports/`` were written by earlier versions
and are read as they are.  Only this module writes ``manifest.json``
(``tests/project/test_architecture.py`` checks it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.core.files import folder_problem, write_text
from analyzer.execution.store import atomic_write, parquet_bytes, read_manifest

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class RunFolder:
    """The folder ``root`` of one run (module doc)."""

    root: Path

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def chunks(self) -> Path:
        return self.root / "chunks"

    def report(self, suffix: str = ".md", name: str = "report") -> Path:
        """Where the report is drawn (``report.md``, ``report.html``; tuning: ``tune.md``)."""
        return self.root / f"{name}{suffix}"

    def problem(self) -> str | None:
        """Why the folder cannot be written (analyzer.core.files.folder_problem), or None."""
        return folder_problem(self.root)

    def has_manifest(self) -> bool:
        return self.manifest_path.is_file()

    def manifest(self) -> dict[str, Any]:
        """The stored manifest (ResumeError, one line, if it is not one; {} if there is none)."""
        return read_manifest(self.manifest_path) if self.has_manifest() else {}

    def write_manifest(self, manifest: dict[str, Any]) -> Path:
        """Write the manifest (after the results: a folder with a manifest holds a finished run)."""
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.manifest_path, (json.dumps(manifest, indent=2) + "\n").encode())
        return self.manifest_path

    def write_result(self, name: str, data: pd.DataFrame | dict[str, Any] | list[Any]) -> Path:
        """``results/NAME``: a frame as parquet, a record as indented JSON."""
        self.results.mkdir(parents=True, exist_ok=True)
        path = self.results / name
        if isinstance(data, pd.DataFrame):
            atomic_write(path, parquet_bytes(data))
        else:
            atomic_write(path, (json.dumps(data, indent=1, default=str) + "\n").encode())
        return path

    def write_record(self, name: str, data: dict[str, Any] | list[Any]) -> Path:
        """``NAME`` at the folder's root as indented JSON (``compare.json``), written in place through its path
        (a write error names the file)."""
        self.root.mkdir(parents=True, exist_ok=True)
        write_text(self.root / name, json.dumps(data, indent=1) + "\n")
        return self.root / name

    def result_table(self, name: str) -> pd.DataFrame:
        """``results/NAME`` (parquet) as a frame."""
        return pd.read_parquet(self.results / name)
