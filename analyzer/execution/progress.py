"""A progress bar for long runs: cells, deals done, deals/s, time left.

Drawn with rich on a terminal (stderr); a no-op when stderr is not a TTY or
the caller asked for quiet, so logs and pipes stay clean.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text


class _RateColumn(ProgressColumn):
    """Units per second, e.g. ``84.2k deals/s``."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("-- " + self.unit + "/s" if speed is None else f"{_si(speed)} {self.unit}/s")


def _si(x: float) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.1f}{suffix}"
    return f"{x:.0f}"


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
        if self.enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.fields[units]}"), _RateColumn(unit),
                TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                console=console, transient=False,
            )
            self._task = self._progress.add_task(
                self._describe(), total=max(total_units, 1), completed=done_units,
                units=self._units(done_units, total_units))
        self.total_units = total_units
        self.done_units = done_units

    def _describe(self) -> str:
        return self.label or f"cells {self.done_cells}/{self.total_cells}"

    def _units(self, done: int, total: int) -> str:
        return f"{_si(done)}/{_si(total)} {self.unit}"

    def advance(self, units: int, cell_done: bool = False) -> None:
        self.done_units += units
        self.done_cells += int(cell_done)
        if self._progress is not None:
            self._progress.update(self._task, advance=units, description=self._describe(),
                                  units=self._units(self.done_units, self.total_units))

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
