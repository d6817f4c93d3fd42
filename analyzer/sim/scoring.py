"""End of deal: scores (G9/G10/CZ6/PR6/PR7/SV6), match bookkeeping (G11) and the result arrays."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import RANK_OF, mask_points, popcount
from analyzer.core.outcomes import END_CAPPED, END_OUT
from analyzer.engine.match import MAX_DEALS, match_outcome
from analyzer.sim.state import DONE, IDLE, SlotState


def alloc_results(n: int, p: int, matches: bool) -> dict[str, np.ndarray]:
    """The output arrays of ``n`` deals (or matches) of ``p`` players (outcomes.DealResults' fields)."""
    z = np.zeros
    if matches:
        return {"totals": z((n, p), np.int32), "win_share": z((n, p), np.float32),
                "loss_share": z((n, p), np.float32), "loser_by_wild": z(n, bool),
                "wild_held": z((n, p), bool), "deals": z(n, np.int32), "capped_deals": z(n, np.int32),
                "wilds_dealt": z((n, p), np.int8), "cards_left": z((n, p), np.int8)}
    return {"points": z((n, p), np.int16), "went_out": z(n, np.int8), "winner": z(n, np.int8),
            "loser": z(n, np.int8), "loser_by_wild": z(n, bool), "wild_held": z((n, p), bool),
            "end": z(n, np.int8), "turns": z(n, np.int32), "last_card": z(n, np.int8),
            "turnovers": z(n, np.int16), "wilds_dealt": z((n, p), np.int8), "cards_left": z((n, p), np.int8)}


class Scoring(SlotState):
    """Scoring finished deals and collecting them by player id (deals) or into their match."""

    out: dict[str, np.ndarray]
    pending_redeal: list[NDArray[np.int64]]

    def _end(self, rows: NDArray[np.int64], end: int) -> None:
        """The deals of ``rows`` are over (``end``: out, blocked, capped).

        Deals are scored later, all that ended since the last refill in one
        call (scoring a few hundred rows costs mostly fixed overhead); a match
        scores at once, since its next deal must be dealt.
        """
        self.end[rows] = end
        self.phase[rows] = DONE
        if self.matches:
            self._score(rows)

    def _score(self, rows: NDArray[np.int64]) -> None:
        """G9/G10/PR7: score finished deals and hand them to the deal (or match) collector."""
        if not len(rows):
            return
        r, t, n = self.r, self.t, self.n
        hands = self.hands[rows]
        end = self.end[rows]
        pts = mask_points(hands, t.points_table)
        if r.lone_wild_points is not None:
            lone = (popcount(hands) == 1) & ((hands & t.wild_mask) != 0)
            pts = np.where(lone, r.lone_wild_points, pts)
        if r.jack_finish_doubles:
            lc = self.last_card[rows]
            dbl = (lc >= 0) & (RANK_OF[np.maximum(lc, 0)] == r.wild_rank)
            pts = np.where(dbl[:, None], 2 * pts, pts)
        holders = (hands & t.wild_mask) != 0
        went = np.where(end == END_OUT, self.last_actor[rows], -1).astype(np.int8)
        order = (np.arange(n)[None, :] - self.last_actor[rows, None].astype(np.int64) - 1) % n
        seat_idx = np.arange(n)[None, :]
        key_max = pts.astype(np.int64) * 16 + (15 - order)
        key_min = pts.astype(np.int64) * 16 + order
        # G10: a blocked deal is won by the fewest points, picked before the loser
        best = np.where(went >= 0, -1, key_min.argmin(axis=1))
        excluded = (seat_idx == went[:, None]) | (seat_idx == best[:, None])
        loser = np.where(excluded, -1, key_max).argmax(axis=1)
        by_wild = np.zeros(len(rows), bool)
        if r.wild_rule == "deal":  # PR7
            any_h = holders.any(axis=1)
            wl = np.where(holders, key_max, -1).argmax(axis=1)
            by_wild = any_h & (wl != loser)
            loser = np.where(any_h, wl, loser)
        next_best = np.where(seat_idx == loser[:, None], 1 << 40, key_min).argmin(axis=1)
        winner = np.where(went >= 0, went, np.where(best != loser, best, next_best))
        capped = end == END_CAPPED
        winner = np.where(capped, -1, winner)
        loser = np.where(capped, -1, loser)
        by_wild &= ~capped
        self.phase[rows] = IDLE
        self._collect(rows, end, pts, went, winner, loser, by_wild, holders, popcount(hands).astype(np.int8))

    def _collect(self, rows, end, pts, went, winner, loser, by_wild, holders, left) -> None:
        """Store a finished deal by player id (deal mode) or fold it into its match."""
        seat_player = self._seat_player(rows)
        ar = np.arange(len(rows))[:, None]
        by_player = np.zeros_like(pts)
        by_player[ar, seat_player] = pts
        wild_p = np.zeros_like(holders)
        wild_p[ar, seat_player] = holders
        dealt_p = np.zeros((len(rows), self.n), np.int8)
        dealt_p[ar, seat_player] = self.wilds_dealt[rows]
        left_p = np.zeros((len(rows), self.n), np.int8)
        left_p[ar, seat_player] = left

        def to_player(seat):
            seat = np.asarray(seat)
            return np.where(seat >= 0, seat_player[np.arange(len(rows)), np.maximum(seat, 0)], -1)

        if not self.matches:
            j = self.job[rows]
            o = self.out
            o["points"][j] = by_player
            o["went_out"][j] = to_player(went)
            o["winner"][j] = to_player(winner)
            o["loser"][j] = to_player(loser)
            o["loser_by_wild"][j] = by_wild
            o["wild_held"][j] = wild_p
            o["end"][j] = end
            o["turns"][j] = self.turns[rows]
            o["last_card"][j] = self.last_card[rows]
            o["turnovers"][j] = self.turnovers[rows]
            o["wilds_dealt"][j] = dealt_p
            o["cards_left"][j] = left_p
            self.job[rows] = -1
            return
        self.totals[rows] += by_player
        self.deals_done[rows] += 1
        self.capped_deals[rows] += end == END_CAPPED
        over = (self.totals[rows].max(axis=1) >= self.r.target) | (self.deals_done[rows] >= MAX_DEALS)
        fin = rows[over]
        if len(fin):
            win, loss, bw = match_outcome(self.r, self.totals[fin], wild_p[over])
            j = self.job[fin]
            o = self.out
            o["totals"][j] = self.totals[fin]
            o["win_share"][j] = win
            o["loss_share"][j] = loss
            o["loser_by_wild"][j] = bw
            o["wild_held"][j] = wild_p[over]
            o["deals"][j] = self.deals_done[fin]
            o["capped_deals"][j] = self.capped_deals[fin]
            o["wilds_dealt"][j] = dealt_p[over]
            o["cards_left"][j] = left_p[over]
            self.job[fin] = -1
        cont = rows[~over]
        if len(cont):
            w = to_player(winner)[~over]
            if self.r.variant == "svinya":  # SV2: the deal's winner leads the next
                nd = np.where(w >= 0, (w - 1) % self.n, (self.dealer[cont] + 1) % self.n)
            else:  # CZ2: the deal passes to the left
                nd = (self.dealer[cont] + 1) % self.n
            self.dealer[cont] = nd
            self.pending_redeal.append(cont)
