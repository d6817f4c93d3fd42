"""What a results folder must hold before its tables are used.

``durak report`` and ``durak compare`` read ``DIR/results/*.parquet`` and
``DIR/manifest.json``, files a user may have edited, replaced or damaged.  A
table with the wrong columns (or text where numbers belong) used to end in a
KeyError or ValueError traceback deep in the report code, and a manifest that
is a JSON list in an AttributeError.  These checks read only the parquet
schemas (no data) and name the file and the column in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow
import pyarrow.parquet as pq

#: Columns every writer of a table has produced (the committed example reports included),
#: each with whether it must be numeric.
REQUIRED: dict[str, dict[str, bool]] = {
    "cells": {"cell": True, "variant": False, "players": True},
    "positions": {"cell": True, "position": True, "strategy": False, "n": True, "wins": True, "losses": True,
                  "losses_by_wild": True, "wild_held": True, "went_out": True, "points_sum": True,
                  "points_sq": True},
    "totals": {"cell": True, "n": True, "deals_sum": True, "turns_sum": True, "turns_sq": True,
               "turnovers_sum": True, "blocked": True, "capped": True},
    "hist": {"cell": True, "kind": False, "bin": True, "count": True},
}


def _numeric(t: pyarrow.DataType) -> bool:
    return pyarrow.types.is_integer(t) or pyarrow.types.is_floating(t) or pyarrow.types.is_boolean(t)


def results_problem(results: Path) -> str | None:
    """Why the tables in ``results`` cannot be used (first fault, naming file and column), or None.

    A missing or unreadable file is left to the reader, which already says so in one line.
    """
    for name, columns in REQUIRED.items():
        path = results / f"{name}.parquet"
        try:
            schema = pq.read_schema(path)
        except (OSError, pyarrow.lib.ArrowException):
            continue
        for col, numeric in columns.items():
            if col not in schema.names:
                return f"{path}: column {col!r} is missing; not a durak results table (run the experiment again)"
            kind = schema.field(col).type
            if numeric and not _numeric(kind):
                return f"{path}: column {col!r} holds {kind}, not numbers; run the experiment again"
    return None


def manifest_problem(manifest: Any, path: Path) -> str | None:
    """Why a parsed ``manifest.json`` is not a manifest (it must be a JSON object), or None."""
    if not isinstance(manifest, dict):
        return f"{path}: not a durak manifest (a JSON {type(manifest).__name__}, not an object)"
    return None
