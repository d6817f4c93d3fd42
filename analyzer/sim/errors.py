"""What the simulator raises: a one-line fault naming the culprit, and where fault files go."""

from __future__ import annotations

import os
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


def fault_dir() -> Path:
    """Where fault scenarios go: $DURAK_FAULT_DIR, else ./faults."""
    return Path(os.environ.get("DURAK_FAULT_DIR", "faults"))
