"""The numbers of a rule-balance exploration, from per-deck outcomes of every rule set.

Every arm (rule set) plays the same decks (chunk ``c`` of a deck size is the
same shuffle for every arm: common random numbers), each deck at two kinds of
table (:mod:`analyzer.execution.runs.balance`): the *fair table*, the strong
player in every seat, and the *skill tables*, the strong player in seat ``s``
against ``players - 1`` copies of an opponent, for every seat ``s``.  Per deck
the run keeps a few small integers (:data:`RAW`); from them:

* ``fairness``: seat fairness at the fair table, the largest deviation of any
  seat's win or дурак share from the fair share ``1 / players``, with the seat
  and outcome that attain it (:mod:`analyzer.stats.fairness`, its interval
  honest about taking the largest of several);
* ``fpa``: the first mover's advantage (the position that plays the deal's
  first card, :func:`analyzer.core.rules.first_mover_position`), its win at
  the fair table minus the fair share of a decided deal (a capped deal, G10,
  has no winner and counts 0);
* ``skill{j}``: the skill gap against opponent ``j``, the strong player's win
  share over its seats minus the fair share (the seat effect cancels over the
  seats);
* ``turns`` (deal length, G10a), ``jack`` (the Jack rule, CZ7/PR7, not the
  points, picked the дурак: :func:`analyzer.stats.sums.deal_losses`),
  ``capped`` and ``blocked`` (G10), all at the fair table;
* for the finalists' report card (:data:`CARD`): ``trace``, a search player at a
  small budget in each seat against the strong player (the next level of the
  skill trace), and the share of decisions with a real choice.

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
from analyzer.stats import fairness as fair
from analyzer.stats import intervals as stats

FloatArray = NDArray[np.float64]
#: Per-deck integers a chunk returns for every arm (plus ``hero{j}``, ``herodec{j}`` per opponent ``j``): the fair
#: table's winner and дурак positions (-1: none), whether the deal was decided, capped, blocked, lost by the Jack
#: rule, and its turns.
RAW = ("winner", "durak", "decided", "capped", "blocked", "jack", "turns")
#: Per-deck integers of the finalists' report card: the trace player's wins over its seats and the deals it
#: decided, and (on the readable engine, the fair table) the decisions with a real choice and all decisions.
CARD = ("trace", "tracedec", "choices", "decisions")
#: How a rule set's fairness is ranked (``--fairness``): every seat and both outcomes, or the first mover's win.
FAIRNESS_KINDS = ("every-seat", "first-mover")
#: Per-deck quantities of :func:`per_deck`, besides ``skill{j}``.
MEANS = ("fpa", "turns")
SHARES = ("jack", "capped", "blocked")
#: An option's value where it does not act (seven_chain with sevens off): in no main effect's either side.
NOT_APPLICABLE = "n/a"


def raw_columns(opponents: int) -> tuple[str, ...]:
    """Every per-deck column a chunk returns, for ``opponents`` skill tables."""
    return (*RAW, *(f"{c}{j}" for j in range(opponents) for c in ("hero", "herodec")))


def per_deck(cols: Mapping[str, NDArray[Any]], players: int, opponents: int, first: int) -> dict[str, FloatArray]:
    """The per-deck quantities (module doc) from the raw columns of one arm (or a matrix of arms); ``first`` is
    the first mover's position."""
    f = {k: np.asarray(v, np.float64) for k, v in cols.items()}
    out = {"fpa": (f["winner"] == first) - f["decided"] / players, "turns": f["turns"], "jack": f["jack"],
           "capped": f["capped"], "blocked": f["blocked"], "decided": f["decided"]}
    for j in range(opponents):
        out[f"skill{j}"] = (f[f"hero{j}"] - f[f"herodec{j}"] / players) / players
    return out


def summary(cols: Mapping[str, NDArray[Any]], players: int, opponents: int, first: int, exact: bool = True
            ) -> dict[str, Any]:
    """One arm's estimates: ``{m}``, ``{m}_lo``, ``{m}_hi`` for every quantity, the seat fairness
    (``fairness``, its interval, ``fairness_seat``, ``fairness_outcome``, ``fairness_hw``: the widest seat
    deviation's half-width), every seat's ``seat{k}_win``/``seat{k}_durak`` with intervals, ``turns_sd`` and
    ``decks``.  ``exact=False``: the seat fairness's interval with Šidák's value (the search's thousands of rule
    sets; :func:`analyzer.stats.fairness.from_decks`)."""
    d = per_deck(cols, players, opponents, first)
    n = len(d["fpa"])
    out: dict[str, Any] = {"decks": float(n)}
    for m in (*MEANS, *(f"skill{j}" for j in range(opponents))):
        x = d[m]
        e = stats.mean_from_sums(x.sum(), (x * x).sum(), n)
        out[m], out[f"{m}_lo"], out[f"{m}_hi"] = float(e.est), float(e.lo), float(e.hi)
    out["turns_sd"] = float(np.std(d["turns"], ddof=1)) if n > 1 else float("nan")
    for m in SHARES:
        base = d["decided"].sum() if m == "jack" else n
        r = stats.wilson(d[m].sum(), base)
        out[m], out[f"{m}_lo"], out[f"{m}_hi"] = float(r.rate), float(r.lo), float(r.hi)
    f = fair.from_decks(cols["winner"], cols["durak"], players, exact=exact)
    out.update(f.summary())
    out["fairness_hw"] = stats.Z95 * fair.nanmax(f.se) if n > 1 else float("nan")
    for k, seat in enumerate(f.seats()):
        out.update({f"seat{k}_{key}": v for key, v in seat.items()})
    return out


