"""The numbers of a rule-balance exploration (issue 28), from per-deck outcomes of every rule set.

Every arm (rule set) plays the same decks (chunk ``c`` of a deck size is the
same shuffle for every arm: common random numbers), each deck at two kinds of
table (:mod:`analyzer.execution.balance_run`): the *fair table*, the strong
player in every seat, and the *skill tables*, the strong player in seat ``s``
against ``players - 1`` copies of an opponent, for every seat ``s``.  Per deck
the run keeps a few small integers (:data:`RAW`); from them:

* ``fpa``: the first player's advantage, seat 0's win at the fair table minus
  the fair share ``1 / players`` of a decided deal (a capped deal, G10, has no
  winner and counts 0);
* ``skill{j}``: the skill gap against opponent ``j``, the strong player's win
  share over its seats minus the fair share (the seat effect cancels over the
  seats);
* ``turns`` (deal length, G10a), ``jack`` (the Jack rule, CZ7/PR7, not the
  points, picked the дурак: :func:`analyzer.stats.sums.deal_losses`),
  ``capped`` and ``blocked`` (G10), all at the fair table.

Means carry normal intervals (per-deck values, ``n`` decks); shares Wilson
intervals.  Two arms are compared on the decks both played (a paired
difference), and an option's *main effect* is, deck by deck, the mean over
the arms with one value minus the mean over the arms with the reference
value, averaged over decks (the first round, where every arm played the same
decks), so its interval is a paired one too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from analyzer.core.rules import format_value
from analyzer.stats import intervals as stats

FloatArray = NDArray[np.float64]
#: Per-deck integers a chunk returns for every arm (plus ``hero{j}``, ``herodec{j}`` per opponent ``j``).
RAW = ("win0", "decided", "capped", "blocked", "jack", "turns")
#: Per-deck quantities of :func:`per_deck`, besides ``skill{j}``.
MEANS = ("fpa", "turns")
SHARES = ("jack", "capped", "blocked")
#: An option's value where it does not act (seven_chain with sevens off): in no main effect's either side.
NOT_APPLICABLE = "n/a"


def raw_columns(opponents: int) -> tuple[str, ...]:
    """Every per-deck column a chunk returns, for ``opponents`` skill tables."""
    return (*RAW, *(f"{c}{j}" for j in range(opponents) for c in ("hero", "herodec")))


def per_deck(cols: Mapping[str, NDArray[Any]], players: int, opponents: int) -> dict[str, FloatArray]:
    """The per-deck quantities (module doc) from the raw columns of one arm (or a matrix of arms)."""
    f = {k: np.asarray(v, np.float64) for k, v in cols.items()}
    out = {"fpa": f["win0"] - f["decided"] / players, "turns": f["turns"], "jack": f["jack"],
           "capped": f["capped"], "blocked": f["blocked"], "decided": f["decided"]}
    for j in range(opponents):
        out[f"skill{j}"] = (f[f"hero{j}"] - f[f"herodec{j}"] / players) / players
    return out


def summary(cols: Mapping[str, NDArray[Any]], players: int, opponents: int) -> dict[str, float]:
    """One arm's estimates: ``{m}``, ``{m}_lo``, ``{m}_hi`` for every quantity, and ``decks``."""
    d = per_deck(cols, players, opponents)
    n = len(d["fpa"])
    out: dict[str, float] = {"decks": float(n)}
    for m in (*MEANS, *(f"skill{j}" for j in range(opponents))):
        x = d[m]
        e = stats.mean_from_sums(x.sum(), (x * x).sum(), n)
        out[m], out[f"{m}_lo"], out[f"{m}_hi"] = float(e.est), float(e.lo), float(e.hi)
    for m in SHARES:
        base = d["decided"].sum() if m == "jack" else n
        r = stats.wilson(d[m].sum(), base)
        out[m], out[f"{m}_lo"], out[f"{m}_hi"] = float(r.rate), float(r.lo), float(r.hi)
    return out


def half_widths(s: Mapping[str, float]) -> tuple[float, float]:
    """The 95 % half-widths of the first player's advantage and the first skill gap of a :func:`summary`."""
    return (s["fpa_hi"] - s["fpa_lo"]) / 2, (s["skill0_hi"] - s["skill0_lo"]) / 2


