"""What a run raises: a one-line fault naming the culprit, and where fault files go (every engine alike)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class SimulationError(RuntimeError):
    """A strategy fault or a broken invariant; the message names the culprit."""


class StrategyFault(SimulationError):
    """A strategy raised or returned an illegal move at slot ``row``.

    The simulator fills in the deal (``job``), its line-up by seat and its deck,
    so that the deal can be written as a scenario file that replays to the fault.
    """

    def __init__(self, message: str, row: int) -> None:
        super().__init__(message)
        self.row = row
        self.job = -1
        self.seat_strategies: list[object] = []
        self.deck: list[int] = []
        self.stream_key: int | None = None  # the deal's random stream (core.streams), if the rules use one


def fault_dir() -> Path:
    """Where fault scenarios go: $DURAK_FAULT_DIR, else ./faults."""
    return Path(os.environ.get("DURAK_FAULT_DIR", "faults"))


@dataclass(frozen=True)
class FaultContext:
    """Where one simulator call sits in a larger run, so that its faults are named uniquely.

    The executor passes it: ``cell`` and ``chunk`` indices, the cell's label
    (``durak run``), and ``first``, the global index of the call's first deal
    (or match) -- e.g. ``chunk * chunk_size``.  Messages and fault files then
    name the global deal number with cell and chunk, for any ``--jobs``.
    """

    cell_label: str = ""
    cell: int | None = None
    chunk: int | None = None
    first: int = 0

    def describe(self) -> str:
        """' (cell 2 "czech 4p", chunk 5)' or '' when nothing is known."""
        parts = []
        if self.cell is not None:
            parts.append(f"cell {self.cell}" + (f" {self.cell_label!r}" if self.cell_label else ""))
        elif self.cell_label:
            parts.append(f"cell {self.cell_label!r}")
        if self.chunk is not None:
            parts.append(f"chunk {self.chunk}")
        return f" ({', '.join(parts)})" if parts else ""

    def file_part(self) -> str:
        """'cell2-chunk5-' for fault file names ('' when nothing is known)."""
        return "".join(f"{k}{v}-" for k, v in (("cell", self.cell), ("chunk", self.chunk)) if v is not None)
