"""Writing output files so that a failure names the file.

A full disk (ENOSPC) or a quota (EDQUOT) fails a ``write`` or a ``close``,
and Python's OSError then carries no file name: the user read "No space left
on device" with no word of where.  :func:`naming` puts the path on such an
error; :func:`write_text` writes a report's text file through it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """An OSError raised inside without a file name gets ``path`` as its file name (the CLI's one line shows it)."""
    try:
        yield
    except OSError as exc:
        if not exc.filename:
            exc.filename = str(path)
        raise


def write_text(path: Path, text: str) -> None:
    """``path.write_text(text)`` (UTF-8); an OSError names ``path``."""
    with naming(path):
        path.write_text(text, encoding="utf-8")


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be made or used as an output folder (``"x is a file, not a folder"``), else None:
    checked before a run, so that ``--out FILE`` is one clear line at once, not ``File exists`` at the end."""
    for parent in (folder, *folder.parents):
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file, not a folder"
    return None


def writable(folder: Path) -> bool:
    """True if ``folder`` exists (or can be made) and a file can be created in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def user_cache_bases() -> list[Path]:
    """The user's cache folders for this tool, in order of preference: ``$XDG_CACHE_HOME`` (or ``~/.cache``)/
    durak-analyzer, then one in the system temp dir (compiled kernels, a long simulate's chunks)."""
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return [Path(xdg) / "durak-analyzer", Path(tempfile.gettempdir()) / f"durak-analyzer-{uid}"]
