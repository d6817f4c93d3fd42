"""Charts of the report tables (matplotlib, no pyplot state, never shown).

Each function takes a table from :mod:`analyzer.stats.tables`, draws on ``ax`` (a
new figure when ``ax`` is None) and returns the axes; :func:`save_figure`
writes it in the report's image formats (PNG by default).  Figures are built
with :class:`matplotlib.figure.Figure` directly (:func:`figure`), so nothing
depends on an interactive backend and nothing leaks between charts.  Every
chart carries a title, axis labels with units and its sample sizes, and tells
series apart by marker, line style or hatch, not by colour alone, so it
survives grey-scale printing.

matplotlib is imported by the functions that draw, never by this module's
import: the runner imports the report builders, and a command that draws
nothing (``durak simulate``) should not pay a third of a second for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import cycle
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from analyzer.core.files import naming
from analyzer.stats.tables import rules_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
HATCHES = ("//", "..", "xx", "\\\\", "--", "++", "oo")
GREYS = ("0.15", "0.55", "0.8", "0.35", "0.65", "0.9")


def figure(**kwargs: Any) -> Figure:
    """A new :class:`matplotlib.figure.Figure` (not pyplot's: nothing to close, no backend chosen).

    ``layout="constrained"`` is constrained layout settled in one pass where that is enough (:func:`settled_layout`).
    """
    from matplotlib.figure import Figure

    if kwargs.get("layout") == "constrained":
        kwargs["layout"] = settled_layout()
    return Figure(**kwargs)


def settled_layout() -> Any:
    """matplotlib's constrained layout, its algorithm run once instead of twice where that places it as well.

    matplotlib runs it twice because the first placement can change the decorations it measured (tick labels
    of a longer or shorter axis, a legend anchored below its axes, a colorbar placed beside its axes, the
    extent of an axes that keeps its aspect ratio): on a figure with a colorbar one pass leaves the colorbar's
    label outside the figure, and an axes of fixed aspect (an image's) lands elsewhere, so such a figure gets
    both.  Elsewhere the second pass measures every axis, tick label and title again for at most a few
    pixels: where the decorations keep their size it leaves the layout as it was, and a legend anchored below
    its axes sits a little lower in its margin.  The layout was about half of drawing a chart, its second pass
    half of that.
    """
    return _settled_class()()


@cache
def _settled_class() -> type:
    """The engine of :func:`settled_layout` (a class made once matplotlib is imported: this module does not)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    class SettledLayout(ConstrainedLayoutEngine):
        def execute(self, fig: Figure) -> Any:
            if getattr(self, "_compress", False) or any(ax.get_label() == "<colorbar>" or ax.get_aspect() != "auto"
                                                        for ax in fig.axes):
                return super().execute(fig)
            try:
                from matplotlib import _constrained_layout as cl
                steps = (cl.make_layoutgrids, cl.make_layout_margins, cl.make_margin_suptitles,
                         cl.match_submerged_margins, cl.check_no_collapsed_axes, cl.reposition_axes,
                         cl.reset_margins)
            except (ImportError, AttributeError):  # another matplotlib's private layout: its whole algorithm
                return super().execute(fig)
            try:
                return _one_pass(fig, self, *steps)
            except (TypeError, KeyError, AttributeError):  # its steps take other arguments there: the whole one
                return super().execute(fig)

    return SettledLayout


def _one_pass(fig: Figure, engine: Any, grids: Any, margins: Any, suptitles: Any, submerged: Any, whole: Any,
              reposition: Any, reset: Any) -> Any:
    """One pass of ``matplotlib._constrained_layout.do_constrained_layout`` (3.8-3.11; not compressed), the steps
    given."""
    width, height = fig.get_size_inches()
    p = engine.get()
    w_pad, h_pad = p["w_pad"] / width, p["h_pad"] / height
    renderer = cast(Any, fig)._get_renderer()  # as matplotlib's own engine asks for it
    layoutgrids = grids(fig, None, rect=p["rect"])
    if not layoutgrids["hasgrids"]:  # axes placed by hand: nothing to lay out
        return layoutgrids
    margins(layoutgrids, fig, renderer, h_pad=h_pad, w_pad=w_pad, hspace=p["hspace"], wspace=p["wspace"])
    suptitles(layoutgrids, fig, renderer, h_pad=h_pad, w_pad=w_pad)
    submerged(layoutgrids, fig)
    layoutgrids[fig].update_variables()
    if whole(layoutgrids, fig):  # else matplotlib warns that the axes collapsed and leaves them where they are
        reposition(layoutgrids, fig, renderer, h_pad=h_pad, w_pad=w_pad, hspace=p["hspace"], wspace=p["wspace"])
    reset(layoutgrids, fig)
    return layoutgrids


def _axes(ax: Axes | None, size: tuple[float, float] = (8.0, 5.5)) -> Axes:
    if ax is not None:
        return ax
    return figure(figsize=size, layout="constrained").add_subplot()


def _yerr(y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Error-bar extents from interval bounds; rounding noise and NaN become 0."""
    e = np.vstack([np.asarray(y, float) - np.asarray(lo, float), np.asarray(hi, float) - np.asarray(y, float)])
    return np.clip(np.nan_to_num(e, nan=0.0), 0.0, None)


#: Legend labels longer than this lose the words every series shares (shown once as the legend title).
LONG_LABEL = 40


def _label_parts(df: pd.DataFrame) -> tuple[dict[int, str], str]:
    """(label per cell, words shared by all labels) -- the shared words only when labels are long."""
    first = df.drop_duplicates("cell")
    labels = dict(zip(first["cell"], first["label"].astype(str)))
    if len(labels) < 2 or max(map(len, labels.values())) <= LONG_LABEL:
        return labels, ""
    common = set.intersection(*(set(lab.split()) for lab in labels.values()))
    short = {c: " ".join(w for w in lab.split() if w not in common) or lab for c, lab in labels.items()}
    shared = " ".join(w for w in next(iter(labels.values())).split() if w in common)
    return short, shared


def series_labels(df: pd.DataFrame) -> dict[int, str]:
    """Legend text per cell: what tells it apart from the other cells of the chart.

    Long labels drop the words every label shares (the variant and player
    count of a one-variant chart, the options no cell changes): a grid of house
    rules reads ``eight_stop=True queen_needs_king=False`` instead of the whole
    cell name, and :func:`legend_title` shows the shared words once.  The
    lineup is added where two cells would still read the same.
    """
    first = df.drop_duplicates("cell")
    short, _ = _label_parts(df)
    counts = pd.Series(list(short.values())).value_counts()
    lineups = dict(zip(first["cell"], first["lineup"].astype(str))) if "lineup" in first else {}
    return {c: (f"{lab} [{lineups.get(c, '')}]" if counts[lab] > 1 and lineups.get(c) else lab)
            for c, lab in short.items()}


def legend_title(df: pd.DataFrame) -> str | None:
    """The words :func:`series_labels` dropped from every label, or None."""
    return _label_parts(df)[1] or None if len(df) else None


def _size_for_legend(entries: int) -> tuple[float, float]:
    """Figure size that keeps the plot area whole above a legend of ``entries`` lines."""
    return (8.0, 5.5 + 0.2 * max(0, entries - 4))


def _legend_below(ax: Axes, title: str | None = None) -> None:
    """Legend under the axes, so long cell labels never cover the data (one column if they are long)."""
    handles, labels = ax.get_legend_handles_labels()
    two = len(labels) > 3 and max(map(len, labels)) <= 45
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncol=2 if two else 1, frameon=False, title=title, title_fontsize="small")


def _plural(unit: str) -> str:
    return "matches" if unit == "match" else f"{unit}s"


def _n(x: float) -> str:
    return f"{int(round(x)):,}"


#: the image formats a chart can be saved in, in the order :func:`save_figure` writes them (PNG first: the
#: Markdown links it and the HTML embeds it)
FORMATS = ("png", "svg")
#: what a report writes unless asked for more (``durak report --svg``): one PNG per chart, drawn and saved once
DEFAULT_FORMATS = ("png",)


def save_figure(fig: Figure, stem: str | Path, dpi: int = 110, formats: Sequence[str] = DEFAULT_FORMATS) -> list[Path]:
    """Write ``stem.png`` (and ``stem.svg`` where ``formats`` asks for it); return the paths, PNG first.

    The layout (the figure's engine: :func:`settled_layout` for ``figure(layout="constrained")``) is settled
    once, at the PNG's resolution, and serves every format; each file is then one draw of the figure.
    ``Figure.savefig`` would run the layout inside a whole draw that renders nothing, then draw again to render,
    for each format: a fifth of a chart's time.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    # no date, no metadata and fixed element ids: the same numbers give byte-identical files (clean diffs of reports/)
    shown = fig.dpi
    fig.dpi = dpi  # as savefig(dpi=...) does while it saves
    try:
        with rc_context({"svg.hashsalt": "durak"}):
            canvas = FigureCanvasAgg(fig)  # one renderer: the text measured for the layout is not measured again
            engine = fig.get_layout_engine()
            if engine is not None:
                engine.execute(fig)
                fig.set_layout_engine("none")
            for ext in (f for f in FORMATS if f in formats):
                p = stem.with_suffix(f".{ext}")
                with naming(p):
                    if ext == "png":
                        _write_png(canvas, p, dpi)
                    else:
                        from matplotlib.backends.backend_svg import FigureCanvasSVG

                        FigureCanvasSVG(fig).print_svg(p, metadata={"Date": None})
                out.append(p)
    finally:
        fig.dpi = shown
    return out


#: zlib's level for the PNGs: 3 packs a chart's flat colours a few per cent looser than the default 6 in half the time
PNG_LEVEL = 3


def _write_png(canvas: Any, path: Path, dpi: float) -> None:
    """Draw ``canvas`` (a FigureCanvasAgg) and write it as a PNG without metadata but its resolution.

    matplotlib writes RGBA; a chart is opaque (a white figure), so where every pixel is, it is written as RGB:
    the same image, a quarter less to compress and store.
    """
    from PIL import Image

    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    pixels = np.ascontiguousarray(rgba[..., :3]) if bool((rgba[..., 3] == 255).all()) else rgba
    Image.fromarray(pixels).save(path, format="png", dpi=(dpi, dpi), compress_level=PNG_LEVEL)


def prune(folder: Path, keep: Sequence[Path], pattern: str = "*") -> list[Path]:
    """Delete the chart files (PNG, SVG) matching ``pattern`` in ``folder`` that are not in ``keep``: what an
    earlier build drew and this one did not (another format, a cell no longer there); return them."""
    kept = {Path(p).resolve() for p in keep}
    gone = [p for p in sorted(folder.glob(pattern)) if p.suffix in (".png", ".svg") and p.resolve() not in kept]
    for p in gone:
        with naming(p):
            p.unlink()
    return gone


def _percent(decimals: int | None) -> Any:
    """A tick formatter of shares as percentages."""
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=decimals)


def plot_win_by_position(wl: pd.DataFrame, variant: str | None = None, unit: str = "deal",
                         ax: Axes | None = None) -> Axes:
    """Win rate of each position with 95 % Wilson bars, against the fair-share line.

    ``wl`` is :func:`analyzer.stats.tables.win_loss_by_position`; one series per cell
    of ``variant`` (all variants if None) and ``unit``, told apart by marker,
    each with its own dashed fair share 1/players.
    """
    d = wl[(wl["outcome"] == "win") & (wl["unit"] == unit)]
    if variant is not None:
        d = d[d["variant"] == variant]
    cells = list(dict.fromkeys(d["cell"]))
    ax = _axes(ax, _size_for_legend(len(cells) + d["players"].nunique()))
    k = max(len(cells), 1)
    width = 0.6
    fairs_drawn: set[int] = set()
    total_n = 0.0
    names = series_labels(d) if len(d) else {}
    for i, (cell, marker) in enumerate(zip(cells, cycle(MARKERS))):
        g = d[d["cell"] == cell].sort_values("position")
        x = g["position"].to_numpy() + (i - (k - 1) / 2) * (width / k)
        y = g["rate"].to_numpy()
        err = _yerr(y, g["lo"].to_numpy(), g["hi"].to_numpy())
        n = float(g["n"].iloc[0])
        total_n += n
        label = f"{names[cell]} (n={_n(n)})"
        ax.errorbar(x, y, yerr=err, fmt=marker, color="black", mfc="white" if i % 2 else "black",
                    capsize=3, linestyle="none", label=label)
        players = int(g["players"].iloc[0])
        if players not in fairs_drawn:
            fairs_drawn.add(players)
            ax.hlines(1.0 / players, -0.5, players - 0.5, colors="0.4",
                      linestyles=cast(Any, LINESTYLES[len(fairs_drawn) % len(LINESTYLES)]), linewidth=1,
                      label=f"fair share 1/{players} = {100 / players:.1f}%")
    ax.yaxis.set_major_formatter(_percent(0))
    ax.set_xlabel("position (0 = first to act after the deal)")
    ax.set_ylabel(f"win rate (% of {_plural(unit)})")
    if len(d):
        ax.set_xticks(range(int(d["position"].max()) + 1))
    ax.set_title(f"{variant or 'all variants'}: win rate by position per {unit}, 95% CI "
                 f"(n={_n(total_n)} {_plural(unit)})")
    if cells:
        _legend_below(ax, legend_title(d))
    return ax


def _group_label(row: pd.Series) -> str:
    rules = rules_text(str(row.get("rules", "{}")))
    rules = "" if rules == "default rules" else f"\n{rules}"
    return f"{row['variant']} {int(row['players'])}p{rules}\n{row['strategy']}\nn={_n(row['n'])}"


def plot_wild_penalty(ws: pd.DataFrame, unit: str = "deal", ax: Axes | None = None) -> Axes:
    """Wild-holding penalty per variant and strategy: held-a-wild share and wild-decided losses.

    ``ws`` is :func:`analyzer.stats.tables.wild_by_strategy`.  Two hatched bars per
    group with 95 % Wilson bars: the share of deals ending with this strategy's
    player holding a wild, and the share in which the wild rule (not the
    points) made it the loser.
    """
    d = ws[ws["unit"] == unit].reset_index(drop=True)
    ax = _axes(ax, (max(6.0, 1.3 * len(d) + 2), 4.8))
    x = np.arange(len(d))
    bars = (("held", "ended holding a wild", HATCHES[0], "0.85"),
            ("by_wild", "lost by the wild rule", HATCHES[1], "0.55"))
    w = 0.38
    for j, (pre, text, hatch, grey) in enumerate(bars):
        y = d[f"{pre}_rate"].to_numpy(dtype=float)
        err = _yerr(y, d[f"{pre}_lo"].to_numpy(dtype=float), d[f"{pre}_hi"].to_numpy(dtype=float))
        ax.bar(x + (j - 0.5) * w, y, w, yerr=err, capsize=3, color=grey, edgecolor="black",
               hatch=hatch, label=text)
    ax.set_xticks(x, [_group_label(r) for _, r in d.iterrows()], fontsize="small")
    ax.yaxis.set_major_formatter(_percent(0))
    ax.set_ylabel(f"share of {_plural(unit)} (per player seat)")
    ax.set_xlabel("variant, players, rules and strategy")
    ax.set_title(f"Wild-holding penalty per {unit}, 95% CI (n={_n(d['n'].sum())} seat-{_plural(unit)})")
    ax.legend(fontsize="small")
    return ax


def plot_heatmap(matrix: pd.DataFrame, ax: Axes | None = None, title: str = "Strategy against strategy",
                 value_label: str = "win rate − fair share (percentage points)",
                 lo: pd.DataFrame | None = None, hi: pd.DataFrame | None = None,
                 n: float | None = None, scale: float = 100.0, lim: float | None = None,
                 verdict: pd.DataFrame | None = None) -> Axes:
    """Heatmap of a square strategy x opponent DataFrame of differences.

    Every cell is annotated with its value (times ``scale``), so the chart reads
    in grey-scale; a cell not distinguishable from 0 is marked "≈": by the
    table's verdict (``verdict``, the one rule: interval and Holm p agree) where
    given, else where its ``lo``/``hi`` interval contains 0.  ``lim``: the colour
    scale's half-range in scaled units -- one for every heat map of a report, so
    equal colours mean equal differences; default: this matrix's largest value.
    Empty cells (e.g. the diagonal) show "—".
    """
    names = list(matrix.index)
    ax = _axes(ax, (1.1 * len(names) + 3.5, 0.9 * len(names) + 2.5))
    v = matrix.to_numpy(dtype=float) * scale
    finite = v[np.isfinite(v)]
    if lim is None:
        lim = float(np.max(np.abs(finite))) if finite.size else 1.0
    lim = lim or 1.0
    im = ax.imshow(np.ma.masked_invalid(v), cmap="PuOr", vmin=-lim, vmax=lim)
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            if not np.isfinite(v[i, j]):
                ax.text(j, i, "—", ha="center", va="center", color="black")
                continue
            mark = ""
            if verdict is not None:
                mark = "" if verdict.iloc[i, j] > 0.5 else "≈"
            elif lo is not None and hi is not None:
                a, b = lo.iloc[i, j], hi.iloc[i, j]
                if np.isfinite(a) and np.isfinite(b) and a <= 0 <= b:
                    mark = "≈"
            ax.text(j, i, f"{mark}{v[i, j]:+.1f}", ha="center", va="center",
                    color="white" if abs(v[i, j]) > 0.6 * lim else "black", fontsize="small",
                    bbox={"facecolor": "white", "alpha": 0.6, "edgecolor": "none", "pad": 1}
                    if abs(v[i, j]) <= 0.6 * lim else None)
    ax.set_xticks(range(len(matrix.columns)), list(matrix.columns), rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel(f"{matrix.columns.name or 'opponent'}")
    ax.set_ylabel(f"{matrix.index.name or 'strategy'} (row is measured)")
    suffix = f" (n={_n(n)})" if n is not None else ""
    note = "; ≈ = not distinguishable" if lo is not None or verdict is not None else ""
    ax.set_title(f"{title}{suffix}{note}", fontsize="medium")
    ax.figure.colorbar(im, ax=ax, label=value_label)
    return ax


_HIST_TEXT = {
    "turns": ("turns per deal", "share of deals", "Deal length"),
    "points": ("penalty points per hand left with cards (the winner's 0 left out)", "share of those hands",
               "Penalty points"),
    "deals": ("deals per match", "share of matches", "Match length"),
}


def plot_hist(ht: pd.DataFrame, kind: str, ax: Axes | None = None, max_series: int = 8,
              coverage: float = 0.999) -> Axes:
    """Distribution of deal length, penalty points or match length, one step line per cell.

    ``ht`` is :func:`analyzer.stats.tables.hist_table` for ``kind``.  Counts are shown
    as shares so cells of different size compare; the x range stops where
    ``coverage`` of every series is shown.  The last stored bin is open-ended
    (">="), as in :func:`analyzer.stats.sums.summarize`.
    """
    xlabel, ylabel, title = _HIST_TEXT.get(kind, (kind, "share", kind))
    if kind == "points":  # like with like: the hands left with cards (the winner's empty hand scores 0)
        ht = ht[ht["bin"] > 0]
    cells = list(dict.fromkeys(ht["cell"]))[:max_series]
    ax = _axes(ax, _size_for_legend(len(cells)))
    shown = ht[ht["cell"].isin(cells)]
    names = series_labels(shown) if len(shown) else {}
    xmax = 1
    total = 0.0
    for cell, ls, marker in zip(cells, cycle(LINESTYLES), cycle(MARKERS)):
        g = ht[ht["cell"] == cell].sort_values("bin")
        c = g["count"].to_numpy(dtype=float)
        s = c.sum()
        if s <= 0:
            continue
        total += s
        b = g["bin"].to_numpy()
        share = c / s
        cum = np.cumsum(share)
        top = int(b[min(np.searchsorted(cum, coverage), b.size - 1)]) + 1
        xmax = max(xmax, top)
        ax.step(b, share, where="mid", linestyle=ls, color="black", linewidth=1.2,
                marker=marker, markevery=max(1, top // 10), markersize=4,
                label=f"{names[cell]} (n={_n(s)})")
    ax.set_xlim(-0.5, xmax + 0.5)
    ax.yaxis.set_major_formatter(_percent(1))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    more = f", first {max_series} cells" if len(set(ht["cell"])) > max_series else ""
    ax.set_title(f"{title} distribution (n={_n(total)}{more})")
    if cells:
        _legend_below(ax, legend_title(shown))
    return ax


#: One colour per series where colour helps (with a marker each, so grey-scale still reads).
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def _jack_label(row: pd.Series) -> str:
    rules = rules_text(str(row.get("rules", "{}")))
    extra = "" if rules == "default rules" else f" {rules}"
    strat = "" if row.get("strategy", "all") == "all" else f" {row['strategy']}"
    return f"{row['variant']} {int(row['players'])}p{extra}{strat}"


def plot_jack(jq: pd.DataFrame, eff: pd.DataFrame, unit: str = "deal", fig: Figure | None = None) -> Axes:
    """The Jack question in two panels, one series per variant, players and rules (seats pooled).

    Left: the дурак rate of a player dealt 0, 1, 2+ wilds (95 % Wilson bars) against the fair
    share 1/players (dotted, per series).  Right (``eff``, :func:`analyzer.stats.tables.jack_effects`):
    a hand left holding a wild at the end minus hands left with as many cards and no wild, in points,
    with its interval; two-player cells are marked "not compared" (the one hand left with cards is the
    дурак there); a hollow marker where the wild rule cannot decide the game (CZ7 on single deals,
    svinya), so the gap there is the points alone.  Returns the left axes.
    """
    d = jq[jq["unit"] == unit].reset_index(drop=True)
    e = eff[eff["unit"] == unit].reset_index(drop=True) if not eff.empty else eff
    fig = fig or figure(figsize=(11.0, 4.6 + 0.18 * max(0, len(d) - 4)), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
    labels = [_jack_label(r) for _, r in d.iterrows()]
    for i, (_, r) in enumerate(d.iterrows()):
        colour, marker = COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]
        if r["recorded"]:
            ks = [k for k in (0, 1, 2) if r[f"dealt{k}_n"] > 0]
            y = np.array([r[f"dealt{k}_rate"] for k in ks], float)
            err = _yerr(y, np.array([r[f"dealt{k}_lo"] for k in ks], float),
                        np.array([r[f"dealt{k}_hi"] for k in ks], float))
            x = np.array(ks) + (i - (len(d) - 1) / 2) * 0.05
            left.errorbar(x, y, yerr=err, color=colour, marker=marker, capsize=3, label=labels[i])
            left.hlines(1.0 / int(r["players"]), -0.2, 2.2, colors=colour, linestyles=":", linewidth=0.8)
    left.set_xticks([0, 1, 2], ["no wild", "one wild", "two or more"])
    left.set_xlabel("wilds dealt to the player" + (" (the match's last deal)" if unit == "match" else ""))
    left.set_ylabel(f"дурак rate (% of {_plural(unit)})")
    left.yaxis.set_major_formatter(_percent(None))
    left.set_title(f"Dealt wilds, per {unit} (dotted: fair share 1/players)", fontsize="medium")
    if len(d) and d["recorded"].any():
        left.legend(fontsize="small", frameon=False)
    else:
        left.text(0.5, 0.5, "dealt hands not recorded", transform=left.transAxes, ha="center")
    rlabels = [_jack_label(r) for _, r in e.iterrows()]
    for i, (_, r) in enumerate(e.iterrows()):
        colour = COLOURS[i % len(COLOURS)]
        if not r["held_informative"]:
            right.text(0, i, "  not compared: 2 players", va="center", fontsize="small", color="#666")
            continue
        if not np.isfinite(r["held_gap"]):
            right.text(0, i, "  no holders to compare", va="center", fontsize="small", color="#666")
            continue
        x = 100 * np.array([r["held_gap"]])
        err = 100 * _yerr(np.array([r["held_gap"]]), np.array([r["held_gap_lo"]]), np.array([r["held_gap_hi"]]))
        right.errorbar(x, [i], xerr=err, color=colour, marker="o", capsize=3, linestyle="none",
                       mfc=colour if r["rule_acts"] else "white")
    if not len(e):  # results stored before the cards left were: nothing to set like with like
        right.text(0.5, 0.5, "cards left at the end not recorded\n(rerun the experiment)", transform=right.transAxes,
                   ha="center", va="center", color="#666")
        right.set_axis_off()
        fig.suptitle(f"The Jack question per {unit}, 95% CI (n={_n(d['n'].sum())} seat-{_plural(unit)})")
        return left
    right.axvline(0, color="#444", lw=1)
    right.set_yticks(range(len(e)), rlabels, fontsize="small")
    right.set_ylim(len(e) - 0.5, -0.5)
    right.set_xlabel("дурак rate: holding a wild − as many other cards (points)")
    right.set_title("Left holding a wild at the end, like with like;\nhollow ○: the wild rule cannot decide here",
                    fontsize="medium")
    fig.suptitle(f"The Jack question per {unit}, 95% CI (n={_n(d['n'].sum())} seat-{_plural(unit)})")
    return left


def plot_jack_rule(eff: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Keeper-minus-dumper дурак gap with the wild rule on (●) and off (□), and the rule's cost to the
    keeper (◆, its дурак rate on − off), per group where the rule acts, 95 % intervals, in points."""
    d = eff[eff["rule_acts"].astype(bool)].reset_index(drop=True)
    ax = _axes(ax, (8.0, 1.2 + 0.75 * max(len(d), 1)))
    y = np.arange(len(d))
    for off, (m, marker, colour, text) in zip((-0.22, 0.0, 0.22), (
            ("gap_on", "o", COLOURS[1], "keeper − dumper, rule on"),
            ("gap_off", "s", COLOURS[0], "keeper − dumper, rule off"),
            ("cost", "D", COLOURS[2], "the rule's cost to the keeper (on − off)"))):
        x = 100 * d[m].to_numpy(dtype=float)
        err = 100 * _yerr(d[m].to_numpy(dtype=float), d[f"{m}_lo"].to_numpy(dtype=float),
                          d[f"{m}_hi"].to_numpy(dtype=float))
        ax.errorbar(x, y + off, xerr=err, fmt=marker, color=colour, capsize=3, label=text)
    ax.axvline(0, color="0.3", lw=1)
    ax.set_yticks(y, [f"{r.variant} {int(r.players)}p per {r.unit}, rule per {r.wild_rule}" for r in d.itertuples()],
                  fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("difference of дурак rates (percentage points)")
    ax.set_title("The wild rule on and off, 95% CI", fontsize="medium")
    _legend_below(ax)
    return ax


def plot_length(length: pd.DataFrame, unit: str = "deal", ax: Axes | None = None) -> Axes:
    """Mean deal length in turns (per match: deals) per cell with 95 % bars, one row per variant, players
    and rule set, so a rule that lengthens the game stands out (CZ8 ``queen_needs_king`` in czech 2p);
    the median (|) and p90 (×) from the stored histogram beside it; a log scale when lengths differ
    more than tenfold."""
    d = length[length["unit"] == unit].copy()
    if unit == "match":
        d["mean"], d["lo"], d["hi"] = d["deals_mean"], d["deals_mean"], d["deals_mean"]
        med, p90, what = d["deals_median"], d["deals_p90"], "deals per match"
    else:
        d["mean"], d["lo"], d["hi"] = d["turns_mean"], d["turns_lo"], d["turns_hi"]
        med, p90, what = d["turns_median"], d["turns_p90"], "turns per deal"
    labels = [f"{v} {int(p)}p " + (rules_text(str(r)) if rules_text(str(r)) != "default rules" else "(default)")
              for v, p, r in zip(d["variant"], d["players"], d["rules"])]
    # seatings of one rule set read the same: show each label once, with the mean over its cells
    d["label"] = labels
    g = d.groupby("label", sort=False).agg(mean=("mean", "mean"), lo=("lo", "min"), hi=("hi", "max"),
                                           med=(med.name, "mean"), p90=(p90.name, "mean"),
                                           variant=("variant", "first"), n=("n", "sum")).reset_index()
    g = g.sort_values(["variant", "label"]).reset_index(drop=True)
    ax = _axes(ax, (11.0, 1.9 + 0.3 * max(len(g), 1)))
    y = np.arange(len(g))
    colours = {v: COLOURS[i % len(COLOURS)] for i, v in enumerate(dict.fromkeys(g["variant"]))}
    for i, r in g.iterrows():
        err = _yerr(np.array([r["mean"]]), np.array([r["lo"]]), np.array([r["hi"]]))
        ax.errorbar([r["mean"]], [i], xerr=err, fmt=MARKERS[list(colours).index(r["variant"]) % len(MARKERS)],
                    color=colours[r["variant"]], capsize=3)
    ax.plot(g["med"], y, "|", color="0.3", markersize=10, label="median")
    ax.plot(g["p90"], y, "x", color="0.3", label="90th percentile")
    ax.set_yticks(y, g["label"], fontsize="small")
    ax.invert_yaxis()
    positive = g["mean"][g["mean"] > 0]
    if len(positive) and positive.max() > 10 * positive.min():
        ax.set_xscale("log")
        from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"{what}: mean with 95% CI (●), median (|), 90th percentile (×)")
    ax.set_title(f"{'Match' if unit == 'match' else 'Deal'} length per rule set (n={_n(g['n'].sum())} {_plural(unit)})",
                 fontsize="medium")
    ax.grid(axis="x", color="0.9")
    return ax
