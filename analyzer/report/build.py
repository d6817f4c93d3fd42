"""``build_report(path)``: load a results folder, run the section builders, write the files.

Writes ``DIR/report.md``, a self-contained ``DIR/report.html`` and
``DIR/charts/*.png`` (the Markdown links each chart's PNG, the HTML embeds
it; ``svg=True`` adds ``*.svg`` beside them).  The sections are built first,
then every chart is drawn at once (:class:`analyzer.report.draw.Drawer`: on
every idle core), and chart files no longer part of the report are deleted.  A
folder whose stored results, manifest and report code are those of its last
build is left as it is; if only the manifest's facts of one sitting changed
(a resumed run), the text is written again and the charts kept
(:mod:`analyzer.report.stamp`).  The report leads with a loud line for every cell
whose turn-cap share exceeds 0.1 % (its rates are then biased, G10), then the
answers as plain sentences, then each section's tables and charts, then how the
run was made (from the manifest), so that it can be reproduced.

``manifest["reports"]`` lists the report kinds to draw
(:data:`analyzer.core.report_kinds.REPORT_KINDS`); a missing or empty list
means all.  An unknown kind is a one-line :class:`ResultsError` naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from analyzer.core.files import write_text
from analyzer.core.report_kinds import REPORT_KINDS, ReportKindError, check_kinds
from analyzer.report import charts, sentences
from analyzer.report.draw import Drawer
from analyzer.report.memo import tables_once
from analyzer.report.render import Block, render_html, render_md
from analyzer.report.sections import SECTIONS, TITLES, Context, run_blocks
from analyzer.report.stamp import Stamp
from analyzer.report.summary import summary_blocks
from analyzer.stats import tables
from analyzer.stats.tables import ResultsError


class ReportPaths(NamedTuple):
    """What :func:`build_report` wrote."""

    markdown: Path
    html: Path
    charts: list[Path]
    drawn: bool = True  # False: the charts were already those of these results, and kept


def requested_kinds(manifest: dict, where: Path) -> tuple[str, ...]:
    """The manifest's report kinds in report order; none listed means all of them."""
    kinds = manifest.get("reports") or []
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise ResultsError(f"{where / 'manifest.json'}: 'reports' must be a list of report kinds, got {kinds!r}")
    try:
        chosen = set(check_kinds(kinds))
    except ReportKindError as exc:
        raise ResultsError(f"{where / 'manifest.json'}: {exc}") from None
    return tuple(k for k in REPORT_KINDS if not chosen or k in chosen)


def build_report(path: str | Path, on_section: Callable[[int], None] | None = None, *, svg: bool = False,
                 workers: int | None = None, redraw: bool = False) -> ReportPaths:
    """Write ``DIR/report.md``, ``DIR/report.html`` and ``DIR/charts/*`` for a results folder.

    ``on_section(sections)`` hears the number of sections to build, once before the first and after each one
    (the command's progress).  ``svg``: each chart as SVG too.  ``workers``: processes drawing the charts (None:
    every idle core).  ``redraw``: build and draw even if the folder's report is already that of its results.
    """
    d = Path(path)
    formats = charts.FORMATS if svg else charts.DEFAULT_FORMATS
    md_path, html_path = d / "report.md", d / "report.html"
    stamp = Stamp(d, formats=list(formats))
    if not redraw and (kept := stamp.current()) is not None:
        return ReportPaths(md_path, html_path, [p for p in kept if p not in (md_path, html_path)], drawn=False)
    res = tables.load_results(d)
    with tables_once(res):
        blocks, made, drawn = _build(d, res, on_section, Drawer(formats, workers), stamp, redraw)
    name = str(res.manifest.get("name") or d.name)
    write_text(md_path, render_md(blocks, d))
    write_text(html_path, render_html(blocks, f"Durak report: {name}"))
    stamp.save([md_path, html_path], made)
    return ReportPaths(md_path, html_path, made, drawn)


def _build(d: Path, res: tables.Results, on_section: Callable[[int], None] | None, drawer: Drawer, stamp: Stamp,
           redraw: bool) -> tuple[list[Block], list[Path], bool]:
    """The report's blocks, its chart files, and whether they were drawn (else kept: the stamp's)."""
    kinds = requested_kinds(res.manifest, d)
    outdir = d / "charts"
    outdir.mkdir(parents=True, exist_ok=True)
    ctx = Context(res, outdir, drawer=drawer)
    built = {}
    for k in kinds:
        if on_section is not None:
            on_section(len(kinds))
        built[k] = SECTIONS[k](ctx)

    name = str(res.manifest.get("name") or d.name)
    blocks: list[Block] = [Block("h1", f"Durak experiment report: {name}")]
    toc = ["Answers", *(TITLES[k] for k in kinds), "How this was run"]
    head, made = summary_blocks(res, outdir, toc, drawer)
    ctx.made.extend(made)
    blocks += head
    blocks += [Block("warn", w) for w in sentences.capped_warnings(ctx.length)]
    blocks.append(Block("h2", "Answers"))
    for k in kinds:
        blocks += built[k].answers
    for k in kinds:
        blocks.append(Block("h2", TITLES[k]))
        blocks += built[k].details
    blocks += run_blocks(res)

    drawn = redraw or not stamp.charts_current(ctx.made)
    if drawn:
        drawer.draw()
    charts.prune(outdir, ctx.made)
    if on_section is not None:
        on_section(len(kinds))
    return blocks, ctx.made, drawn
