"""A report's charts, drawn together once its text is built: in forked worker processes where cores are idle.

A builder asks for a chart with a function that makes its figure (:meth:`Drawer.add`) and gets the chart's
file paths at once, so the report's blocks are built first and the drawing, most of a report's time, comes
last (:meth:`Drawer.draw`): in this process on one core or a busy machine; on several idle cores, in children
made with ``fork`` (POSIX) once this process has drawn the first chart, so they inherit the functions and the
tables they draw and what drawing loads: nothing is pickled and nothing is imported again.
Each process takes the next chart off a shared counter (the charts differ in cost), this one too.  A chart no
process reported drawn (a child that failed or died) is drawn again here, so a fault is raised as on one core.
Every chart is drawn the same way in any process: the files are byte-identical whatever the number of workers.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from analyzer.report.charts import DEFAULT_FORMATS, FORMATS, save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_INDEX = struct.Struct("i")  # a drawn chart's index, as a child writes it to its pipe


@dataclass(frozen=True)
class Chart:
    """One chart to draw: the function that makes its figure, the file stem, the resolution of its PNG."""

    make: Callable[[], Figure]
    stem: Path
    dpi: int


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """The cores nothing else is running on, by the last minute's load average (rounded; at least 1, this
    process's own): where another job keeps a core busy, a child drawing there would only share it, paying
    its start (copied pages, caches built again) for no earlier end."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here (Windows): count every core idle
        return cores()
    return max(1, min(cores(), round(cores() - load)))


def can_fork() -> bool:
    return hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()


class Drawer:
    """The charts of one report, drawn by :meth:`draw` in ``formats`` (:data:`analyzer.report.charts.FORMATS`).

    ``workers``: processes drawing at once, this one included (None: one per idle core, :func:`idle_cores`, at
    most one per chart; 1: all in this process).
    """

    def __init__(self, formats: Sequence[str] = DEFAULT_FORMATS, workers: int | None = None) -> None:
        unknown = [f for f in formats if f not in FORMATS]
        if unknown or "png" not in formats:
            raise ValueError(f"chart formats must include png and be among {', '.join(FORMATS)}, got {formats!r}")
        self.formats = tuple(f for f in FORMATS if f in formats)
        self.workers = workers
        self.charts: list[Chart] = []

    def add(self, make: Callable[[], Figure], stem: str | Path, dpi: int = 110) -> list[Path]:
        """Ask for a chart; its paths (PNG first), which exist once :meth:`draw` has run."""
        stem = Path(stem)
        self.charts.append(Chart(make, stem, dpi))
        return [stem.with_suffix(f".{f}") for f in self.formats]

    def draw(self) -> list[Path]:
        """Draw and save every chart asked for; the paths written, in the order asked."""
        n = len(self.charts)
        workers = min(n, idle_cores() if self.workers is None else max(1, self.workers))
        if workers > 1 and can_fork():
            _prepare(self.formats)
            self._forked(workers)
        else:
            for i in range(n):
                self._draw(i)
        return [p for c in self.charts for p in (c.stem.with_suffix(f".{f}") for f in self.formats)]

    def _draw(self, i: int) -> None:
        c = self.charts[i]
        save_figure(c.make(), c.stem, c.dpi, self.formats)

    def _forked(self, workers: int) -> None:
        """Draw on ``workers`` processes: this one and ``workers - 1`` forked children."""
        # the first chart is drawn here before the fork: the children inherit what a first drawing loads
        # (matplotlib's figure and axes modules, the fonts of each size, its caches), which each would load again
        self._draw(0)
        counter = multiprocessing.get_context("fork").Value("i", 1)
        children: list[tuple[int, int]] = []
        done: set[int] = {0}
        gc.freeze()  # the inherited objects stay out of the children's collections: fewer pages copied
        try:
            for _ in range(workers - 1):
                read, write = os.pipe()
                pid = _fork()
                if pid == 0:  # the child: draw until the counter runs out, report each chart, never return
                    os.close(read)
                    _child(self, counter, write)
                os.close(write)
                children.append((pid, read))
            for i in _take(counter, len(self.charts)):
                self._draw(i)
                done.add(i)
            for pid, read in children:
                done |= _drawn(read)
                os.waitpid(pid, 0)
            children.clear()
        finally:
            gc.unfreeze()
            for pid, read in children:  # stopped (Ctrl-C, a fault here): the children stop too
                os.close(read)
                try:
                    os.kill(pid, signal.SIGTERM)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
        for i in range(len(self.charts)):
            if i not in done:  # a child failed on it (or died): draw it here, where its fault is raised
                self._draw(i)


def _fork() -> int:
    """``os.fork``, the child stopped by SIGTERM at once, whatever handler this process has for it.

    This process may hold a SIGTERM handler that raises (the command line's clean stop): a child stopped by the
    parent (which it is when the parent fails on a chart) would raise in its copy of the parent's stack and go
    on running the parent's code -- in a test, the test runner's -- if the signal came before the child entered
    :func:`_child`.  SIGTERM is held back across the fork, and the child takes the default action first."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pid


def _take(counter: Any, n: int) -> Iterator[int]:
    """The next chart index nobody has taken, until there are none."""
    while True:
        with counter.get_lock():
            i = counter.value
            counter.value = i + 1
        if i >= n:
            return
        yield i


def _child(drawer: Drawer, counter: Any, write: int) -> NoReturn:
    """A forked child's whole life: draw charts off the counter, write each one's index, exit without cleanup
    (the parent's atexit handlers and open streams are the parent's)."""
    code = 0
    try:
        for i in _take(counter, len(drawer.charts)):
            drawer._draw(i)
            os.write(write, _INDEX.pack(i))
    except BaseException:  # noqa: BLE001 -- the parent draws what is left and raises the fault itself
        code = 1
    finally:
        os._exit(code)


def _drawn(read: int) -> set[int]:
    """The indices a child wrote to its pipe (read to its end)."""
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    return {i for (i,) in _INDEX.iter_unpack(data[: len(data) - len(data) % _INDEX.size])}


def _prepare(formats: Sequence[str]) -> None:
    """Load once, before the fork, what every child would load for itself: the backends and the default font."""
    import matplotlib.backends.backend_agg  # noqa: F401
    from matplotlib.font_manager import FontProperties, findfont, get_font

    if "svg" in formats:
        import matplotlib.backends.backend_svg  # noqa: F401

    get_font(findfont(FontProperties()))
