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

from analyzer.core.bits import popcount
from analyzer.core.contract import BatchHistory
from analyzer.core.public import PublicRecord, batch_history, reads_history
from analyzer.engine.faults import token
from analyzer.sim.state import LEAD, SlotState


class MoveRecorder(SlotState):
    """Per-job move lists for the jobs in ``trace_jobs``."""

    strats: list[object]
    public: PublicRecord | None

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
        """A new deal starts in ``rows``: traced jobs start an empty history (and the public record its rows)."""
        if self.public is not None:
            self._public_start(rows)  # type: ignore[attr-defined]
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


class PublicRecorder(SlotState):
    """The public history of every deal (:class:`analyzer.core.public.PublicRecord`), kept only when
    some strategy of the line-up reads it (``uses_history = True``); otherwise ``public`` is None and
    every hook of the step code is skipped by one test."""

    public: PublicRecord | None

    def _init_public(self, strategies: list[object]) -> None:
        self.public = PublicRecord(self.r, self.b) if reads_history(strategies) else None
        self.last_new = np.zeros(0, bool)  # where the last _draw_one opened an unknown slot

    def _public_start(self, rows: NDArray[np.int64]) -> None:
        """New deals: every hand unknown to the others, the turned-up card seen (CZ3/PR2)."""
        assert self.public is not None
        self.public.start(rows, popcount(self.hands[rows]).astype(np.int16), self.played[rows])

    def _history_view(self, rr: NDArray[np.int64], cur: NDArray[np.int8], hand: NDArray[np.uint64]) -> BatchHistory:
        """The :class:`BatchHistory` of the decision slots ``rr`` (players ``cur`` holding ``hand``):
        the record's (core.public.batch_history, shared with the rules engine), the pile and a
        talon of known order (G8) read off the ring."""
        assert self.public is not None
        d = self.d
        rows2 = rr[:, None]

        def ordered(start: NDArray[np.int64], count: NDArray[np.int64]) -> NDArray[np.int8]:
            pos = (start[:, None] + np.arange(d)) % d
            return np.where(np.arange(d)[None, :] < count[:, None], self.ring[rows2, pos], -1).astype(np.int8)

        def talon() -> NDArray[np.int8]:
            known = (self.turnovers[rr] > 0) & (self.r.reshuffle == "turn_over")
            t = ordered(self.head[rr].astype(np.int64), self.tcount[rr].astype(np.int64))
            return np.where(known[:, None], t, -1).astype(np.int8)

        return batch_history(
            self.public, rr, cur, hand,
            pile=lambda: ordered(self.head[rr].astype(np.int64) + self.tcount[rr], self.pcount[rr].astype(np.int64)),
            pile_size=lambda: self.pcount[rr], talon=talon)
