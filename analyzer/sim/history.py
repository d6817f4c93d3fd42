"""Move histories of chosen deals, as replay tokens (fault scenarios, determinism and engine checks).

Recording costs nothing unless some deal is traced: the step code asks
``self.recording`` first.  A traced deal's history holds one token per decision
of the player to act, forced ones included -- exactly the tokens ``durak replay``
plays (a prague Jack lead's named suit goes to the starter instead, PR2).  In a
match only the current deal is kept.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.engine.faults import token
from analyzer.sim.state import LEAD, SlotState


class MoveRecorder(SlotState):
    """Per-job move lists for the jobs in ``trace_jobs``."""

    strats: list[object]

    def _init_recorder(self, trace_jobs: set[int] | None) -> None:
        self.trace_jobs = set(trace_jobs or ())
        self.recording = bool(self.trace_jobs)
        self.traced = np.zeros(self.b, bool)
        #: job -> the tokens of its (current) deal, and the suit named for a Jack lead
        self.histories: dict[int, list[str]] = {}
        self.lead_suits: dict[int, int | None] = {}
        #: job -> the strategy object that made each move, and the step of the run it was made in
        self.actors: dict[int, list[object | None]] = {}
        self.move_steps: dict[int, list[int]] = {}
        self.step_no = 0

    def _dealt(self, rows: NDArray[np.int64]) -> None:
        """A new deal starts in ``rows``: traced jobs start an empty history."""
        if not self.recording:
            return
        jobs = self.job[rows]
        hit = np.fromiter((int(j) in self.trace_jobs for j in jobs), bool, len(rows))
        self.traced[rows] = hit
        for j in jobs[hit].tolist():
            self.histories[j] = []
            self.lead_suits[j] = None
            self.actors[j] = []
            self.move_steps[j] = []

    def _record(self, rows, act, suit, ph) -> None:
        """Append the traced slots' decisions as replay tokens."""
        at = np.nonzero(self.traced[rows])[0]
        for i in at.tolist():
            j = int(self.job[rows[i]])
            s = int(suit[i])
            if ph[i] == LEAD:
                self.lead_suits[j] = s
            else:
                self.histories[j].append(token(int(act[i]), None if s < 0 else s))
                row = int(rows[i])
                self.actors[j].append(self.strats[(int(self.dealer[row]) + int(self.cur[row])) % self.n])
                self.move_steps[j].append(self.step_no)
