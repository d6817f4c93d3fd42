"""The numpy simulator's side of the strategy calls: which slots ask which strategy, and their views.

The calls themselves and the answer checks are every engine's (analyzer.core.calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import popcount
from analyzer.core.calls import StrategyCalls
from analyzer.core.contract import BatchView
from analyzer.core.faults import StrategyFault
from analyzer.sim.state import LEAD, SEVEN, SlotState


class SimCalls(SlotState, StrategyCalls):
    """Asking the strategies: one call per distinct strategy object per step."""


    strats: list[object]
    fast: list[bool]
    strat_group: NDArray[np.int64]
    one_strategy: bool
    view_rules: list[Any]  # by position: each strategy's own copy of the rules
    rng: np.random.Generator
    public: Any  # the public record (analyzer.core.public.PublicRecord) or None

    if TYPE_CHECKING:  # provided by analyzer.sim.history.PublicRecorder
        def _history_view(self, rr, cur, hand) -> Any: ...

    def _ask(self, rows, ask, act, suit, legal, can_draw, can_take, view_hand) -> None:
        """Call each seat's strategy on the slots where it must choose, and check the answers."""
        where_all = np.nonzero(ask)[0]
        ar = rows[where_all]
        # one call per distinct strategy object, however many seats it plays
        if self.one_strategy:
            groups = [(0, ar, where_all)]
        else:
            sidx = self.strat_group[self._strategy_index(ar)]
            groups = [(int(k), ar[m], where_all[m]) for k in np.unique(sidx) for m in [sidx == k]]
        for k, rr, where in groups:
            view = self._view(k, rr, where, legal, can_draw, can_take, view_hand)
            strat = self.strats[k]
            try:
                a, s = self._call(strat, self.fast[k], view, rr)
                # the check reads the simulator's own legal masks, not the (copied) view's
                self._check_answers(strat, a, s, rr, legal[where], can_draw[where], can_take[where])
            except StrategyFault as fault:
                fault.job = int(self.job[fault.row])
                fault.seat_strategies = [self.strats[int(p)] for p in self._seat_player(np.array([fault.row]))[0]]
                fault.deck = self.slot_deck[fault.row].tolist()
                fault.stream_key = int(self.skey[fault.row]) if self.random_options else None
                raise
            act[where] = a
            suit[where] = s

    def _view(self, k, rr, where, legal, can_draw, can_take, view_hand) -> BatchView:
        """The BatchView of slots ``rr`` for strategy ``k``; what few strategies read is computed only when read."""
        ph = self.phase[rr]
        cur = self.cur[rr]

        def hand_sizes():
            seats = self.offsets[cur]
            return popcount(self.hands[rr[:, None], seats]).astype(np.int16)

        def scores():
            players = self._seat_player(rr)
            return self.totals[rr[:, None], players[np.arange(len(rr))[:, None], self.offsets[cur]]]

        # every array is a fresh copy (fancy indexing), made read-only by the view
        return BatchView(
            rules=self.view_rules[k], seat=cur, hand=view_hand[where], legal=legal[where],
            can_draw=can_draw[where], can_take=can_take[where],
            top=np.where(ph == LEAD, -1, self.top[rr]).astype(np.int8),
            active_suit=self.active[rr],
            pending_seven=np.where(ph == SEVEN, self.pend7[rr], 0).astype(np.int16),
            hand_sizes=hand_sizes, talon_size=lambda: self.tcount[rr], played=lambda: self.played[rr],
            scores=scores if self.matches else None,
            history=None if self.public is None else self._history_view(rr, cur, view_hand[where]))

    def _strategy_index(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        return (self.dealer[rows].astype(np.int64) + self.cur[rows]) % self.n

