"""Progress of long runs: cells, deals done, deals/s, time left.

On a terminal (stderr) a rich bar.  Elsewhere (a log file, ``nohup``, a pipe,
a CI job) a plain line on stderr every :data:`LINE_SECONDS` seconds, so a run
that takes minutes never looks hung; a run shorter than that says nothing.
``quiet`` silences both.  stdout is never touched (``--json`` stays clean).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:  # the bar's module is imported only where a bar is drawn (a terminal): a tenth of a second
    from rich.progress import Progress


def _bar(unit: str, console: Console) -> Progress:
    """The rich bar: description, bar, units, rate, elapsed, time left."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Units per second, e.g. ``84.2k deals/s``."""

        def render(self, task: Any) -> Text:
            speed = task.speed
            return Text("-- " + unit + "/s" if speed is None else f"{_si(speed)} {unit}/s")

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[units]}"),
                    RateColumn(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                    console=console, transient=False)


def _si(x: float) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.1f}{suffix}"
    return f"{x:.0f}"


#: seconds between two plain progress lines when stderr is not a terminal ($DURAK_PROGRESS_SECONDS overrides)
LINE_SECONDS = 10.0


def _line_seconds() -> float:
    """The interval of plain lines: $DURAK_PROGRESS_SECONDS if it is a positive number, else :data:`LINE_SECONDS`."""
    try:
        value = float(os.environ.get("DURAK_PROGRESS_SECONDS", ""))
    except ValueError:
        return LINE_SECONDS
    return value if value > 0 else LINE_SECONDS


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class _Lines:
    """A daemon thread writing one plain progress line to stderr every ``interval`` seconds."""

    def __init__(self, owner: RunProgress, interval: float) -> None:
        self.owner, self.interval = owner, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="durak-progress", daemon=True)
        self.t0 = time.monotonic()
        self.start_units = owner.done_units

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.start_units = self.owner.done_units
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=1)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                print(self.line(), file=sys.stderr, flush=True)
            except (OSError, ValueError):  # stderr closed under us: nobody to tell
                return

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.t0, 1e-9)
        return self.owner.line(elapsed, (self.owner.done_units - self.start_units) / elapsed)


class RunProgress:
    """Context manager; ``advance(units, cell_done)`` after every finished chunk."""

    def __init__(self, *, total_units: int, total_cells: int, done_units: int = 0,
                 done_cells: int = 0, unit: str = "deals", enabled: bool = True, label: str | None = None) -> None:
        console = Console(stderr=True)
        self.enabled = enabled and console.is_terminal
        self.total_cells = total_cells
        self.done_cells = done_cells
        self.unit = unit
        self.label = label  # a fixed description (simulate, compare, bench) instead of "cells i/n"
        self._progress: Progress | None = None
        self.total_units = total_units
        self.done_units = done_units
        self._stepping = False
        self._lines = _Lines(self, _line_seconds()) if enabled and not console.is_terminal else None
        if self.enabled:
            self._progress = _bar(unit, console)
            self._task = self._progress.add_task(
                self._describe(), total=max(total_units, 1), completed=done_units,
                units=self._units(done_units, total_units))

    def _describe(self) -> str:
        return self.label or f"cells {self.done_cells}/{self.total_cells}"

    def line(self, elapsed: float, rate: float) -> str:
        """``durak: simulate: 120k/1.0M deals (12%), 9.8k deals/s, 12 s so far, ~1 min 30 s left``."""
        pct = 100 * self.done_units / max(self.total_units, 1)
        left = (f"~{_duration((self.total_units - self.done_units) / rate)} left" if rate > 0
                else "time left not known yet")
        return (f"durak: {self._describe()}: {_si(self.done_units)}/{_si(self.total_units)} {self.unit} ({pct:.0f}%), "
                f"{_si(rate)} {self.unit}/s, {_duration(elapsed)} so far, {left}")

    def _units(self, done: int, total: int) -> str:
        return f"{_si(done)}/{_si(total)} {self.unit}"

    def advance(self, units: int, cell_done: bool = False, *, resumed: bool = False) -> None:
        """``units`` more done; ``resumed``: found stored, not played now, so not counted in the rate (a resumed
        run's time left is the rest at the speed of what it plays)."""
        self.done_units += units
        self.done_cells += int(cell_done)
        if resumed and self._lines is not None:
            self._lines.start_units += units
        if self._progress is not None:
            described, counted = self._describe(), self._units(self.done_units, self.total_units)
            if resumed:  # rich's rate is over the bar's samples: start them again from here
                self._progress.reset(self._task, total=max(self.total_units, 1), completed=self.done_units,
                                     description=described, units=counted)
            else:
                self._progress.update(self._task, advance=units, description=described, units=counted)

    def step(self, total: int) -> None:
        """One step of a job whose size is known only once it starts: the first call sets the total (steps to
        do), each later one counts a step done (a report's sections, say)."""
        if not self._stepping:
            self._stepping = True
            self.total_units = total
            if self._progress is not None:
                self._progress.update(self._task, total=max(total, 1))
            return
        self.advance(1)

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        if self._lines is not None:
            self._lines.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
        if self._lines is not None:
            self._lines.stop()
