"""Every chart renders to a valid PNG and SVG (SVG on request) and carries its labels and sample sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analyzer.report import charts
from analyzer.stats import tables
from tests.stats.test_tables import write_results

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def res(tmp_path_factory: pytest.TempPathFactory) -> tables.Results:
    return tables.load_results(write_results(tmp_path_factory.mktemp("charts")))


def _valid(paths: list[Path]) -> None:
    png, svg = paths
    assert png.suffix == ".png" and png.read_bytes()[:8] == PNG_MAGIC
    assert svg.suffix == ".svg" and b"<svg" in svg.read_bytes()[:2000]


def test_win_by_position_shows_fair_share_line_and_sample_size(res: tables.Results, tmp_path: Path) -> None:
    ax = charts.plot_win_by_position(tables.win_loss_by_position(res), variant="prague")
    assert "n=1,000" in ax.get_title()
    assert ax.get_xlabel().startswith("position") and "%" in ax.get_ylabel()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("fair share 1/3" in t for t in legend) and any("n=1,000" in t for t in legend)
    _valid(charts.save_figure(ax.figure, tmp_path / "win", formats=charts.FORMATS))


def test_win_by_position_disambiguates_cells_with_same_label(res: tables.Results) -> None:
    ax = charts.plot_win_by_position(tables.win_loss_by_position(res), variant="czech")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("[wild-keeper,wild-dumper]" in t for t in legend)
    assert any("[wild-dumper,wild-keeper]" in t for t in legend)


def test_win_by_position_per_match(res: tables.Results, tmp_path: Path) -> None:
    ax = charts.plot_win_by_position(tables.win_loss_by_position(res), variant="czech", unit="match")
    assert "match" in ax.get_title() and "n=10" in ax.get_title()
    _valid(charts.save_figure(ax.figure, tmp_path / "win_match", formats=charts.FORMATS))


def test_wild_penalty_chart_uses_hatches_and_names_strategies(res: tables.Results, tmp_path: Path) -> None:
    ax = charts.plot_wild_penalty(tables.wild_by_strategy(res))
    hatches = {p.get_hatch() for p in ax.patches}
    assert len(hatches - {None}) >= 2
    ticks = " ".join(t.get_text() for t in ax.get_xticklabels())
    assert "wild-keeper" in ticks and "n=200" in ticks
    _valid(charts.save_figure(ax.figure, tmp_path / "wild", formats=charts.FORMATS))


def test_heatmap_annotates_values_and_marks_not_distinguishable(res: tables.Results, tmp_path: Path) -> None:
    h = tables.head_to_head(res)
    h = h[h["rules"].str.contains("sevens")]
    m = tables.head_to_head_matrix(h, unit="deal")
    ax = charts.plot_heatmap(m, lo=tables.head_to_head_matrix(h, "lo_diff", unit="deal"),
                             hi=tables.head_to_head_matrix(h, "hi_diff", unit="deal"), n=200)
    texts = [t.get_text() for t in ax.texts]
    assert "≈-4.5" in texts and "—" in texts and "n=200" in ax.get_title()  # 90 wins of 198 decided deals
    _valid(charts.save_figure(ax.figure, tmp_path / "h2h", formats=charts.FORMATS))


def test_heatmap_of_arbitrary_square_frame() -> None:
    m = pd.DataFrame([[np.nan, 0.1, -0.2], [-0.1, np.nan, 0.0], [0.2, 0.0, np.nan]],
                     index=list("abc"), columns=list("abc"))
    ax = charts.plot_heatmap(m)
    assert len(ax.texts) == 9


@pytest.mark.parametrize("kind, xlabel", [("turns", "turns per deal"), ("points", "penalty points per hand"),
                                          ("deals", "deals per match")])
def test_histograms_render_with_units(res: tables.Results, tmp_path: Path, kind: str, xlabel: str) -> None:
    ax = charts.plot_hist(tables.hist_table(res, kind), kind)
    assert ax.get_xlabel().startswith(xlabel) and "n=" in ax.get_title()
    _valid(charts.save_figure(ax.figure, tmp_path / kind, formats=charts.FORMATS))


def test_empty_tables_still_render(tmp_path: Path) -> None:
    res = tables.load_results(write_results(tmp_path, keep_cells=[0]))
    ax = charts.plot_win_by_position(tables.win_loss_by_position(res), unit="match")
    _valid(charts.save_figure(ax.figure, tmp_path / "empty", formats=charts.FORMATS))


def test_saved_charts_are_byte_identical_for_the_same_numbers(tmp_path) -> None:
    """No date, no random element ids: rebuilding a report changes no chart file unless its numbers change."""
    from matplotlib.figure import Figure

    from analyzer.report.charts import save_figure

    def draw(stem):
        fig = Figure(figsize=(4, 3))
        ax = fig.add_subplot()
        ax.errorbar([0, 1], [0.4, 0.6], yerr=[0.02, 0.03], fmt="o", label="a")
        ax.legend()
        return save_figure(fig, tmp_path / stem, formats=("png", "svg"))

    first, second = draw("one"), draw("two")
    assert [p.suffix for p in first] == [".png", ".svg"]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.suffix


def test_an_opaque_chart_is_written_as_rgb_with_matplotlibs_pixels(tmp_path: Path) -> None:
    """A chart's PNG holds the pixels matplotlib draws, in RGB where all are opaque (a quarter less to compress
    and store), its resolution and no other metadata; a see-through figure keeps its alpha."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    def square(face: str) -> Figure:
        fig = charts.figure(figsize=(3, 2), layout="constrained", facecolor=face)
        ax = fig.add_subplot()
        ax.errorbar([0, 1], [0.4, 0.6], yerr=[0.02, 0.03], fmt="o", label="a")
        ax.set_title("pixels")
        return fig

    for face, mode in (("white", "RGB"), ("none", "RGBA")):
        [png] = charts.save_figure(square(face), tmp_path / face, dpi=90)
        reference = square(face)
        reference.dpi = 90
        FigureCanvasAgg(reference).print_png(tmp_path / f"{face}_mpl.png")
        with Image.open(png) as ours, Image.open(tmp_path / f"{face}_mpl.png") as theirs:
            assert ours.mode == mode and round(ours.info["dpi"][0]) == 90 and set(ours.info) == {"dpi"}
            assert np.array_equal(np.asarray(ours.convert("RGBA")), np.asarray(theirs.convert("RGBA")))


