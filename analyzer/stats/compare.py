"""Duplicate-deal comparison of strategies: the work behind ``durak compare``.

Design: :mod:`analyzer.stats.design` (every strategy sits every position once per deck).

The per-deck score of a strategy is the mean over its ``N`` (rotation, seat)
places of: win (1/0; matches: the win share, ties share, CZ7), loss (likewise)
and points (matches: the match total).  A pair is compared by the mean over
decks of the per-deck difference of scores (:func:`analyzer.stats.intervals.paired_difference`),
which is where the common luck cancels.  The same random strategies get the
same seed in every rotation of a deck (common random numbers), so a strategy
compared with itself differs by exactly 0 on every deck.

Verdicts use the 95% interval of the paired difference *and* the Holm
correction over all pairs: a pair is "A better than B" only if the interval
excludes 0 and the Holm-adjusted p-value is below 0.05; otherwise it is "not
distinguishable" (a winner is never named when the interval contains 0).

Interval narrowing: the half-width of the paired interval is set against the
half-width an independent-deals design with the same number of games would
give, i.e. two independent proportions each measured on ``D x N`` seat-games
(:func:`analyzer.stats.intervals.diff_proportions`); their ratio (``ratio``) is how many
times the duplicate design narrows the interval.  A second ratio
(``ratio_fresh_decks``) compares with the same line-ups played on a fresh deck
per game, estimated from the same games (the variance without the covariances
the shared deck brings); it differs from the first where two strategies sharing
a game are themselves correlated (two players: one's win is the other's loss).
Sharing decks pays off only where the deck decides much of the outcome: with
deterministic strategies in czech deals about 2x, while a ``random`` player in
every line-up scrambles the deal and leaves about 1x; in svinya matches (the
deal's winner leads the next, SV2) rotated line-ups drift back to the same
seats, the strategies' results become positively correlated and the ratio
falls below 1.  The ratios are measured, not assumed: read them before
trusting the design for a new setting.  Ranking intervals are normal intervals
of the per-deck scores (the ``N`` places of one deck are not independent, so a
Wilson interval on ``D x N`` seat-games would be too narrow).

Decks are cut into fixed-size chunks, played by
:mod:`analyzer.execution.runs.compare` (``run_compare``) on the executor and
seeded from (seed, purpose "compare", the rules, chunk index), so the numbers
depend on the seed alone, not on ``--jobs``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.rules import RuleSet
from analyzer.stats.design import lineups
from analyzer.stats.intervals import (
    Z95,
    agreed_distinguishable,
    diff_proportions,
    holm,
    mean_from_sums,
    paired_difference,
    z_test_p,
)

CHUNK_DEALS = 20_000
CHUNK_MATCHES = 1_000
#: Deck orders drawn per match at first (czech to 500 needs ~36, at most ~50 in practice);
#: a chunk whose matches need more is replayed with twice as many, up to MAX_DEALS.
MATCH_DECKS = 400
METRICS = ("win", "loss", "points")
SCORES = (*METRICS, "win_rot")

FloatArray = NDArray[np.float64]


class CompareError(ValueError):
    """A comparison that cannot be made (too few strategies, bad sizes); one line."""


@dataclass
class Comparison:
    """Per-deck scores of ``k`` strategies over ``n_decks`` duplicate decks."""

    rules: RuleSet
    specs: list[str]
    names: list[str]
    matches: bool
    seed: int
    scores: dict[str, FloatArray]  # metric -> (D, k) per-deck score of each strategy; win_rot (D, k, k)
    capped: int  # deals stopped by the turn cap, over all rotations
    deals_played: int  # deals over all rotations (matches: summed over matches)
    seconds: float

    @property
    def n_decks(self) -> int:
        return int(self.scores["win"].shape[0])

    @property
    def games(self) -> int:
        """Deals (or matches) played: decks x rotations."""
        return self.n_decks * len(self.specs)

    @property
    def unit(self) -> str:
        return "match" if self.matches else "deal"


def _mean_ci(x: FloatArray) -> tuple[float, float, float]:
    e = mean_from_sums(x.sum(), (x * x).sum(), x.size)
    return float(e.est), float(e.lo), float(e.hi)


def _r(x: float) -> float | None:
    """JSON-safe number: NaN and infinity become None; never rounded (a p-value of 1e-8 stays 1e-8)."""
    return float(x) if math.isfinite(x) else None


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: _r(v) if isinstance(v, float) else v for k, v in row.items()}


def _div(a: float, b: float) -> float:
    return a / b if b > 0 else float("inf") if a > 0 else float("nan")


def _fresh_se(win_rot: NDArray[np.floating[Any]], i: int, j: int) -> float:
    """Standard error of the win difference i − j had every game of a deck's rotations had its own deck.

    The rotations' games are then independent, so the variance of the per-deck
    difference is the sum over rotations of the variances of each rotation's
    share (estimated from the same games); the duplicate design's variance adds
    their covariances, which sharing the deck makes negative when it helps.
    """
    c = win_rot[:, :, i].astype(np.float64) - win_rot[:, :, j]
    d = c.shape[0]
    if d < 2:
        return float("nan")
    return float(np.sqrt(c.var(axis=0, ddof=1).sum() / d))


def _p_value(est: float, se: float) -> float:
    if se == 0:
        return 1.0 if est == 0 else 0.0  # no variation at all: identical on every deck, or always apart
    return float(z_test_p(est, se))  # NaN when se is (a single deck)


def summarize_comparison(cmp: Comparison) -> dict[str, Any]:
    """The ``--json`` object: ranking, pairs (paired differences, Holm, verdicts) and narrowing.

    Numbers are full floats (NaN and infinity as None): rounding is the
    renderer's business.  A pair's verdict names a winner only when the 95 %
    interval excludes 0 *and* the Holm-adjusted p-value is below 0.05
    (:func:`analyzer.stats.intervals.agreed_distinguishable`, the one verdict rule).
    ``narrowing_median`` is the median ratio against the fair baseline, the same
    line-ups on a fresh deck per game; ``narrowing_independent_median`` the one
    against two independent proportions of the same sample sizes.
    """
    win = cmp.scores["win"]
    d, k = win.shape
    players = cmp.rules.players
    seat_games = d * players  # per strategy: one place per position per deck
    ranking: list[dict[str, Any]] = []
    for i, name in enumerate(cmp.names):
        w, lo_, pm = (_mean_ci(cmp.scores[m][:, i]) for m in METRICS)
        ranking.append({"strategy": name, "spec": cmp.specs[i], "win_rate": w[0], "lo": w[1], "hi": w[2],
                        "loss_rate": lo_[0], "loss_lo": lo_[1], "loss_hi": lo_[2],
                        "mean_points": pm[0], "points_lo": pm[1], "points_hi": pm[2], "n": seat_games})
    ranking.sort(key=lambda r: -r["win_rate"])
    pairs: list[dict[str, Any]] = []
    narrowing: list[dict[str, Any]] = []
    for i, j in combinations(range(k), 2):
        a, b = cmp.names[i], cmp.names[j]
        e = paired_difference(win[:, i], win[:, j])
        diff, se, lo, hi = float(e.est), float(e.se), float(e.lo), float(e.hi)
        indep = diff_proportions(win[:, i].mean(), seat_games, win[:, j].mean(), seat_games)
        paired_hw, indep_hw = Z95 * se, Z95 * float(indep.se)
        fresh_hw = Z95 * _fresh_se(cmp.scores["win_rot"], i, j)
        loss = paired_difference(cmp.scores["loss"][:, i], cmp.scores["loss"][:, j])
        pts = paired_difference(cmp.scores["points"][:, i], cmp.scores["points"][:, j])
        pairs.append({"a": a, "b": b, "diff": diff, "se": se, "lo": lo, "hi": hi, "p": _p_value(diff, se),
                      "loss_diff": float(loss.est), "loss_lo": float(loss.lo), "loss_hi": float(loss.hi),
                      "points_diff": float(pts.est), "points_lo": float(pts.lo), "points_hi": float(pts.hi)})
        narrowing.append({"a": a, "b": b, "paired_half_width": paired_hw, "independent_half_width": indep_hw,
                          "ratio": _div(indep_hw, paired_hw), "fresh_decks_half_width": fresh_hw,
                          "ratio_fresh_decks": _div(fresh_hw, paired_hw)})
    p_holm: list[float] = holm([p["p"] for p in pairs]).tolist() if pairs else []
    for p, ph in zip(pairs, p_holm):
        p["p_holm"] = float(ph)
        sure = bool(agreed_distinguishable(p["lo"], p["hi"], p["p_holm"]))
        p["verdict"] = ("not distinguishable" if not sure else
                        f"{p['a']} better than {p['b']}" if p["diff"] > 0 else f"{p['b']} better than {p['a']}")
    finite = [n["ratio"] for n in narrowing if math.isfinite(n["ratio"])]
    finite_fresh = [n["ratio_fresh_decks"] for n in narrowing if math.isfinite(n["ratio_fresh_decks"])]
    r = cmp.rules
    return {
        "variant": r.variant, "players": r.players, "rules": r.changed(), "unit": cmp.unit, "seed": cmp.seed,
        "strategies": cmp.names, "specs": cmp.specs,
        "lineups": [[cmp.names[s] for s in up] for up in lineups(k, players)],
        "n_decks": d, "games": cmp.games, "seat_games_per_strategy": seat_games,
        "deals_played": cmp.deals_played, "capped": cmp.capped,
        "ranking": [_json_row(row) for row in ranking],
        "pairs": [_json_row(row) for row in pairs],
        "narrowing": [_json_row(row) for row in narrowing],
        # the fair baseline is the same line-ups on fresh decks; two independent proportions come second
        "narrowing_median": _r(float(np.median(finite_fresh))) if finite_fresh else None,
        "narrowing_independent_median": _r(float(np.median(finite))) if finite else None,
        "seconds": round(cmp.seconds, 2),
    }
