"""``durak report``, and the lines ``durak run`` ends with: what reads stored results and writes reports.

Its own module, loaded by :mod:`analyzer.cli.app` only when such a command
runs: the report builders, pandas and matplotlib (when drawing), never the
kernels or the executor.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import typer

from analyzer.cli.common import UsageError, progress, user_errors
from analyzer.report.build import build_report
from analyzer.report.charts import DEFAULT_FORMATS, FORMATS
from analyzer.report.kinds import folder_kind
from analyzer.report.kinds import redraw as redraw_kind
from analyzer.report.stamp import Stamp
from analyzer.report.summary import headlines
from analyzer.stats.compare import CompareError
from analyzer.stats.tables import CAPPED_ALARM, ResultsError

#: user-error types of the modules this one loads (analyzer.cli.common.USER_ERRORS holds the light ones)
REPORT_ERRORS: tuple[type[BaseException], ...] = (CompareError, ResultsError)


def report(*, folder: Path, quiet: bool = False, svg: bool = False, redraw: bool = False) -> None:
    """Rebuild report.md and report.html from stored results, without simulating; a folder whose report is already
    that of its stored results (and of this code) is left as it is unless ``redraw``."""
    formats = FORMATS if svg else DEFAULT_FORMATS
    with user_errors(*REPORT_ERRORS):
        kind = folder_kind(folder)
        if kind is None:
            raise UsageError(f"{folder}: no run's results here (run the experiment first)")
        if kind in ("compare", "tune", "solve"):  # one page (and its chart): nothing to keep
            written = redraw_kind(folder, kind, formats=formats, redraw=redraw)
            pages = [p for p in written if p.suffix in (".md", ".html")]
            typer.echo(f"report written: {' and '.join(map(str, pages))} ({len(written) - len(pages)} other files)")
            return
        kept = None if redraw else Stamp(folder, formats=list(formats)).current()
        if kept is not None:
            typer.echo(f"report up to date: {kept[0]} and {kept[1]} ({len(kept) - 2} chart files, drawn from the "
                       "same stored results by the same code; --redraw draws them again)")
            return
        if kind != "cells":  # a rule-balance exploration, an experiment of tournaments
            written = redraw_kind(folder, kind, formats=formats, redraw=redraw)
            typer.echo(f"report written: {written[0]} and {written[1]} ({len(written) - 2} chart files)")
            return
        with progress(1, "sections", "report", quiet) as bar:
            paths = build_report(folder, on_section=bar.step, svg=svg, redraw=redraw)
    kept_charts = "" if paths.drawn else ", kept: drawn from the same stored results by the same code"
    typer.echo(f"report written: {paths.markdown} and {paths.html} ({len(paths.charts)} chart files{kept_charts})")
    warn_capped(folder)


def run_ending(folder: Path) -> None:
    """The headline answers (the summary's sentences) and where the report is, on any stdout."""
    for line in headlines(folder):
        typer.echo(line)
    html = folder / "report.html"
    typer.echo(f"report: {html}" if html.exists() else f"results and report in {folder}")


def warn_capped(folder: Path) -> None:
    """A run whose capped share passes the alarm threshold says so loudly."""
    if not (folder / "results" / "cells.parquet").exists():  # tournaments (design experiments) have no cells table
        return
    warn_capped_tables(pd.read_parquet(folder / "results" / "totals.parquet"),
                       pd.read_parquet(folder / "results" / "cells.parquet"))


def warn_capped_tables(totals: pd.DataFrame, cells: pd.DataFrame) -> None:
    """:func:`warn_capped` of a run's summed totals and cells table (in memory: ``durak run``)."""
    tot = totals.merge(cells[["cell", "label"]], on="cell")
    share = tot["capped"] / tot["deals_sum"].clip(lower=1)
    for _, row in tot[share > CAPPED_ALARM].iterrows():
        typer.echo(f"WARNING: {row['label']}: {int(row['capped'])} of {int(row['deals_sum'])} deals hit the turn cap "
                   f"({100 * row['capped'] / row['deals_sum']:.2f}% > {100 * CAPPED_ALARM:.1f}%); they count as "
                   "neither win nor loss", err=True)
