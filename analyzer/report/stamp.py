"""Whether a report folder already shows its stored results: a stamp of what its report was built from.

A resumed run whose results did not change, or ``durak report`` run twice, would draw the same report again;
drawing is most of a report's time.  After a build the folder holds ``.report-stamp.json``: digests of what
the report is made from and the files it wrote.  What the charts are made from (:meth:`Stamp.charts_key`):
every file under ``results/``, the manifest less its facts of one sitting (:data:`PER_RUN`: when it ran, how
fast, on how many jobs -- the text quotes them, no chart does), the report's code (the sources of
``analyzer.core``, ``analyzer.stats`` and ``analyzer.report`` and the package version), the versions of the
libraries that draw and format it, and the options asked (the image formats).  The text adds the whole
manifest.  Both the same and every file still there: nothing to do (:meth:`Stamp.current`); the charts' the
same: the text is written again and the charts kept (:meth:`Stamp.charts_current`).

The digests are of contents, never of times: a resumed run rewrites its results with the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import analyzer
from analyzer.core.files import write_text

#: the stamp's file name in a report folder (git ignores it: it is a cache of this machine's build)
NAME = ".report-stamp.json"
#: manifest keys that differ from sitting to sitting with the same results; no chart shows them
PER_RUN = ("started", "finished", "seconds", "deals_per_second", "deals_this_run", "chunks_resumed", "jobs",
           "backend", "scheduler", "load_average_at_start", "load_average_at_end")
#: the packages whose code makes a report
CODE = ("core", "stats", "report")
#: the libraries whose versions can change a report's files
LIBRARIES = ("matplotlib", "numpy", "pandas", "pyarrow")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The report code's digest: the sources of :data:`CODE`, the package version, :data:`LIBRARIES`' versions."""
    h = hashlib.sha256(analyzer.__version__.encode())
    root = Path(analyzer.__file__).parent
    for pkg in CODE:
        for path in sorted((root / pkg).glob("*.py")):
            h.update(f"{pkg}/{path.name}\0".encode())
            h.update(path.read_bytes())
    for lib in LIBRARIES:
        try:
            h.update(f"{lib} {metadata.version(lib)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{lib} -\0".encode())
    return h.hexdigest()


def _results_files(folder: Path) -> list[Path]:
    """The stored results a report reads (hidden files, a writer's temporaries, left out)."""
    res = folder / "results"
    if not res.is_dir():
        return []
    return sorted(p for p in res.rglob("*") if p.is_file() and not any(s.startswith(".") for s in p.relative_to(res).parts))


class Stamp:
    """The digests of a report folder's inputs now, against the stamp its last build left (if any)."""

    def __init__(self, folder: str | Path, **options: Any) -> None:
        self.folder = Path(folder)
        h = hashlib.sha256(code_digest().encode())
        h.update(json.dumps(options, sort_keys=True).encode())
        for p in _results_files(self.folder):
            h.update(f"{p.relative_to(self.folder).as_posix()}\0{p.stat().st_size}\0".encode())
            h.update(p.read_bytes())
        manifest_path = self.folder / "manifest.json"
        raw = manifest_path.read_bytes() if manifest_path.is_file() else b""
        try:
            manifest = json.loads(raw) if raw else {}
        except ValueError:
            manifest = {"unreadable": raw.decode("utf-8", "replace")}
        steady = {k: v for k, v in manifest.items() if k not in PER_RUN} if isinstance(manifest, dict) else manifest
        h.update(json.dumps(steady, sort_keys=True).encode())
        self.charts_key = h.hexdigest()
        self.text_key = hashlib.sha256(self.charts_key.encode() + raw).hexdigest()
        self.before = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            got = json.loads((self.folder / NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return got if isinstance(got, dict) else {}

    def _there(self, key: str) -> list[Path] | None:
        files = self.before.get(key)
        if not isinstance(files, list):
            return None
        paths = [self.folder / f for f in files]
        return paths if all(p.is_file() for p in paths) else None

    def current(self) -> list[Path] | None:
        """The files of the last build (report texts first, then charts) if it was made from these very inputs
        and they are all still there; else None (build)."""
        if self.before.get("text") != self.text_key or self.before.get("charts") != self.charts_key:
            return None
        texts, charts = self._there("text_files"), self._there("chart_files")
        return None if texts is None or charts is None else texts + charts

    def charts_current(self, charts: Iterable[Path]) -> bool:
        """Whether ``charts`` are exactly the last build's, drawn from these inputs, and all still there."""
        kept = self._there("chart_files")
        return (self.before.get("charts") == self.charts_key and kept is not None
                and sorted(map(str, kept)) == sorted(str(self.folder / Path(p).relative_to(self.folder)) for p in charts))

    def save(self, texts: Iterable[Path], charts: Iterable[Path]) -> None:
        """Record this build: its digests and the files it wrote (texts and charts, paths in the folder)."""
        rel = lambda ps: [Path(p).relative_to(self.folder).as_posix() for p in ps]  # noqa: E731
        write_text(self.folder / NAME, json.dumps({"charts": self.charts_key, "text": self.text_key,
                                                   "text_files": rel(texts), "chart_files": rel(charts)}, indent=1)
                   + "\n")
