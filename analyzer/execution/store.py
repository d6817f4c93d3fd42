"""The chunk store ``OUT/chunks/`` and who owns an output folder.

Moved out of ``runner.py`` so the runner only schedules work: everything that
reads, writes or deletes files under ``OUT`` lives here.

* Every finished chunk is written at once, atomically (temp file in the same
  directory, fsync, ``os.replace``) as a zip of parquet tables plus a meta
  record; zip CRCs and the meta (fingerprint, cell, chunk, size) are checked on
  reading, so a torn or foreign file is recomputed, never trusted.
* ``OUT/chunks/FINGERPRINT`` is a hash of everything that determines a chunk's
  content; a different one refuses to resume.
* One writer at a time: an exclusive ``flock`` on ``OUT/.chunks.lock``.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.execution.experiment import ExperimentError

#: Bump when the chunk file layout changes: old chunks are then refused, not misread.
CHUNK_FORMAT = 1
TABLES = ("positions", "totals", "hist")


class ResumeError(ExperimentError):
    """Stored chunks belong to a different experiment (or another run holds the directory)."""


def _atomic_write(path: Path, data: bytes) -> None:
    """Write-then-rename in the same directory, so a reader sees all or nothing."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


class ChunkStore:
    """``OUT/chunks/``: one verified zip per finished chunk, one writer at a time."""

    def __init__(self, root: Path, fp: str) -> None:
        self.root = root
        self.fp = fp
        self._lock: Any = None

    def path(self, cell: int, k: int) -> Path:
        return self.root / f"c{cell:05d}-k{k:06d}.zip"

    def open(self, *, fresh: bool, record: dict[str, Any]) -> None:
        """Lock the directory; wipe it if ``fresh``; refuse chunks of another experiment."""
        self._acquire()
        try:
            if fresh and self.root.exists():
                shutil.rmtree(self.root)
            self.root.mkdir(parents=True, exist_ok=True)
            stored = self.root / "FINGERPRINT"
            if stored.exists():
                if stored.read_text().strip() != self.fp:
                    raise ResumeError(f"experiment changed since the stored chunks in {self.root}; "
                                      "use --fresh or another --out")
            elif any(self.root.glob("c*-k*.zip")):
                raise ResumeError(f"chunks in {self.root} have no FINGERPRINT; "
                                  "use --fresh or another --out")
            else:
                _atomic_write(self.root / "FINGERPRINT.json",
                              json.dumps(record, indent=1, sort_keys=True).encode())
                _atomic_write(stored, (self.fp + "\n").encode())
        except BaseException:
            self._release()
            raise
        for tmp in self.root.glob(".tmp-*"):  # torn writes of a killed run; we hold the lock
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _acquire(self) -> None:
        self.root.parent.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.root.parent / ".chunks.lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise ResumeError(f"another run is writing {self.root}; wait for it or use another --out") from None

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing drops the flock
            self._lock = None

    def close(self) -> None:
        self._release()

    def write(self, cell: int, k: int, n: int, tables: dict[str, pd.DataFrame]) -> None:
        buf = io.BytesIO()
        meta = {"fingerprint": self.fp, "cell": cell, "chunk": k, "n": n, "format": CHUNK_FORMAT}
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
            for name in TABLES:
                zf.writestr(f"{name}.parquet", _parquet_bytes(tables[name]))
            zf.writestr("meta.json", json.dumps(meta))  # written last: present means complete
        _atomic_write(self.path(cell, k), buf.getvalue())

    def read(self, cell: int, k: int, n: int) -> dict[str, pd.DataFrame] | None:
        """The chunk's tables if a valid file for exactly this chunk exists, else None."""
        p = self.path(cell, k)
        if not p.exists():
            return None
        try:
            with zipfile.ZipFile(p) as zf:
                meta = json.loads(zf.read("meta.json"))
                if meta != {"fingerprint": self.fp, "cell": cell, "chunk": k, "n": n,
                            "format": CHUNK_FORMAT}:
                    return None
                # ZipFile.read checks each member's CRC-32
                tables = {name: pd.read_parquet(io.BytesIO(zf.read(f"{name}.parquet")))
                          for name in TABLES}
        except Exception:  # any damage means "not done": recompute it
            return None
        if len(tables["totals"]) != 1 or int(tables["totals"]["n"].iloc[0]) != n:
            return None
        return tables