def test_a_chart_is_one_png_unless_svg_is_asked_for(tmp_path: Path) -> None:
    """One format per chart by default: the PNG that the Markdown links and the HTML embeds; no SVG drawn."""
    ax = charts.plot_hist(pd.DataFrame({"cell": 0, "label": "czech 2p", "lineup": "a,b", "bin": range(4),
                                        "count": [5, 10, 3, 1]}), "turns")
    assert charts.save_figure(ax.figure, tmp_path / "one") == [tmp_path / "one.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.png"]


def test_long_legend_labels_drop_shared_words_into_the_title() -> None:
    """A grid of house rules: labels keep only what differs; the shared words become the legend title."""
    long = pd.DataFrame({"cell": [0, 1], "label": ["czech 2p sevens=False eight_stop=False queen_needs_king=True",
                                                   "czech 2p sevens=False eight_stop=True queen_needs_king=True"]})
    assert charts.series_labels(long) == {0: "eight_stop=False", 1: "eight_stop=True"}
    assert charts.legend_title(long) == "czech 2p sevens=False queen_needs_king=True"
    short = pd.DataFrame({"cell": [0, 1], "label": ["czech 2p (2 seatings pooled)", "czech 3p (2 seatings pooled)"]})
    assert charts.series_labels(short) == {0: "czech 2p (2 seatings pooled)", 1: "czech 3p (2 seatings pooled)"}
    assert charts.legend_title(short) is None


def _laid_out(fig):  # noqa: ANN001, ANN202 -- a matplotlib Figure in, its renderer out
    """``fig`` laid out by its engine at 100 dpi, as save_figure does; its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.dpi = 100
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.get_layout_engine().execute(fig)
    return renderer


def _passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the passes of constrained layout (each measures the margins once) into the list returned."""
    from matplotlib import _constrained_layout as cl

    calls: list[int] = []
    margins = cl.make_layout_margins

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(1)
        return margins(*args, **kwargs)

    monkeypatch.setattr(cl, "make_layout_margins", counted)
    return calls


