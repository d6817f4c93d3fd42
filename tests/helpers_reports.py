"""Committed example reports as a fresh clone has them, for tests that run against a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def copy_as_cloned(name: str, dest: Path) -> Path:
    """Copy ``reports/NAME`` to ``dest`` without what git ignores there (a local run's chunk store, its
    temp files and lock, the stamp of the local report build): a fresh clone has none of them, and a local one
    would change what a run sees."""
    shutil.copytree(ROOT / "reports" / name, dest, ignore=shutil.ignore_patterns("chunks", ".tmp*", ".chunks.lock",
                                                                                 ".report-stamp.json"))
    return dest
