"""The chunk store ``OUT/chunks/`` and who owns an output folder.

Moved out of ``runner.py`` so the runner only schedules work: everything that
reads, writes or deletes files under ``OUT`` lives here.

* Every finished chunk is written at once, atomically (temp file in the same
  directory, fsync, ``os.replace``) as a zip of its tables plus a meta
  record; zip CRCs and the meta (fingerprint, cell, chunk, size) are checked on
  reading, so a torn or foreign file is recomputed, never trusted.  A table is
  stored column by column (:func:`table_members`: the numeric columns of a dtype one
  ``.npy`` array, text columns in the table's JSON header), which reads back
  bit for bit with its dtypes; a table of other columns is stored as parquet.
  Parquet took 27 ms of CPU a chunk to write and read back (three small tables),
  as much as playing 25,000 czech deals and summing them; this, 1 ms.
* ``OUT/chunks/FINGERPRINT`` is a hash of everything in the experiment that
  determines a chunk's content; a different one refuses to resume.  The code is
  not in it: each chunk records the tag of the code that played it
  (:mod:`analyzer.execution.code_tag`), a chunk of another tag is played again,
  and ``OUT/chunks/CODE.json`` (the digests of the last run's files) names the
  files that changed.
* One writer at a time: an exclusive ``flock`` on ``OUT/.chunks.lock``.
* ``durak run`` never deletes or overwrites what it did not write:
  ``--fresh`` removes only the store's own files (chunk zips, ``FINGERPRINT``,
  torn temp files), and :func:`claim_output` refuses an output folder that holds
  another experiment's results (a committed example report included) or files
  that are not durak's, with one line saying how to proceed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.inputs import read_user_text
from analyzer.execution.code_tag import CodeTag, changed_files
from analyzer.execution.experiment import ExperimentError

#: Bump when the chunk file layout changes: old chunks are then refused, not misread.
#: 2: per-position cross products and the rest-hand wild sums; 3: the Jack sums, shared deal ties; 4: the Jack
#: comparisons that isolate the wild: cards-left strata and same-game moments (analyzer.stats.sums);
#: 5: tables column by column (:func:`table_members`), not parquet.
CHUNK_FORMAT = 5
TABLES = ("positions", "totals", "hist")
#: Every name the store writes inside ``OUT/chunks/``; ``--fresh`` deletes these and nothing else.
_OWN_CHUNK_FILE = re.compile(r"c\d{5}-k\d{6}\.zip|FINGERPRINT|FINGERPRINT\.json|CODE\.json|\.tmp-.*", re.DOTALL)
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")
#: What a run leaves in ``OUT`` before its manifest exists (a run killed early).
_SCAFFOLD = {".chunks.lock", "chunks", "results"}
#: Experiment record keys that do not change the numbers: a rerun with other values is the same experiment.
_NOT_IDENTITY = {"deals", "matches", "source", "cells", "reports", "description"}


class ResumeError(ExperimentError):
    """Stored chunks belong to a different experiment (or another run holds the directory)."""


def atomic_write(path: Path, data: bytes) -> None:
    """Write-then-rename in the same directory, so a reader sees all or nothing."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    except OSError as exc:
        raise _named(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # e.g. a full disk: say which file could not be written
            raise _named(exc, path) from None
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _named(exc: OSError, path: Path) -> OSError:
    """The same error with ``path`` as its file name (a failed write() names none)."""
    return OSError(exc.errno or errno.EIO, f"cannot write: {exc.strerror or exc}", str(path))


def parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


#: dtypes of the text columns a chunk table stores in its header (pandas' string dtype reads as "str")
_TEXT = {"str", "string", "object"}


def table_members(name: str, df: pd.DataFrame) -> dict[str, bytes]:
    """The zip members of one table: ``{name}.json`` (columns, dtypes, text values) and ``{name}.{dtype}.npy``, the
    numeric columns of each dtype as the rows of one array; a table with a column of any other kind (or a label
    that is not a string, an index that is not 0..n-1): ``{name}.parquet``."""
    plain = isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1
    if not plain or df.columns.has_duplicates:
        return {f"{name}.parquet": parquet_bytes(df)}
    columns: list[list[Any]] = []
    groups: dict[str, list[np.ndarray]] = {}
    for label, col in df.items():
        kind = str(col.dtype)
        if not isinstance(label, str):
            return {f"{name}.parquet": parquet_bytes(df)}
        text = col.tolist() if kind in _TEXT and not col.isna().any() else None
        if text is not None and all(type(x) is str for x in text):
            columns.append([label, kind, text])
        elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "biuf":
            columns.append([label, kind, len(groups.setdefault(kind, []))])
            groups[kind].append(col.to_numpy())
        else:
            return {f"{name}.parquet": parquet_bytes(df)}
    members = {f"{name}.json": json.dumps({"rows": len(df), "columns": columns}).encode()}
    for kind, cols in groups.items():
        buf = io.BytesIO()
        np.save(buf, np.stack(cols), allow_pickle=False)
        members[f"{name}.{kind}.npy"] = buf.getvalue()
    return members


def read_table(zf: zipfile.ZipFile, name: str) -> pd.DataFrame:
    """A table :func:`table_members` wrote (any damage raises: the caller recomputes the chunk)."""
    if f"{name}.parquet" in zf.namelist():
        return pd.read_parquet(io.BytesIO(zf.read(f"{name}.parquet")))
    head = json.loads(zf.read(f"{name}.json"))
    rows = head["rows"]
    arrays: dict[str, np.ndarray] = {}
    data: dict[str, Any] = {}
    for label, kind, where in head["columns"]:
        if isinstance(where, list):
            data[label] = pd.Series(where, dtype=kind)
            continue
        if kind not in arrays:
            arrays[kind] = np.load(io.BytesIO(zf.read(f"{name}.{kind}.npy")), allow_pickle=False)
            if str(arrays[kind].dtype) != kind or arrays[kind].shape[1:] != (rows,):
                raise ValueError(f"{name}: the {kind} columns are not what the header says")
        data[label] = arrays[kind][where]
    out = pd.DataFrame(data, index=pd.RangeIndex(rows))
    if len(out.columns) != len(head["columns"]):
        raise ValueError(f"{name}: repeated column names")
    return out


class ChunkStore:
    """``OUT/chunks/``: one verified zip per finished chunk, one writer at a time.

    ``code`` is the tag of the code that plays the chunks (one for all, or one per cell: a cell whose strategies did
    not change keeps its chunks when another's did); without one (a test's store) chunks carry none.
    """

    def __init__(self, root: Path, fp: str, code: CodeTag | Mapping[int, CodeTag] | None = None) -> None:
        self.root = root
        self.fp = fp
        self._code = code
        self._lock: Any = None
        #: chunks (cell, chunk) found complete but played by other code: they are played again
        self.replayed: set[tuple[int, int]] = set()
        #: the files whose digest changed since the last run that wrote here (None: it recorded none)
        self.changed: list[str] | None = []

    def code(self, cell: int) -> str:
        """The tag a chunk of ``cell`` is written with and must carry to be read."""
        code = self._code
        if code is None:
            return ""
        return code.tag if isinstance(code, CodeTag) else code[cell].tag

    def _modules(self) -> dict[str, str]:
        code = self._code
        tags = [] if code is None else [code] if isinstance(code, CodeTag) else list(code.values())
        return {k: v for t in tags for k, v in t.modules.items()}

    def replayed_line(self) -> str | None:
        """One line saying which stored chunks are played again because the code changed, or None."""
        if not self.replayed:
            return None
        n = len(self.replayed)
        what = (f"{n} stored chunk{'s' if n != 1 else ''} {'were' if n != 1 else 'was'} played by other code")
        if self.changed is None:
            why = "(which files changed is not on record)"
        elif self.changed:
            shown = ", ".join(self.changed[:4]) + (f" and {len(self.changed) - 4} more" if len(self.changed) > 4 else "")
            why = f"(changed since: {shown})"
        else:
            why = "(another version of the files)"
        return f"{what} {why}: played again"

    def path(self, cell: int, k: int) -> Path:
        return self.root / f"c{cell:05d}-k{k:06d}.zip"

    def open(self, *, fresh: bool, record: dict[str, Any], experiment: dict[str, Any] | None = None) -> None:
        """Lock the directory; clear our own files if ``fresh``; refuse chunks of another experiment.

        ``experiment`` (the experiment's record, :meth:`Experiment.to_dict`) lets
        :func:`claim_output` refuse a folder holding another experiment's results.
        """
        if experiment is not None:  # before the lock file: a refused folder gets nothing new
            claim_output(self.root.parent, experiment, fresh=fresh)
        self._acquire()
        try:
            if experiment is not None:  # again under the lock: another run may have written meanwhile
                claim_output(self.root.parent, experiment, fresh=fresh)
            if fresh and self.root.is_dir():
                self._clear_own_files()
            self.root.mkdir(parents=True, exist_ok=True)
            stored = self.root / "FINGERPRINT"
            if stored.exists() or stored.is_symlink():
                if _read_fingerprint(stored) != self.fp:
                    raise ResumeError(f"experiment changed since the stored chunks in {self.root}; "
                                      "use --fresh or another --out")
            elif any(self.root.glob("c*-k*.zip")):
                raise ResumeError(f"chunks in {self.root} have no FINGERPRINT; "
                                  "use --fresh or another --out")
            else:
                atomic_write(self.root / "FINGERPRINT.json",
                              json.dumps(record, indent=1, sort_keys=True).encode())
                atomic_write(stored, (self.fp + "\n").encode())
            self._note_code()
        except BaseException:
            self._release()
            raise
        for tmp in self.root.glob(".tmp-*"):  # torn writes of a killed run; we hold the lock
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _note_code(self) -> None:
        """Compare ``CODE.json`` (the files the last run here played with) with ours, then record ours."""
        if self._code is None:
            return
        path, now = self.root / "CODE.json", self._modules()
        try:
            before = json.loads(read_user_text(path, limit=1 << 20))["modules"]
            self.changed = changed_files(before, now) if isinstance(before, dict) else None
        except FileNotFoundError:
            self.changed = None if any(self.root.glob("c*-k*.zip")) else []
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            self.changed = None
        atomic_write(path, json.dumps({"modules": now}, indent=1, sort_keys=True).encode())

    def _clear_own_files(self) -> None:
        """``--fresh``: delete what the store wrote, keep anything else (a user's own file)."""
        for p in self.root.iterdir():
            if _OWN_CHUNK_FILE.fullmatch(p.name) and (p.is_file() or p.is_symlink()):
                p.unlink()

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
        meta = {"fingerprint": self.fp, "cell": cell, "chunk": k, "n": n, "format": CHUNK_FORMAT,
                "code": self.code(cell)}
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
            for name in TABLES:
                for member, data in table_members(name, tables[name]).items():
                    zf.writestr(member, data)
            zf.writestr("meta.json", json.dumps(meta))  # written last: present means complete
        atomic_write(self.path(cell, k), buf.getvalue())

    def read(self, cell: int, k: int, n: int) -> dict[str, pd.DataFrame] | None:
        """The chunk's tables if a valid file for exactly this chunk exists, else None."""
        p = self.path(cell, k)
        if not p.exists():
            return None
        try:
            with zipfile.ZipFile(p) as zf:
                meta = json.loads(zf.read("meta.json"))
                if not isinstance(meta, dict):
                    return None
                code = meta.pop("code", "")
                if meta != {"fingerprint": self.fp, "cell": cell, "chunk": k, "n": n, "format": CHUNK_FORMAT}:
                    return None
                if code != self.code(cell):
                    self.replayed.add((cell, k))  # complete, but another program's numbers
                    return None
                # ZipFile.read checks each member's CRC-32
                tables = {name: read_table(zf, name) for name in TABLES}
        except Exception:  # any damage means "not done": recompute it
            return None
        if len(tables["totals"]) != 1 or int(tables["totals"]["n"].iloc[0]) != n:
            return None
        return tables


def _read_fingerprint(path: Path) -> str:
    """The stored fingerprint; ResumeError (one line) if the file is not one."""
    try:
        text = read_user_text(path, limit=1024)
    except (OSError, UnicodeDecodeError):
        text = ""
    fp = text.strip()
    if not _FINGERPRINT.fullmatch(fp):
        raise ResumeError(f"{path} is damaged (not a fingerprint); use --fresh to recompute "
                          "its chunks, or another --out")
    return fp


def read_manifest(path: Path) -> dict[str, Any]:
    """``manifest.json`` as a dict; ResumeError (one line) if it is unreadable or not an object.

    Bounded like every user file (it may have been edited or replaced by anything).
    """
    try:
        data = json.loads(read_user_text(path))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else " ".join(str(exc).split())
        raise ResumeError(f"{path}: not a durak manifest ({why})") from None
    if not isinstance(data, dict):
        raise ResumeError(f"{path}: not a durak manifest (a JSON {type(data).__name__}, not an object)")
    return data


def _identity(record: Any) -> dict[str, Any]:
    """What makes two experiment records the same experiment (the numbers, not the counts or reports)."""
    if not isinstance(record, dict):
        return {"": record}
    return {k: v for k, v in record.items() if k not in _NOT_IDENTITY}


def same_experiment(stored: Any, ours: dict[str, Any]) -> bool:
    """True if the stored record describes our experiment (keys one side lacks are not compared)."""
    a, b = _identity(stored), _identity(json.loads(json.dumps(ours, default=str)))
    return all(a[k] == b[k] for k in a.keys() & b.keys()) and a.get("name") == b.get("name")


def claim_output(out: Path, experiment: dict[str, Any], *, fresh: bool) -> None:
    """Refuse to write into ``out`` unless it is empty, ours, or holds this experiment's results.

    * no ``manifest.json``: only what a run creates before its manifest may be there
      (``.chunks.lock``, ``chunks/``, ``results/``, and a torn ``.tmp-*`` write of a run killed while writing,
      removed here), else the folder is someone else's;
    * a manifest of the same experiment (same name and everything that sets the
      numbers; deals and report kinds may differ): rerun, resume or ``--fresh``;
    * a manifest of the same name with a chunk store: the experiment file changed;
      the chunk store's fingerprint check then asks for ``--fresh``;
    * any other manifest (another experiment, or a committed example report without
      chunks): refused, even with ``--fresh``.
    """
    if not out.is_dir():
        return
    names = {p.name for p in out.iterdir()}
    manifest = out / "manifest.json"
    if "manifest.json" not in names:
        for torn in [n for n in names if n.startswith(".tmp-")]:  # a torn write of a run killed before its manifest
            (out / torn).unlink(missing_ok=True)
            names.discard(torn)
        foreign = sorted(names - _SCAFFOLD)
        if foreign:
            raise ResumeError(f"--out {out}: not empty and holds no durak results (found {foreign[0]!r}, "
                              "no manifest.json); use a new or empty folder")
        return
    stored = read_manifest(manifest)
    record = stored.get("experiment")
    if same_experiment(record, experiment):
        return
    name = record.get("name") if isinstance(record, dict) else None
    if name == experiment.get("name") and (out / "chunks" / "FINGERPRINT").exists():
        return  # our own working folder of an edited experiment: the fingerprint check decides
    where = record.get("source") if isinstance(record, dict) else None
    what = f"{name!r}" + (f" from {where}" if where else "") if name else "an unknown experiment"
    hint = " (--fresh removes only its own chunks)" if fresh else ""
    raise ResumeError(f"--out {out}: holds the results of another experiment ({what}; see its manifest.json); "
                      f"use another --out, or delete that folder yourself to replace it{hint}")
