"""What a simulation yields, and the sufficient statistics a chunk of it is stored as.

Per deal (:class:`DealResults`) and per match (:class:`MatchResults`) the
simulator returns arrays with a leading deal axis, columns in *position* order
(position 0 = the first player to act after the deal, G2).  A chunk is stored
on disk only as sums (:func:`summarize`), so ten million deals cost kilobytes,
and chunks add up by plain summation in any order: that is what makes results
independent of ``--jobs`` and of the order chunks finish in.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd
from numpy.typing import NDArray

END_OUT, END_BLOCKED, END_CAPPED = 0, 1, 2
END_NAMES = ("out", "blocked", "capped")

#: Histogram bins: turns per deal 0..TURN_BINS-1 (the last bin holds the rest),
#: penalty points per hand 0..POINT_BINS-1 (likewise).
TURN_BINS = 400
POINT_BINS = 200


@dataclass
class DealResults:
    """Per-deal outcome arrays (N deals, P positions)."""

    points: NDArray[np.int16]  # (N, P) points of each hand at the end (after doubling)
    went_out: NDArray[np.int8]  # (N,) position that shed its last card, -1 if none
    winner: NDArray[np.int8]  # (N,) deal winner (went out, or fewest points if blocked); -1 capped
    loser: NDArray[np.int8]  # (N,) deal loser (PR7 in prague, else most points); -1 capped
    loser_by_wild: NDArray[np.bool_]  # (N,) the wild rule, not the points, picked the loser
    wild_held: NDArray[np.bool_]  # (N, P) held a wild at the end
    end: NDArray[np.int8]  # (N,) END_OUT / END_BLOCKED / END_CAPPED
    turns: NDArray[np.int32]  # (N,) turns played (G10a)
    last_card: NDArray[np.int8]  # (N,) card that ended the deal, -1 if none
    turnovers: NDArray[np.int16]  # (N,) times the pile was turned into the talon (G8)

    def __len__(self) -> int:
        return int(self.went_out.shape[0])

    @staticmethod
    def concat(parts: list["DealResults"]) -> "DealResults":
        return DealResults(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                              for f in fields(DealResults)})

    def row(self, i: int) -> dict[str, object]:
        return {f.name: getattr(self, f.name)[i].tolist() for f in fields(DealResults)}


@dataclass
class MatchResults:
    """Per-match outcome arrays (N matches, P positions; position 0 leads deal 1)."""

    totals: NDArray[np.int32]  # (N, P) points at the end of the match
    win_share: NDArray[np.float32]  # (N, P) share of the win (ties share, CZ7)
    loss_share: NDArray[np.float32]  # (N, P) share of the loss
    loser_by_wild: NDArray[np.bool_]  # (N,) the wild rule (CZ7/PR7) picked the loser
    wild_held: NDArray[np.bool_]  # (N, P) held a wild at the end of the last deal
    deals: NDArray[np.int32]  # (N,) deals played
    capped_deals: NDArray[np.int32]  # (N,) deals of the match stopped by the turn cap

    def __len__(self) -> int:
        return int(self.deals.shape[0])

    @staticmethod
    def concat(parts: list["MatchResults"]) -> "MatchResults":
        return MatchResults(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                               for f in fields(MatchResults)})


#: Columns of the per-position summary table (one row per position of a chunk or cell).
POSITION_COLUMNS = (
    "position", "strategy", "n", "wins", "losses", "losses_by_wild", "wild_held",
    "went_out", "points_sum", "points_sq",
)
#: Columns of the per-chunk totals (one row per chunk or cell).
TOTAL_COLUMNS = ("n", "blocked", "capped", "turns_sum", "turns_sq", "turnovers_sum", "deals_sum",
                 "wild_any", "wild_hands", "wild_points_sum")


def summarize(res: DealResults | MatchResults, strategies: list[str]) -> dict[str, pd.DataFrame]:
    """Sufficient statistics of a chunk: ``positions``, ``totals`` and ``hist`` tables.

    ``positions``: one row per position with counts and sums (POSITION_COLUMNS);
    wins/losses are float because match ties share.  ``totals``: one row.
    ``hist``: columns kind ('turns' | 'points' | 'deals'), bin, count.
    """
    n = len(res)
    p = len(strategies)
    if isinstance(res, DealResults):
        pts = res.points.astype(np.int64)
        wins = np.bincount(res.winner[res.winner >= 0], minlength=p).astype(float)
        losses = np.bincount(res.loser[res.loser >= 0], minlength=p).astype(float)
        lbw = np.bincount(res.loser[(res.loser >= 0) & res.loser_by_wild], minlength=p)
        went = np.bincount(res.went_out[res.went_out >= 0], minlength=p)
        wild = res.wild_held.sum(axis=0)
        turns = res.turns.astype(np.int64)
        totals = {
            "n": n, "blocked": int((res.end == END_BLOCKED).sum()),
            "capped": int((res.end == END_CAPPED).sum()),
            "turns_sum": int(turns.sum()), "turns_sq": int((turns ** 2).sum()),
            "turnovers_sum": int(res.turnovers.sum()), "deals_sum": n,
        }
        hists = [("turns", np.bincount(np.minimum(turns, TURN_BINS - 1), minlength=TURN_BINS)),
                 ("points", np.bincount(np.minimum(pts.ravel(), POINT_BINS - 1), minlength=POINT_BINS))]
    else:
        pts = res.totals.astype(np.int64)
        wins = res.win_share.sum(axis=0, dtype=np.float64)
        losses = res.loss_share.sum(axis=0, dtype=np.float64)
        lbw = (res.loss_share * res.loser_by_wild[:, None]).sum(axis=0)
        went = np.zeros(p, dtype=np.int64)
        wild = res.wild_held.sum(axis=0)
        d = res.deals.astype(np.int64)
        totals = {"n": n, "blocked": 0, "capped": int(res.capped_deals.sum()), "turns_sum": 0,
                  "turns_sq": 0, "turnovers_sum": 0, "deals_sum": int(d.sum())}
        hists = [("deals", np.bincount(np.minimum(d, TURN_BINS - 1), minlength=TURN_BINS))]
    # the wild-holding penalty exactly, not only per position: deals with any wild left,
    # and the points of the hands that held one (totals at the end of a match)
    totals["wild_any"] = int(res.wild_held.any(axis=1).sum())
    totals["wild_hands"] = int(res.wild_held.sum())
    totals["wild_points_sum"] = int((pts * res.wild_held).sum())
    positions = pd.DataFrame({
        "position": np.arange(p), "strategy": list(strategies), "n": n,
        "wins": wins, "losses": losses, "losses_by_wild": np.asarray(lbw, dtype=float),
        "wild_held": wild.astype(np.int64), "went_out": went.astype(np.int64),
        "points_sum": pts.sum(axis=0), "points_sq": (pts ** 2).sum(axis=0),
    })
    hist = pd.concat([pd.DataFrame({"kind": k, "bin": np.arange(len(h)), "count": h.astype(np.int64)})
                      for k, h in hists], ignore_index=True)
    return {"positions": positions, "totals": pd.DataFrame([totals]), "hist": hist}
