"""The sufficient statistics a chunk of results is stored as.

A chunk is stored on disk only as sums (:func:`summarize`), so ten million
deals cost kilobytes, and chunks add up by plain summation in any order: that
is what makes results independent of ``--jobs`` and of the order chunks
finish in.

Two strategies seated in the same deals are compared on *paired* per-deal
differences (:mod:`analyzer.stats.paired`), whose variance needs the products
of two seats' outcomes in the same deal: per position ``p`` the columns
``wins_x{q}``, ``losses_x{q}``, ``points_x{q}`` hold the sum over deals (or
matches) of ``x_p * x_q`` for every position ``q < MAX_SEATS`` (0 for seats
the cell does not have).  The wild-hand points compare like with like: hands
other than the winner's (``rest_*``; a match counts each hand by its share of
not winning), with and without a wild (G8/CZ7/PR7/SV6).

"Lost by the wild rule" has one definition for deals and matches: a seat's
``losses_by_wild`` adds its share of each loss whose game has
``loser_by_wild`` set (the wild rule, not the points, picked the loser).  A
deal is counted like a match: if its results carry a ``loss_share`` (a points
tie for the дурак shared, as :func:`analyzer.engine.match.match_outcome`
shares it), the shares are used; results with a single ``loser`` per deal
(the engine breaks such a tie by seat order today) count that seat whole.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, POINT_BINS, TURN_BINS, DealResults, MatchResults

#: Seats the cross-product columns cover (czech seats up to 8, RULES.md player counts).
MAX_SEATS = 8
#: Outcomes whose same-deal products are stored, with their per-position sum column.
CROSS_METRICS = {"wins": "wins", "losses": "losses", "points": "points_sum"}
#: Cross-product columns: ``{metric}_x{q}`` = sum over games of (this seat's x) * (seat q's x).
CROSS_COLUMNS = tuple(f"{m}_x{q}" for m in CROSS_METRICS for q in range(MAX_SEATS))
#: Columns of the per-position summary table (one row per position of a chunk or cell).
POSITION_COLUMNS = (
    "position", "strategy", "n", "wins", "losses", "losses_by_wild", "wild_held",
    "went_out", "points_sum", "points_sq", *CROSS_COLUMNS,
)
#: Columns of the per-chunk totals (one row per chunk or cell).
TOTAL_COLUMNS = ("n", "blocked", "capped", "turns_sum", "turns_sq", "turnovers_sum", "deals_sum",
                 "wild_any", "wild_hands", "wild_points_sum",
                 "rest_hands", "rest_points_sum", "wild_rest_hands", "wild_rest_points_sum")


def cross_sums(x: np.ndarray) -> np.ndarray:
    """``(P, MAX_SEATS)`` sums over games of ``x[:, p] * x[:, q]`` (zero-padded past P seats)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros((x.shape[1], MAX_SEATS))
    out[:, :x.shape[1]] = x.T @ x
    return out


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
        totals: dict[str, float] = {
            "n": n, "blocked": int((res.end == END_BLOCKED).sum()),
            "capped": int((res.end == END_CAPPED).sum()),
            "turns_sum": int(turns.sum()), "turns_sq": int((turns ** 2).sum()),
            "turnovers_sum": int(res.turnovers.sum()), "deals_sum": n,
        }
        hists = [("turns", np.bincount(np.minimum(turns, TURN_BINS - 1), minlength=TURN_BINS)),
                 ("points", np.bincount(np.minimum(pts.ravel(), POINT_BINS - 1), minlength=POINT_BINS))]
        seats = np.arange(p)
        win_x = (res.winner[:, None] == seats).astype(np.float64)
        loss_x = (res.loser[:, None] == seats).astype(np.float64)
        shared = getattr(res, "loss_share", None)
        if shared is not None:  # a deal's points tie for the дурак shared as in a match (CZ7), when reported
            loss_x = np.asarray(shared, dtype=np.float64)
            losses = loss_x.sum(axis=0)
            lbw = (loss_x * res.loser_by_wild[:, None]).sum(axis=0)
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
        win_x = res.win_share.astype(np.float64)
        loss_x = res.loss_share.astype(np.float64)
    # the wild-holding penalty exactly, not only per position: deals with any wild left,
    # and the points of the hands that held one (totals at the end of a match)
    totals["wild_any"] = int(res.wild_held.any(axis=1).sum())
    totals["wild_hands"] = int(res.wild_held.sum())
    totals["wild_points_sum"] = int((pts * res.wild_held).sum())
    # like with like: the hands other than the winner's (whose hand is empty when it went out)
    rest = 1.0 - win_x
    totals["rest_hands"] = float(rest.sum())
    totals["rest_points_sum"] = float((rest * pts).sum())
    totals["wild_rest_hands"] = float((rest * res.wild_held).sum())
    totals["wild_rest_points_sum"] = float((rest * res.wild_held * pts).sum())
    cross = {m: cross_sums(x) for m, x in (("wins", win_x), ("losses", loss_x), ("points", pts))}
    positions = pd.DataFrame({
        "position": np.arange(p), "strategy": list(strategies), "n": n,
        "wins": wins, "losses": losses, "losses_by_wild": np.asarray(lbw, dtype=float),
        "wild_held": wild.astype(np.int64), "went_out": went.astype(np.int64),
        "points_sum": pts.sum(axis=0), "points_sq": (pts ** 2).sum(axis=0),
        **{f"{m}_x{q}": cross[m][:, q] for m in CROSS_METRICS for q in range(MAX_SEATS)},
    })
    hist = pd.concat([pd.DataFrame({"kind": k, "bin": np.arange(len(h)), "count": h.astype(np.int64)})
                      for k, h in hists], ignore_index=True)
    return {"positions": positions, "totals": pd.DataFrame([totals]), "hist": hist}
