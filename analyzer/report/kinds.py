"""Which kind of run a folder holds, and its report drawn again from what the run stored (``durak report``).

A folder's kind is what its manifest says (``kind``); folders written before every kind kept one are known by
the file their run stores (``results/balance.json``, ``results/tournaments.json``, ``compare.json``,
``tune.json``, ``solve.json``, ``results/`` of cells).  Each kind's report is drawn by its own view module; this is the one
place that maps a kind to it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analyzer.report.balance_view import write_balance_report
from analyzer.report.compare_page import write_compare_page
from analyzer.report.compare_view import rebuild_tournament_report, write_outputs
from analyzer.report.format import fenced_command
from analyzer.report.solve_view import redraw_page
from analyzer.report.tune_view import rewrite_report

#: the manifest's ``kind`` as each run kind writes it -> the kind (tournaments were written in the plural)
KIND_NAMES = {"cells": "cells", "tournament": "tournament", "tournaments": "tournament", "balance": "balance",
              "compare": "compare", "tune": "tune", "solve": "solve"}


def _manifest(folder: Path) -> dict[str, Any]:
    """The folder's manifest, or {} where there is none or it is not a JSON object (old or damaged folders)."""
    try:
        data = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def folder_kind(folder: Path) -> str | None:
    """``cells``, ``tournament``, ``balance``, ``compare``, ``tune`` or ``solve``; None if nothing here is a
    run's."""
    kind = _manifest(folder).get("kind")
    if isinstance(kind, str) and kind in KIND_NAMES:
        return KIND_NAMES[kind]
    for kind, stored in (("balance", "results/balance.json"), ("tournament", "results/tournaments.json"),
                         ("compare", "compare.json"), ("tune", "tune.json"), ("solve", "solve.json")):
        if (folder / stored).is_file():
            return kind
    return "cells" if (folder / "results").is_dir() else None


def redraw_compare(folder: Path) -> list[Path]:
    """A field comparison's compare.md, heat map and compare.html again from its compare.json; compare.md and
    compare.html first."""
    result = json.loads((folder / "compare.json").read_text())
    command = _manifest(folder).get("command")
    if command is None and (folder / "compare.md").is_file():  # written before compare folders kept a manifest
        command = fenced_command((folder / "compare.md").read_text())
    markdown, *charts = write_outputs(result, folder, command=command)
    return [markdown, write_compare_page(result, folder, command=command), *charts]


def redraw(folder: Path, kind: str, *, formats: Sequence[str], redraw: bool) -> list[Path]:
    """The report of a ``tournament``, ``balance``, ``compare``, ``tune`` or ``solve`` folder drawn again (cells reports have
    their sections and progress: :func:`analyzer.report.build.build_report`); the files written, the report
    pages first."""
    if kind == "balance":
        return write_balance_report(folder, formats=formats, redraw=redraw)
    if kind == "tournament":
        return rebuild_tournament_report(folder, formats=formats, redraw=redraw)
    if kind == "compare":
        return redraw_compare(folder)
    if kind == "solve":
        return [redraw_page(folder)]
    if kind == "tune":
        return rewrite_report(folder)  # tune.md first
    raise ValueError(f"no redraw here for a {kind} folder")
