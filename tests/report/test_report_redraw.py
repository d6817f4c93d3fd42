"""Reports draw each chart once, in one format unless asked, on every core, and not again for unchanged results.

- ``build_report`` writes one PNG per chart (the Markdown links it, the HTML embeds it); ``svg=True`` adds SVGs,
  and a later build without them deletes them (no stale image files stay in ``charts/``);
- charts drawn in forked children are byte-identical to charts drawn in one process, a chart that fails in a
  child is drawn again in the parent (its fault raised there), and one whose child died is drawn all the same;
  the children are forked once the parent has drawn the first chart (they inherit what drawing loads);
- a second build from the same stored results (a rerun, ``durak report`` twice) draws nothing; a resumed run,
  whose manifest only changes its times, rewrites the text and keeps the charts; changed results redraw.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.execution.runs import run_experiment
from analyzer.report import draw, stamp
from analyzer.report.build import build_report
from tests.execution.test_runner import EXP, SIM
from tests.stats.test_tables import MANIFEST, write_results

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: the synthetic results with one section of charts (four charts, not eighteen): what is tested is how charts are
#: drawn and kept, the same for any section
LIGHT = {**MANIFEST, "reports": ["positions"]}


def _times(paths: list[Path]) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in paths}


def test_svg_on_request_and_no_stale_images(tmp_path: Path) -> None:
    d = write_results(tmp_path / "r", LIGHT)
    both = build_report(d, svg=True, workers=1)
    svgs = [p for p in both.charts if p.suffix == ".svg"]
    assert svgs and len(svgs) * 2 == len(both.charts) and all(b"<svg" in p.read_bytes()[:2000] for p in svgs)
    (d / "charts" / "from_an_old_cell.png").write_bytes(PNG_MAGIC)  # a chart an earlier build drew
    png = build_report(d, workers=1)
    assert sorted((d / "charts").iterdir()) == sorted(png.charts) and all(p.suffix == ".png" for p in png.charts)
    assert "![" in png.markdown.read_text(encoding="utf-8") and ".svg" not in png.markdown.read_text(encoding="utf-8")


def test_forked_drawing_matches_one_process(tmp_path: Path) -> None:
    one = build_report(write_results(tmp_path / "one", LIGHT), workers=1)
    two = build_report(write_results(tmp_path / "two", LIGHT), workers=2)
    assert len(one.charts) > 2 and [p.name for p in one.charts] == [p.name for p in two.charts]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one.charts, two.charts))
    assert one.markdown.read_text(encoding="utf-8") == two.markdown.read_text(encoding="utf-8")


def _square(stem_text: str):  # noqa: ANN202 -- a function making a matplotlib Figure
    def make():  # noqa: ANN202
        from analyzer.report.charts import figure

        fig = figure(figsize=(2, 2))
        fig.add_subplot().set_title(stem_text)
        return fig
    return make


@pytest.mark.skipif(not draw.can_fork(), reason="forked drawing needs fork")
def test_a_chart_a_child_could_not_draw_is_drawn_by_the_parent(tmp_path: Path) -> None:
    parent = os.getpid()

    def only_here():  # noqa: ANN202 -- fails in any child, as a fault or a death would
        if os.getpid() != parent:
            raise RuntimeError("a child's fault")
        return _square("parent")()

    def dies():  # noqa: ANN202
        if os.getpid() != parent:
            os._exit(9)
        return _square("dies")()

    d = draw.Drawer(workers=2)
    wanted = [d.add(_square(f"c{i}"), tmp_path / f"c{i}")[0] for i in range(4)]
    wanted += [d.add(only_here, tmp_path / "only_here")[0], d.add(dies, tmp_path / "dies")[0]]
    assert d.draw() == wanted and all(p.read_bytes()[:8] == PNG_MAGIC for p in wanted)

    def broken():  # noqa: ANN202
        raise ValueError("no such column")

    bad = draw.Drawer(workers=2)
    bad.add(_square("fine"), tmp_path / "fine")
    bad.add(broken, tmp_path / "broken")
    with pytest.raises(ValueError, match="no such column"):
        bad.draw()


@pytest.mark.skipif(not draw.can_fork(), reason="forked drawing needs fork")
def test_children_are_forked_after_the_first_chart_is_drawn(tmp_path: Path) -> None:
    """What a first drawing loads (matplotlib's modules, fonts, caches) is loaded once, before the fork: a child
    starts with the first chart already made in its memory, so it does not load all that again."""
    parent, made, log = os.getpid(), [], tmp_path / "made.txt"

    def chart(i: int):  # noqa: ANN202
        def make():  # noqa: ANN202
            with log.open("a", encoding="utf-8") as f:  # who makes chart i, and which charts it had seen made
                f.write(f"{os.getpid()} {i} {sorted(made)}\n")
            made.append(i)
            if os.getpid() == parent and i:
                time.sleep(0.2)  # leave the child charts to draw
            return _square(f"c{i}")()
        return make

    d = draw.Drawer(workers=2)
    for i in range(5):
        d.add(chart(i), tmp_path / f"c{i}")
    d.draw()
    rows = [line.split(" ", 2) for line in log.read_text(encoding="utf-8").splitlines()]
    firsts: dict[str, str] = {}
    for pid, _i, seen in rows:
        firsts.setdefault(pid, seen)
    assert rows[0][:2] == [str(parent), "0"]
    children = {pid: seen for pid, seen in firsts.items() if pid != str(parent)}
    assert children and all(seen == "[0]" for seen in children.values())


def test_unchanged_results_are_not_drawn_again(tmp_path: Path) -> None:
    d = write_results(tmp_path / "r", LIGHT)
    first = build_report(d, workers=1)
    files = [first.markdown, first.html, *first.charts]
    before = _times(files)
    again = build_report(d, workers=1)
    assert again.drawn is False and again.charts == first.charts and _times(files) == before  # nothing written

    # a resumed run: the same results, the manifest's times changed -- the text again, the charts kept
    (d / "manifest.json").write_text(json.dumps({**LIGHT, "finished": "2024-01-02T09:30:00", "seconds": 9.5}))
    resumed = build_report(d, workers=1)
    assert resumed.drawn is False and _times(first.charts) == {p: before[p] for p in first.charts}
    assert "2024-01-02T09:30:00" in resumed.markdown.read_text(encoding="utf-8")

    # other results (one cell fewer): drawn again, the charts of the cell gone deleted
    shutil.rmtree(d / "results")
    write_results(d, manifest={**LIGHT, "finished": "2024-01-02T09:30:00", "seconds": 9.5}, keep_cells=[0, 1])
    changed = build_report(d, workers=1)
    assert changed.drawn is True and sorted((d / "charts").iterdir()) == sorted(changed.charts)
    assert build_report(d, workers=1, redraw=True).drawn is True  # asked to: drawn again


def test_a_change_of_report_code_draws_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = write_results(tmp_path / "r", LIGHT)
    build_report(d, workers=1)
    monkeypatch.setattr(stamp, "code_digest", lambda: "another version of the report code")
    assert build_report(d, workers=1).drawn is True


def test_durak_report_twice_says_it_is_up_to_date(tmp_path: Path) -> None:
    d = write_results(tmp_path / "r", LIGHT)
    first = CliRunner().invoke(app, ["report", str(d), "-q"])
    assert first.exit_code == 0 and "report written" in first.stdout, first.output
    second = CliRunner().invoke(app, ["report", str(d), "-q"])
    assert second.exit_code == 0 and "report up to date" in second.stdout and "--redraw" in second.stdout
    third = CliRunner().invoke(app, ["report", str(d), "-q", "--redraw", "--svg"])
    assert third.exit_code == 0 and "report written" in third.stdout and any((d / "charts").glob("*.svg"))


def test_a_resumed_run_keeps_its_charts(tmp_path: Path) -> None:
    exp = tmp_path / "t.toml"
    exp.write_text(EXP)
    out = run_experiment(exp, out=tmp_path / "o", simulator=SIM, quiet=True, jobs=1, deals=200)
    charts = sorted((out / "charts").glob("*.png"))
    results = {p: p.read_bytes() for p in sorted((out / "results").iterdir())}
    before = _times(charts)
    assert charts and (out / stamp.NAME).is_file()
    run_experiment(exp, out=tmp_path / "o", simulator=SIM, quiet=True, jobs=1, deals=200)  # every chunk resumed
    assert json.loads((out / "manifest.json").read_text())["chunks_resumed"] > 0
    assert {p: p.read_bytes() for p in sorted((out / "results").iterdir())} == results  # the same bytes
    assert _times(sorted((out / "charts").glob("*.png"))) == before  # not drawn again


@pytest.mark.skipif(not draw.can_fork(), reason="forked drawing needs fork")
def test_a_child_the_parent_stops_ends_at_once_whatever_this_process_does_on_sigterm(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent fails on a chart while its child draws: it stops the child with SIGTERM.  Under a handler that
    raises (the command line's clean stop, installed in this process), the child must not run it -- raised in
    the child's copy of the parent's stack, it would go on running the parent's code -- but end at once."""
    parent = os.getpid()
    statuses: list[int] = []
    real_wait = os.waitpid

    def waitpid(pid: int, options: int) -> tuple[int, int]:
        out = real_wait(pid, options)
        statuses.append(out[1])
        return out

    def sits_or_fails():  # noqa: ANN202 -- whichever of the two charts the child takes, it sits in it
        if os.getpid() != parent:
            time.sleep(30)
            return _square("late")()
        time.sleep(0.5)  # the child has taken the other chart and sits in it
        raise ValueError("no such column")

    def stop(signum, frame):  # noqa: ANN001,ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "waitpid", waitpid)
    old = signal.signal(signal.SIGTERM, stop)
    try:
        d = draw.Drawer(workers=2)
        d.add(_square("first"), tmp_path / "first")
        d.add(sits_or_fails, tmp_path / "one")
        d.add(sits_or_fails, tmp_path / "two")
        start = time.monotonic()
        with pytest.raises(ValueError, match="no such column"):
            d.draw()
    finally:
        signal.signal(signal.SIGTERM, old)
    assert time.monotonic() - start < 20, "the stopped child went on drawing"
    assert os.getpid() == parent
    assert statuses and all(os.WIFSIGNALED(s) and os.WTERMSIG(s) == signal.SIGTERM for s in statuses), statuses


@pytest.mark.parametrize(("load", "workers"), [(0.1, 4), (1.6, 2), (2.4, 2), (3.4, 1), (9.0, 1)])
def test_charts_are_drawn_on_the_idle_cores_only(monkeypatch: pytest.MonkeyPatch, load: float, workers: int) -> None:
    """By default one process draws per idle core (four cores, the last minute's load average rounded): on a
    busy machine a forked child would only share a core with another job."""
    monkeypatch.setattr(draw, "cores", lambda: 4)
    monkeypatch.setattr(draw.os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert draw.idle_cores() == workers
    used: list[int] = []
    d = draw.Drawer()
    monkeypatch.setattr(d, "_forked", used.append)
    monkeypatch.setattr(d, "_draw", lambda i: used.append(-1))
    monkeypatch.setattr(draw, "_prepare", lambda formats: None)
    for i in range(6):
        d.add(lambda: None, Path(f"c{i}"))  # type: ignore[arg-type, return-value]
    d.draw()
    assert used == ([workers] if workers > 1 and draw.can_fork() else [-1] * 6)