def card(cols: Mapping[str, NDArray[Any]], players: int) -> dict[str, float]:
    """The report card's extra numbers (:data:`CARD`): ``trace`` (the trace player's win share over its seats
    minus the fair share, normal interval over decks) and ``choice`` (the share of decisions with a real choice,
    Wilson)."""
    f = {k: np.asarray(v, np.float64) for k, v in cols.items()}
    x = (f["trace"] - f["tracedec"] / players) / players
    e = stats.mean_from_sums(x.sum(), (x * x).sum(), x.size)
    r = stats.wilson(f["choices"].sum(), f["decisions"].sum())
    return {"trace": float(e.est), "trace_lo": float(e.lo), "trace_hi": float(e.hi), "trace_decks": float(x.size),
            "choice": float(r.rate), "choice_lo": float(r.lo), "choice_hi": float(r.hi)}


def cost(s: Mapping[str, Any], kind: str) -> float:
    """What the search minimises for a rule set's unfairness: the seat fairness, or |first mover's advantage|."""
    return float(s["fairness"]) if kind == "every-seat" else abs(float(s["fpa"]))


def half_widths(s: Mapping[str, float]) -> tuple[float, float, float]:
    """The 95 % half-widths of a :func:`summary`'s widest seat deviation, first mover's advantage and first
    skill gap: a finalist is measured until all three are within the target."""
    return s["fairness_hw"], (s["fpa_hi"] - s["fpa_lo"]) / 2, (s["skill0_hi"] - s["skill0_lo"]) / 2


def decks_needed(cols: Mapping[str, NDArray[Any]], players: int, first: int, target: float) -> int:
    """Decks that bring the widest of :func:`half_widths` to ``target``, from the spread seen so far: the next
    stopping point of the sequential measurement."""
    d = per_deck(cols, players, 1, first)
    f = fair.from_decks(cols["winner"], cols["durak"], players, exact=False)
    seat_var = fair.nanmax(f.se) ** 2 * len(d["fpa"]) if len(d["fpa"]) > 1 else 0.0
    seat_var = seat_var if np.isfinite(seat_var) else 0.0
    var = max(float(np.var(d["fpa"], ddof=1)), float(np.var(d["skill0"], ddof=1)), seat_var, 1e-9)
    return int(np.ceil(var * (stats.Z95 / target) ** 2))


def pareto_ranks(cost: ArrayLike, gain: ArrayLike) -> NDArray[np.int64]:
    """Non-dominated sorting of (cost to minimise, gain to maximise): 0 for the Pareto front, 1 for the front
    once it is removed, and so on.  A point is dominated by one at most as costly and at least as good, and
    strictly better in one of the two; equal points share a rank."""
    c, g = np.asarray(cost, np.float64), np.asarray(gain, np.float64)
    rank = np.full(len(c), -1, np.int64)
    left = np.lexsort((-g, c))  # by cost, then the better gain first
    r = 0
    while len(left):
        cl, gl = c[left], g[left]
        best = np.maximum.accumulate(np.concatenate([[-np.inf], gl[:-1]]))  # the best gain of every cheaper point
        # the cheapest point with each gain (the first in this order): a point whose gain an earlier point had
        # at a lower cost is dominated; one with the same cost and gain is its equal
        _, first, which = np.unique(gl, return_index=True, return_inverse=True)
        tie_beaten = (best == gl) & (cl[first][which] < cl)
        front = (gl >= best) & ~tie_beaten
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


def same_play(fin: pd.DataFrame) -> pd.Series:
    """Finalists whose fair table had the reference rules' winner and дурак on every deck both played: an option
    that changes nothing the seats get (an option that changes only the дурак does change seat fairness)."""
    if "final_same_outcomes" not in fin:  # results stored before the дурак was compared: the winners alone
        return (fin[["vs_ref_fpa", "vs_ref_fpa_lo", "vs_ref_fpa_hi"]] == 0).all(axis=1) & ~fin["reference"]
    return fin["final_same_outcomes"].astype(bool) & ~fin["reference"]


def eligible(fin: pd.DataFrame, capped_alarm: float) -> pd.DataFrame:
    """Finalists that may be recommended: capped share not above the alarm (a deal cut off by the turn cap, G10,
    has no winner; its whole interval above the alarm rules the set out)."""
    return fin[fin["final_capped_lo"] <= capped_alarm]


def recommend(fin: pd.DataFrame, capped_alarm: float) -> list[tuple[str, Any]]:
    """(why, row label) of the recommended finalists, picked on their selection decks' ``final_*`` numbers: the
    fairest (least ``final_cost``); the most skilful; the fairest that keeps the reference rules' skill (its
    paired skill difference does not exclude 0 from above); the fairest single change.  Each rule set once,
    every reason with it.  Their reported numbers must come from other decks (the winner's curse)."""
    fin = eligible(fin, capped_alarm)
    if fin.empty:
        return []
    picks: list[tuple[str, Any]] = [("the fairest", fin["final_cost"].idxmin()),
                                    ("the most skilful", fin["final_skill0"].idxmax())]
    keeps = fin[fin["vs_ref_skill0_hi"] >= 0]
    if not keeps.empty:
        picks.append(("the fairest that keeps the reference rules' skill", keeps["final_cost"].idxmin()))
    single = fin[(fin["changes"] == 1) & ~same_play(fin)]
    if not single.empty:
        picks.append(("the fairest single change", single["final_cost"].idxmin()))
    out: dict[Any, list[str]] = {}
    for why, i in picks:
        out.setdefault(i, []).append(why)
    return [(" and ".join(whys), i) for i, whys in out.items()]