def _panels(colorbar: bool = False, aspect: str = "auto"):  # noqa: ANN202 -- a matplotlib Figure
    fig = charts.figure(figsize=(7, 3), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.plot([0, 1, 2], [0.1, 0.5, 0.3], label="a series")
    left.set(title="left", xlabel="x (units)", ylabel="y (units)")
    left.legend()
    left.set_xticks([0, 1, 2], ["0", "1", "2+"])  # fixed ticks, none at the edge: decorations of one size
    left.set_xlim(-0.5, 2.5)
    left.set_yticks([0.1, 0.3, 0.5])
    im = right.imshow(np.arange(4.0).reshape(2, 2), aspect=aspect)
    right.set_xticks([0, 1], ["greedy", "random"])
    right.set_yticks([0, 1], ["greedy", "random"])
    right.set(title="right", xlabel="opponent", ylabel="strategy")
    if colorbar:
        fig.colorbar(im, ax=right, label="a colorbar's label")
    fig.suptitle("a figure's title")
    return fig


def test_constrained_layout_is_settled_in_one_pass_and_lands_where_matplotlibs_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A chart's figure without colorbars or axes of fixed aspect is laid out in one pass of constrained layout
    (the second measures everything again); where its decorations keep their size, the axes land where
    matplotlib's two passes put them."""

    passes = _passes(monkeypatch)
    ours = _panels()
    _laid_out(ours)
    assert len(passes) == 1
    theirs = _as_matplotlib_lays_it_out(ours)
    assert len(passes) == 3
    assert ours.get_suptitle() and np.allclose(ours._suptitle.get_position(), theirs._suptitle.get_position())


def _as_matplotlib_lays_it_out(ours: Any) -> Any:
    """The same panels laid out by matplotlib's own constrained layout; every axes of ``ours`` where it is there."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    theirs = _panels()
    theirs.set_layout_engine(ConstrainedLayoutEngine())
    _laid_out(theirs)
    for a, b in zip(ours.axes, theirs.axes, strict=True):
        assert np.allclose(a.get_position().bounds, b.get_position().bounds)
    return theirs


def test_a_matplotlib_whose_layout_steps_take_other_arguments_gets_its_whole_algorithm(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The one pass calls matplotlib's private layout steps: where they do not take the arguments it gives
    (another matplotlib), the figure is laid out by matplotlib's own two passes, where they would put it."""

    def moved(*args: object, **kwargs: object) -> None:
        raise TypeError("make_layout_margins() got an unexpected keyword argument 'h_pad'")

    monkeypatch.setattr(charts, "_one_pass", moved)
    passes = _passes(monkeypatch)
    ours = _panels()
    _laid_out(ours)
    assert len(passes) == 2
    _as_matplotlib_lays_it_out(ours)


def test_a_figure_with_a_colorbar_gets_both_passes_and_keeps_its_label_inside(monkeypatch: pytest.MonkeyPatch) -> None:
    """One pass places a colorbar without room for its label: such a figure gets matplotlib's two passes."""
    passes = _passes(monkeypatch)
    fig = _panels(colorbar=True)
    renderer = _laid_out(fig)
    assert len(passes) == 2
    _laid_out(_panels(aspect="equal"))  # an image's axes keeps its aspect: where it lands depends on the first pass
    assert len(passes) == 4
    whole = fig.bbox
    for ax in fig.axes:
        box = ax.get_tightbbox(renderer)
        assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1 and whole.y0 - 1 <= box.y0 and box.y1 <= whole.y1 + 1


@pytest.mark.parametrize("chart", ["hist", "win_by_position"])
def test_a_legend_below_its_axes_stays_inside_the_chart(res: tables.Results, chart: str) -> None:
    """A legend anchored below its axes moves with the axes' height, which one pass measured before placing
    them: nothing of the legend, the labels or the title is cut off."""
    if chart == "hist":
        ax = charts.plot_hist(tables.hist_table(res, "turns"), "turns")
    else:
        ax = charts.plot_win_by_position(tables.win_loss_by_position(res), variant="prague")
    fig = ax.figure
    renderer = _laid_out(fig)
    whole = fig.bbox
    box = ax.get_tightbbox(renderer)
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.y1 < ax.get_window_extent(renderer).y0  # below the axes
    for b in (box, legend):
        assert whole.x0 <= b.x0 and b.x1 <= whole.x1 and whole.y0 <= b.y0 and b.y1 <= whole.y1
