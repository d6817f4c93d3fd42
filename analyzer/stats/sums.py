"""The sufficient statistics a chunk of results is stored as.

A chunk is stored on disk only as sums (:func:`summarize`), so ten million
deals cost kilobytes, and chunks add up by plain summation in any order: that
is what makes results independent of ``--jobs`` and of the order chunks
finish in.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, POINT_BINS, TURN_BINS, DealResults, MatchResults

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