def decks_needed(cols: Mapping[str, NDArray[Any]], players: int, target: float) -> int:
    """Decks that bring the wider of the two half-widths (:func:`half_widths`) to ``target``, from the spread
    seen so far: the next stopping point of the sequential measurement."""
    d = per_deck(cols, players, 1)
    var = max(float(np.var(d["fpa"], ddof=1)), float(np.var(d["skill0"], ddof=1)), 1e-9)
    return int(np.ceil(var * (stats.Z95 / target) ** 2))


def unfairness(fpa: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """|first player's advantage| with its interval: [0, max] when the interval holds 0."""
    f, a, b = (np.asarray(x, np.float64) for x in (fpa, lo, hi))
    low = np.where((a <= 0) & (b >= 0), 0.0, np.minimum(np.abs(a), np.abs(b)))
    return np.abs(f), low, np.maximum(np.abs(a), np.abs(b))



def pareto_ranks(cost: ArrayLike, gain: ArrayLike) -> NDArray[np.int64]:
    """Non-dominated sorting of (cost to minimise, gain to maximise): 0 for the Pareto front, 1 for the front
    once it is removed, and so on.  A point is dominated by one at most as costly and at least as good, and
    strictly better in one of the two."""
    c, g = np.asarray(cost, np.float64), np.asarray(gain, np.float64)
    rank = np.full(len(c), -1, np.int64)
    order = np.lexsort((-g, c))  # by cost, then the better gain first
    r = 0
    left = order
    while len(left):
        best = np.maximum.accumulate(np.concatenate([[-np.inf], g[left][:-1]]))
        front = g[left] > best
        # an equal cost with an equal gain is not dominated either
        same = np.concatenate([[False], (c[left][1:] == c[left][:-1]) & (g[left][1:] == g[left][:-1])])
        front |= same & np.concatenate([[False], front[:-1]])
        rank[left[front]] = r
        left = left[~front]
        r += 1
    return rank


def keep_order(cost: ArrayLike, gain: ArrayLike) -> NDArray[np.int64]:
    """Indices from best to worst: by Pareto rank, then the lower cost, then the higher gain, then index."""
    c, g = np.asarray(cost, np.float64), np.asarray(gain, np.float64)
    return np.lexsort((np.arange(len(c)), -g, c, pareto_ranks(c, g)))


def paired(x: NDArray[Any], ref: NDArray[Any]) -> stats.Estimate:
    """Mean of ``x - ref`` over the decks both played (the first ``min`` decks: the same chunks)."""
    n = min(len(x), len(ref))
    return stats.paired_difference(np.asarray(x[:n], np.float64), np.asarray(ref[:n], np.float64))


def main_effects(matrices: Mapping[str, NDArray[np.floating[Any]]], values: pd.DataFrame, reference: Mapping[str, Any]
                 ) -> pd.DataFrame:
    """Every explored option's main effect on every quantity, against the reference value of the option.

    ``matrices``: quantity -> (arms, decks) per-deck values of the first round (every arm the same decks);
    ``values``: one row per arm (same order), one column per explored option.  For each option and each
    value other than the reference's (and :data:`NOT_APPLICABLE`): deck by deck the mean over the arms with that value minus the mean
    over the arms with the reference value, then the mean over decks with a normal interval over decks.
    Holm over the rows of each quantity; ``distinguishable`` by the one verdict rule.
    """
    rows = []
    for opt in values.columns:
        col = values[opt].map(format_value).to_numpy()
        base = format_value(reference[opt])
        on_base = col == base
        for v in dict.fromkeys(col):
            if v in (base, NOT_APPLICABLE) or not on_base.any():
                continue
            on_v = col == v
            row: dict[str, Any] = {"option": opt, "value": v, "reference": base, "arms": int(on_v.sum()),
                                   "arms_reference": int(on_base.sum())}
            for m, y in matrices.items():
                z = y[on_v].mean(axis=0) - y[on_base].mean(axis=0)
                e = stats.mean_from_sums(z.sum(), (z * z).sum(), z.size)
                row.update({m: float(e.est), f"{m}_lo": float(e.lo), f"{m}_hi": float(e.hi),
                            f"{m}_p": float(stats.z_test_p(e.est, e.se))})
            row["decks"] = int(next(iter(matrices.values())).shape[1])
            rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    for m in matrices:
        out[f"{m}_p_holm"] = stats.holm(out[f"{m}_p"].to_numpy())
        out[f"{m}_distinguishable"] = stats.agreed_distinguishable(out[f"{m}_lo"], out[f"{m}_hi"],
                                                                   out[f"{m}_p_holm"])
    return out
