"""Strategies that share deals, compared on paired differences from the stored sums.

Two strategies seated in the same deal are not independent samples: in a
2-player deal one's loss is the other's win, and in a 4-player deal two
keepers and two dumpers share one loser.  Treating their seat-deals as
independent (two-proportion interval) makes the interval too narrow by about
√2 in 2-player cells and about 1.15x in 4-player cells.  Here the difference
of the two strategies' rates is written as a sum over games of one number per
game,

    z = X_A / M_A − X_B / M_B,

where ``X_A`` is the sum of the outcome over the seats strategy A holds in
that game and ``M_A`` its seat-games over the whole group, so
``Σ z = rate_A − rate_B`` exactly (the same estimate as before) and the
variance is the sum over cells of ``n_c`` times the sample variance of ``z``
within the cell.  ``Σ z²`` needs the same-game products of two seats'
outcomes, which the results store per position (``{metric}_x{q}``,
:mod:`analyzer.stats.sums`).  Results written before they were stored fall
back on what holds without them: at most one winner and one loser per deal,
so two seats' win (loss) indicators never multiply to 1 (exact for deals,
conservative for matches with shared ties); points then get no interval.
Cells holding only one of the two strategies enter with ``X_B = 0``, so a
group mixing shared and separate cells is handled by the same formula.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analyzer.stats import intervals as stats
from analyzer.stats.sums import CROSS_METRICS, MAX_SEATS

#: Cell columns that make a comparable group (variant, players, unit, rules).
GROUP = ["variant", "players", "unit", "rules"]
#: Per-pair columns of :func:`strategy_pairs`.
PAIR_COLUMNS = GROUP + ["a", "b", "n_a", "n_b", "rate_a", "rate_b", "diff", "se", "lo", "hi", "p", "p_holm",
                        "distinguishable", "shared_cells"]


def _cross(pos: pd.DataFrame, metric: str) -> np.ndarray | None:
    """``(P, P)`` same-game products of one cell's seats, or None if not stored (points before format 2)."""
    cols = [f"{metric}_x{q}" for q in range(MAX_SEATS)]
    p = len(pos)
    if set(cols) <= set(pos.columns):
        return pos[cols].to_numpy(dtype=np.float64)[:, :p]
    if metric == "points":
        return None
    return np.diag(pos[CROSS_METRICS[metric]].to_numpy(dtype=np.float64))  # exclusive outcomes: x_p x_q = 0


def _pair(cells: list[tuple[float, pd.DataFrame]], a: str, b: str, metric: str,
          ka: float = 1.0, kb: float = 1.0) -> dict[str, Any]:
    """Estimate, standard error and seat-game counts of ``ka rate_a − kb rate_b`` over the given cells.

    ``ka = 1/rate_a, kb = 1/rate_b`` gives the delta-method standard error of
    ``log(rate_a / rate_b)`` for the same shared games.
    """
    col = CROSS_METRICS[metric]
    seats = [g["strategy"].to_numpy() for _, g in cells]  # compared as arrays: a pandas comparison per seat is slow
    m_a = sum(n * int((s == a).sum()) for (n, _), s in zip(cells, seats))
    m_b = sum(n * int((s == b).sum()) for (n, _), s in zip(cells, seats))
    est, var, shared = 0.0, 0.0, 0
    for (n, g), s_ in zip(cells, seats):
        wa = ka * (s_ == a) / m_a
        wb = kb * (s_ == b) / m_b
        w = wa - wb  # z = w · x for the game's outcome vector x
        if not w.any():
            continue
        shared += int(wa.any() and wb.any())
        s = float(w @ g[col].to_numpy(dtype=np.float64))
        est += s
        cross = _cross(g, metric)
        if cross is None:
            var = np.nan
            continue
        if n > 1:
            ss = float(w @ cross @ w)
            var += max(ss - s * s / n, 0.0) * n / (n - 1)
    return {"n_a": float(m_a), "n_b": float(m_b), "diff": est, "se": float(np.sqrt(var)), "shared_cells": shared}


def group_cells(res: Any) -> dict[tuple[Any, ...], list[tuple[float, pd.DataFrame]]]:
    """Per group (GROUP values), its cells as ``(games, positions sorted by seat)``."""
    pos = res.positions.merge(res.cells[["cell", *GROUP]], on="cell")
    return {key: [(float(g["n"].iloc[0]), g.sort_values("position")) for _, g in grp.groupby("cell", sort=True)]
            for key, grp in pos.groupby(GROUP, sort=True, dropna=False)}


def paired_diff(cells: list[tuple[float, pd.DataFrame]], a: str, b: str, metric: str) -> stats.Estimate:
    """rate_a − rate_b (mean for points) over the cells, with its paired interval."""
    r = _pair(cells, a, b, metric)
    d, se = r["diff"], r["se"]
    return stats.Estimate(*(np.asarray(v, dtype=np.float64) for v in
                            (d, se, d - stats.Z95 * se, d + stats.Z95 * se, r["n_a"])))


