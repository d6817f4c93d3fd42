"""The vectorized batch simulator: many deals (or matches) in lock-step with numpy.

It plays exactly the game of :mod:`analyzer.engine.deal` (tests hold the two equal
deal by deal and move by move) but over arrays with a leading *slot* axis
(:mod:`analyzer.sim.state`).  A fixed number of slots run at once; a slot whose
deal (or match) ends is refilled at once with the next one, so the batch never
runs a long tail of nearly empty steps.

Every iteration of :meth:`BatchSim.run` runs the BEGIN slots, then every
decision slot once (:mod:`analyzer.sim.step`): legal masks and forced moves for
all of them, one strategy call per strategy object (:mod:`analyzer.sim.calls`),
then draws, plays and turn changes, each as one array operation over the slots
concerned.  Finished deals are scored together when their slots are refilled
(:mod:`analyzer.sim.scoring`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import shuffled_decks
from analyzer.core.contract import BatchStrategy
from analyzer.core.faults import FaultContext, SimulationError
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet, private_copy
from analyzer.engine.match import first_dealer
from analyzer.sim.calls import SimCalls
from analyzer.sim.history import MoveRecorder, PublicRecorder
from analyzer.sim.scoring import Scoring, alloc_results
from analyzer.sim.state import BEGIN, DONE, LEAD, PLAY, SlotState
from analyzer.sim.step import PlaySteps


class BatchSim(Scoring, SimCalls, MoveRecorder, PublicRecorder, PlaySteps):
    """Slots of deals or matches under one rule set, driven by :meth:`run`."""

    def __init__(self, rules: RuleSet, strategies: Sequence[object], *, slots: int,
                 rng: np.random.Generator, matches: bool = False, check: bool = False,
                 deck_rng: np.random.Generator | None = None, trace_jobs: set[int] | None = None,
                 where: FaultContext | None = None, stream_base: int = 0) -> None:
        SlotState.__init__(self, rules, slots, matches, stream_base)
        self.strats = list(strategies)
        #: each position's strategy gets its own copy of the rules: nothing it does to it reaches the game
        #: or another strategy
        self.view_rules = [private_copy(rules) for _ in self.strats]
        self.fast = [bool(isinstance(s, BatchStrategy) and hasattr(s, "choose_batch")) for s in self.strats]
        first = {id(s): i for i, s in reversed(list(enumerate(self.strats)))}
        self.strat_group = np.array([first[id(s)] for s in self.strats], np.int64)
        self.one_strategy = len(first) == 1
        self.rng = rng
        #: decks come from their own stream, so deal j's deck depends on the seed and j alone
        #: (not on the strategies' draws): the same seed deals the same cards to any line-up
        self.deck_rng = deck_rng if deck_rng is not None else rng
        self.check = check
        self.where = where or FaultContext()
        self._init_recorder(trace_jobs)
        self._init_public(self.strats)  # the public history, only for line-ups that read it

    def run(self, n_jobs: int, decks: NDArray[np.int8] | None) -> DealResults | MatchResults:
        """Play ``n_jobs`` deals (or matches) and return their results in job order.

        ``decks``: (N, D) deck orders for deals, (N, K, D) for matches (deal k of
        match i uses ``decks[i, k]``); None draws seeded shuffles.
        """
        self.out = alloc_results(n_jobs, self.n, self.matches)
        self.pending_redeal = []
        next_job = 0
        while True:
            self.step_no += 1
            done = np.nonzero(self.phase == DONE)[0]
            n_free = int(np.count_nonzero(self.job < 0)) + len(done)
            # refill in batches: dealing a few slots every step costs more than it gains
            if n_free and next_job < n_jobs and (n_free * 16 >= self.b or n_free == self.b):
                self._score(done)
                free = np.nonzero(self.job < 0)[0]
                take = free[: n_jobs - next_job]
                self.job[take] = np.arange(next_job, next_job + len(take))
                next_job += len(take)
                self.dealer[take] = first_dealer(self.n)
                self.totals[take] = 0
                self.deals_done[take] = 0
                self.capped_deals[take] = 0
                self.deal_k[take] = 0
                self._deal(take, self._decks_for(take, decks))
            if self.pending_redeal:
                rows = np.concatenate(self.pending_redeal)
                self.pending_redeal = []
                self.deal_k[rows] += 1
                self._deal(rows, self._decks_for(rows, decks))
            begin = np.nonzero(self.phase == BEGIN)[0]
            while len(begin):  # lost turns pass at once to the next player's turn
                self._begin(begin)
                begin = begin[self.phase[begin] == BEGIN]
            dec = np.nonzero((self.phase >= PLAY) & (self.phase <= LEAD))[0]
            if len(dec):
                self._decide(dec)
            if self.check:
                self._check_invariants()
            if next_job >= n_jobs and not self.pending_redeal:
                self._score(np.nonzero(self.phase == DONE)[0])
                if not (self.job >= 0).any():
                    break
        return (MatchResults if self.matches else DealResults)(**self.out)

    def _decks_for(self, rows: NDArray[np.int64], decks: NDArray[np.int8] | None) -> NDArray[np.int8]:
        """The deck orders of the deals starting in ``rows``: given, or the next seeded shuffles."""
        if decks is None:
            return shuffled_decks(self.r.deck_size, len(rows), self.deck_rng)
        if self.matches:
            k = self.deal_k[rows]
            if (k >= decks.shape[1]).any():
                raise SimulationError(f"given decks hold {decks.shape[1]} deals per match; a match needs more")
            return decks[self.job[rows], k]
        return decks[self.job[rows]]

    def _unit_at(self, row: int) -> str:
        """'deal 1012 (cell 2, chunk 1)': the global number of the slot's deal (or match), where it ran."""
        unit = "match" if self.matches else "deal"
        return f"{unit} {self.where.first + int(self.job[row])}{self.where.describe()}"