def paired_log_ratio_se(cells: list[tuple[float, pd.DataFrame]], a: str, b: str, metric: str,
                        rate_a: float, rate_b: float) -> float:
    """Standard error of log(rate_a / rate_b) for strategies sharing games (NaN if a rate is 0)."""
    if not (rate_a > 0 and rate_b > 0):
        return float("nan")
    return float(_pair(cells, a, b, metric, 1.0 / rate_a, 1.0 / rate_b)["se"])


def strategy_pairs(res: Any, metric: str = "wins") -> pd.DataFrame:
    """Every pair of strategies within each group of cells: the paired difference of a seat rate (or mean).

    ``metric``: ``wins``, ``losses`` (rates per seat-game) or ``points`` (mean
    points per seat-game).  ``a`` < ``b`` by name; ``diff = rate_a − rate_b``
    with a normal interval from the paired variance, the z-test ``p`` and
    ``p_holm`` over all rows of the table; ``distinguishable`` is the one
    verdict rule (:func:`analyzer.stats.intervals.agreed_distinguishable`).
    """
    pos = res.positions.merge(res.cells[["cell", *GROUP]], on="cell")
    rows = []
    for key, cells in group_cells(res).items():
        names = sorted({s for _, g in cells for s in g["strategy"]})
        for a, b in combinations(names, 2):
            r = _pair(cells, a, b, metric)
            rows.append({**dict(zip(GROUP, key)), "a": a, "b": b, **r})
    out = pd.DataFrame(rows, columns=[c for c in PAIR_COLUMNS if c not in
                                      ("rate_a", "rate_b", "lo", "hi", "p", "p_holm", "distinguishable")])
    if out.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    rates = (pos.groupby([*GROUP, "strategy"], dropna=False)[["n", CROSS_METRICS[metric]]].sum()
             .reset_index())
    rates["rate"] = rates[CROSS_METRICS[metric]] / rates["n"]
    look = rates.set_index([*GROUP, "strategy"])["rate"]
    out["rate_a"] = [look[(*k, a)] for k, a in zip(out[GROUP].itertuples(index=False), out["a"])]
    out["rate_b"] = [look[(*k, b)] for k, b in zip(out[GROUP].itertuples(index=False), out["b"])]
    out["lo"] = out["diff"] - stats.Z95 * out["se"]
    out["hi"] = out["diff"] + stats.Z95 * out["se"]
    out["p"] = stats.z_test_p(out["diff"].to_numpy(), out["se"].to_numpy())
    out["p_holm"] = stats.holm(out["p"].to_numpy())
    out["distinguishable"] = stats.agreed_distinguishable(out["lo"], out["hi"], out["p_holm"])
    return out[PAIR_COLUMNS]


#: The per-deck quantities of two rule sets side by side, with what each is (rules_differences).
RULES_QUANTITIES = {"win": "win rate", "loss": "дурак rate", "turns": "deal length (turns)",
                    "jack": "Jack's share (deals the wild rule decided)"}


def rules_differences(a: dict[str, np.ndarray], b: dict[str, np.ndarray], players: int) -> pd.DataFrame:
    """Two rule sets played on the same decks by the same players: each quantity's level under A and under B
    and the paired difference A − B per deck, all with 95% intervals.

    ``a`` and ``b`` hold one value per deck: ``win{p}`` and ``loss{p}`` (shares of seat ``p``), ``turns`` and
    ``jack``.  Rates get Wilson intervals, the mean length a normal one; the difference is the mean of the
    per-deck differences (common decks and random streams cancel the deck-to-deck noise both share).
    """
    rows = []
    keys: list[tuple[str, str, int | None]] = [(f"win{p}", "win", p) for p in range(players)]
    keys += [(f"loss{p}", "loss", p) for p in range(players)]
    keys += [("turns", "turns", None), ("jack", "jack", None)]
    for key, quantity, seat in keys:
        x, y = np.asarray(a[key], np.float64), np.asarray(b[key], np.float64)
        n = len(x)
        levels = []
        for v in (x, y):
            if quantity == "turns":
                m = stats.mean_from_sums(v.sum(), (v * v).sum(), n)
                levels += [float(m.est), float(m.lo), float(m.hi)]
            else:
                r = stats.wilson(v.sum(), n)
                levels += [float(r.rate), float(r.lo), float(r.hi)]
        d = stats.paired_difference(x, y)
        rows.append({"quantity": quantity, "seat": seat, **dict(zip(("a", "a_lo", "a_hi", "b", "b_lo", "b_hi"), levels)),
                     "diff": float(d.est), "lo": float(d.lo), "hi": float(d.hi), "n": n})
    out = pd.DataFrame(rows)
    out["seat"] = pd.Series([r["seat"] for r in rows], dtype=object)  # None for the deal's quantities, not NaN
    return out
