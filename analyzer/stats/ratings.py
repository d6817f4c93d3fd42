"""Ratings and head-to-head margins from a round-robin on duplicate decks.

Input everywhere is the per-deck head-to-head array of
:func:`analyzer.stats.tournament.head_to_head`: ``scores[d, i, j]`` is strategy
``i``'s win share against ``j`` on deck ``d`` (the mean over the pair's two
seatings: 0, 0.5 or 1 for deals), NaN where the pair did not play deck ``d``
and on the diagonal.

Bradley–Terry model
-------------------
``P(i beats j) = 1 / (1 + exp(-(r_i - r_j)))``.  The ratings maximise
``sum_{i != j} w_ij log P(i beats j)`` with ``w_ij`` the summed win shares of
``i`` against ``j`` (a game nobody won, a capped deal, counts for neither).
Each pair that played also gets ``prior`` virtual wins each way (a weak pull
towards equal ratings, 0.5 by default: one drawn game per pair), which keeps a
strategy that never lost finite; ``prior=0`` is the plain maximum likelihood.
The fit is Newton's method on this concave function in numpy (a handful of
steps for a few strategies, all bootstrap replicates at once), steps capped at
1 logit so a far start cannot overshoot.  Ratings are anchored to mean 0, or to
``anchor = <strategy>`` at 0.  ``scale="elo"`` reports ``400 / ln 10`` times the
logit (a 100-point gap is a 64 % head-to-head win rate), ``"logit"`` the logit.

Intervals
---------
95 % percentile intervals from a bootstrap over *decks*: a replicate draws
decks with replacement and refits, so every pair's games on one deck stay
together (paired, never independent samples: the luck a deck brings to every
strategy that played it is resampled with it).  The same ``seed`` gives the
same intervals.  The head-to-head margins of :func:`cross_table` are paired
differences over decks with normal intervals and Holm-adjusted p-values; a cell
is ``significant`` only when its interval excludes 0 and its Holm p-value is
below 0.05, the rule of ``durak compare``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from analyzer.stats.intervals import Z95, distinguishable, holm, paired_difference, z_test_p
from analyzer.stats.tournament import Design, head_to_head, hero_scores, pair_tables, reached

ELO = 400.0 / math.log(10.0)
SCALES = {"elo": ELO, "logit": 1.0}
ALPHA = 0.05
MARGIN_COLUMNS = ["a", "b", "margin", "lo", "hi", "p", "p_holm", "significant", "n_decks"]
#: Bootstrap replicates fitted together (memory: batch x decks counts).
_BATCH_CELLS = 4_000_000

FloatArray = NDArray[np.float64]


class RatingError(ValueError):
    """Ratings that cannot be computed from the given results (one line)."""


def _check_scores(scores: ArrayLike, names: Sequence[str]) -> FloatArray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 3 or s.shape[1] != s.shape[2]:
        raise RatingError(f"scores must be (decks, k, k) head-to-head win shares, got shape {s.shape}")
    if s.shape[1] != len(names):
        raise RatingError(f"{s.shape[1]} strategies in the scores, {len(names)} names")
    if s.shape[0] == 0:
        raise RatingError("no decks: nothing to rate")
    return s


def _wins(s: FloatArray) -> FloatArray:
    """(k, k) summed win shares, NaN (not played) as 0, diagonal 0."""
    w = np.nansum(s, axis=0)
    np.fill_diagonal(w, 0.0)
    return w


def _check_graph(w: FloatArray, names: Sequence[str], prior: float) -> None:
    """Ratings are comparable only within a connected graph of pairs with decided games; without a
    prior the maximum is finite only if every strategy both beat and lost to someone, around a cycle
    (the "beats" graph is strongly connected)."""
    k = w.shape[0]
    apart = [names[i] for i in range(k) if i not in reached((w + w.T) > 0)]
    if apart:
        raise RatingError(f"no decided games link {', '.join(apart)} to {names[0]}: ratings would not be comparable")
    if prior == 0:
        beats = w > 0
        never = [f"{names[i]} never {'lost' if beats[i].any() else 'won'}" for i in range(k)
                 if not beats[i].any() or not beats[:, i].any()]
        if not never and len(reached(beats) & reached(beats.T)) < k:
            never = ["one group of strategies never lost to the others"]
        if never:
            raise RatingError(f"with prior=0 some ratings are infinite ({'; '.join(never)}); use a prior > 0")


def fit_bradley_terry(wins: ArrayLike, *, prior: float = 0.5, pairs: ArrayLike | None = None, tol: float = 1e-10,
                      max_iter: int = 200) -> FloatArray:
    """Bradley–Terry log-strengths (logit scale, mean 0) of (..., k, k) win totals.

    ``wins[..., i, j]``: wins of ``i`` over ``j`` (fractional allowed).  Leading
    axes are independent problems (bootstrap replicates), fitted together.
    ``prior`` virtual wins each way are added to every pair that played (``pairs``, (k, k) bool; by default
    the pairs with a decided game, so a bootstrap passes the full data's pairs to keep a replicate in one piece).
    A strategy that never won (or never lost) with ``prior=0`` has no finite
    maximum: its rating runs off until the iteration limit.
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[-1]
    flat = w.reshape(-1, k, k).copy()
    played = (flat + flat.swapaxes(1, 2)) > 0 if pairs is None else np.asarray(pairs, dtype=bool)
    flat = flat + prior * played
    n = flat + flat.swapaxes(1, 2)
    r = np.zeros(flat.shape[:2])
    ones = np.ones((k, k)) + 1e-9 * np.eye(k)  # 1 1^T fixes the free shift; the ridge keeps a split replicate solvable
    for _ in range(max_iter):
        with np.errstate(over="ignore"):  # a rating without a finite maximum (prior 0) runs off; p saturates
            p = 1.0 / (1.0 + np.exp(-(r[:, :, None] - r[:, None, :])))  # p[b, i, j] = P(i beats j)
        g = (flat - n * p).sum(axis=2)  # gradient of the log-likelihood, sums to 0 over i
        c = n * p * (1.0 - p)  # curvature of each pair
        info = np.einsum("bij->bi", c)[:, :, None] * np.eye(k) - c  # -Hessian (a graph Laplacian)
        step = np.linalg.solve(info + ones, g[:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step = step / np.maximum(big, 1.0)  # trust region of 1 logit
        r = r + step
        r -= r.mean(axis=1, keepdims=True)
        if big.max() < tol:
            break
    return r.reshape(w.shape[:-1])


def _anchored(r: FloatArray, names: Sequence[str], anchor: str | None) -> FloatArray:
    if anchor is None:
        return r - r.mean(axis=-1, keepdims=True)
    if anchor not in names:
        raise RatingError(f"anchor {anchor!r} is not among the rated strategies: {', '.join(names)}")
    return r - r[..., [list(names).index(anchor)]]


def _boot_counts(rng: np.random.Generator, d: int, b: int) -> NDArray[np.int64]:
    """(b, d) how often each deck is drawn in each of ``b`` bootstrap replicates."""
    return rng.multinomial(d, np.full(d, 1.0 / d), size=b)


def bootstrap_ratings(scores: ArrayLike, *, boot: int = 1000, seed: int = 0, prior: float = 0.5) -> FloatArray:
    """(boot, k) logit ratings (mean 0) refitted on decks drawn with replacement (deterministic for ``seed``)."""
    s = np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=0.0)
    d, k, _ = s.shape
    w = _wins(s)
    pairs = (w + w.T) > 0
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out = np.empty((boot, k))
    batch = max(1, _BATCH_CELLS // max(d, 1))
    flat = s.reshape(d, k * k)
    for start in range(0, boot, batch):
        m = min(batch, boot - start)
        counts = _boot_counts(rng, d, m).astype(np.float64)
        wb = (counts @ flat).reshape(m, k, k)
        wb[:, np.arange(k), np.arange(k)] = 0.0
        out[start:start + m] = fit_bradley_terry(wb, prior=prior, pairs=pairs)
    return out


def ratings(scores: ArrayLike, names: Sequence[str], *, boot: int = 1000, seed: int = 0, prior: float = 0.5,
            anchor: str | None = None, scale: str = "elo", level: float = 0.95) -> pd.DataFrame:
    """Bradley–Terry ratings with bootstrap intervals, best first.

    Returns a tidy DataFrame with columns ``strategy, rating, lo, hi, n_decks``
    (``n_decks``: decks on which the strategy played at least one pair).
    """
    s = _check_scores(scores, names)
    if scale not in SCALES:
        raise RatingError(f"unknown rating scale {scale!r}; choose one of {', '.join(SCALES)}")
    if boot < 1:
        raise RatingError(f"bootstrap replicates must be at least 1, got {boot}")
    if not 0 < level < 1:
        raise RatingError(f"the interval level must lie between 0 and 1, got {level}")
    w = _wins(s)
    if prior < 0:
        raise RatingError(f"the prior must be 0 or more virtual wins, got {prior}")
    _check_graph(w, names, prior)
    played = ~np.isnan(s)
    unit = SCALES[scale]
    est = _anchored(fit_bradley_terry(w, prior=prior), names, anchor) * unit
    reps = _anchored(bootstrap_ratings(s, boot=boot, seed=seed, prior=prior), names, anchor) * unit
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [tail, 1.0 - tail], axis=0)
    n_decks = played.any(axis=2).sum(axis=0)
    frame = pd.DataFrame({"strategy": list(names), "rating": est, "lo": lo, "hi": hi, "n_decks": n_decks})
    return frame.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


def win_probability(rating_gap: ArrayLike, scale: str = "elo") -> FloatArray:
    """The head-to-head win rate a rating gap stands for (the model's prediction)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(rating_gap, dtype=np.float64) / SCALES[scale]))


def _margins(names: Sequence[str], diffs: Sequence[tuple[int, int, FloatArray]]) -> pd.DataFrame:
    """Paired margins of the given pairs (per-deck differences, NaN = not played), Holm over them, both orientations."""
    est, lo, hi, p, n = (np.zeros(len(diffs)) for _ in range(5))
    for c, (_, _, d) in enumerate(diffs):
        x = d[~np.isnan(d)]
        e = paired_difference(x, np.zeros_like(x))
        est[c], lo[c], hi[c], n[c] = float(e.est), float(e.lo), float(e.hi), x.size
        p[c] = (1.0 if est[c] == 0 else 0.0) if float(e.se) == 0 else float(z_test_p(e.est, e.se))
    p_holm = holm(p)
    sure = distinguishable(lo, hi) & (p_holm < ALPHA)
    out: list[dict[str, object]] = []
    for c, (i, j, _) in enumerate(diffs):
        common = {"p": p[c], "p_holm": p_holm[c], "significant": bool(sure[c]), "n_decks": int(n[c])}
        out.append({"a": names[i], "b": names[j], "margin": est[c], "lo": lo[c], "hi": hi[c], **common})
        out.append({"a": names[j], "b": names[i], "margin": -est[c], "lo": -hi[c], "hi": -lo[c], **common})
    return pd.DataFrame(out, columns=MARGIN_COLUMNS)


def cross_table(scores: ArrayLike, names: Sequence[str],
                pairs: Sequence[tuple[int, int]] | None = None) -> pd.DataFrame:
    """Head-to-head margins of every ordered pair, paired over decks, with Holm over the unordered pairs.

    Columns (:data:`MARGIN_COLUMNS`): ``a, b, margin`` (mean over decks of
    ``a``'s win share against ``b`` minus ``b``'s against ``a``: points of win
    rate as a fraction), ``lo, hi`` (95 %), ``p, p_holm, significant,
    n_decks``.  Both orientations of a pair are listed (the second negated) so
    a cross-table fills without gaps; a report shades only ``significant`` cells.  ``pairs``: only these
    (a round-robin of chosen pairs; Holm over them), in their order.
    """
    s = _check_scores(scores, names)
    which = combinations(range(len(names)), 2) if pairs is None else pairs
    return _margins(names, [(i, j, s[:, i, j] - s[:, j, i]) for i, j in which])


def paired_table(scores: ArrayLike, names: Sequence[str]) -> pd.DataFrame:
    """Margins between strategies scored on the same decks against the same opposition (hero, field).

    ``scores``: (D, k) per-deck score of each strategy (e.g. :func:`analyzer.stats.tournament.hero_scores`);
    the margin of ``a`` over ``b`` is the mean of ``scores[:, a] - scores[:, b]``, paired over decks.
    Columns as :func:`cross_table`.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[1] != len(names) or s.shape[0] == 0:
        raise RatingError(f"scores must be (decks, {len(names)}) per-deck scores, got shape {s.shape}")
    return _margins(names, [(i, j, s[:, i] - s[:, j]) for i, j in combinations(range(len(names)), 2)])


def verdict(row: dict[str, Any] | pd.Series) -> str:
    """The words of ``durak compare`` for a margin row: a winner only when the cell is significant."""
    if not row["significant"]:
        return "not distinguishable"
    return f"{row['a']} better than {row['b']}" if row["margin"] > 0 else f"{row['b']} better than {row['a']}"


def json_num(x: float) -> float | None:
    return round(float(x), 6) if math.isfinite(x) else None


def _narrowing(diffs: Sequence[FloatArray]) -> dict[str, Any]:
    """The pair's duplicate half-width against the fair baseline, a fresh deck for every game.

    ``diffs``: per table of the pair (both seatings; with swapped hands four
    tables), the per-deck difference ``w_i - w_j`` of the two strategies' win
    shares.  Per deck the margin is their mean; played on the same deck its
    variance is ``var(mean_t d_t)``, on fresh decks for every game the
    covariances are gone: ``sum_t var(d_t) / m**2`` for ``m`` tables.

    * ``narrowing``: the fresh-deck half-width with the same number of games
      over the design's (per game played: the honest cost of a design);
    * ``narrowing_per_deck``: against fresh decks with one game per seating,
      two per deck (``sum_t var(d_t) / (2 m)``): the same as ``narrowing`` for
      the two-seating design, ``sqrt(m / 2)`` times it for ``m`` tables a deck.
    """
    m = len(diffs)
    n = diffs[0].shape[0]
    if n < 2:
        return {"games_per_deck": m, "paired_half_width": None, "fresh_decks_half_width": None, "narrowing": None,
                "narrowing_per_deck": None}
    dup = float(np.var(sum(diffs) / m, ddof=1))
    var_sum = float(sum(np.var(d, ddof=1) for d in diffs))
    fresh, fresh_two = var_sum / m**2, var_sum / (2 * m)
    hw = lambda v: Z95 * math.sqrt(v / n)  # noqa: E731
    return {"games_per_deck": m, "paired_half_width": json_num(hw(dup)), "fresh_decks_half_width": json_num(hw(fresh)),
            "narrowing": json_num(math.sqrt(fresh / dup)) if dup > 0 else None,
            "narrowing_per_deck": json_num(math.sqrt(fresh_two / dup)) if dup > 0 else None}


def _pair_diffs(design: Design, g: int, arrs: Sequence[FloatArray]) -> list[FloatArray]:
    """Per table of round-robin pair ``g`` = (i, j): the per-deck win share of ``i`` minus ``j``."""
    i, j = design.pairs[g]
    return [arrs[t][:, design.tables[t].seats.index(i)] - arrs[t][:, design.tables[t].seats.index(j)]
            for t in pair_tables(design, g)]


def round_robin_summary(design: Design, wins: Sequence[ArrayLike], *, boot: int = 1000, seed: int = 0,
                        scale: str = "elo", anchor: str | None = None) -> dict[str, Any]:
    """A JSON-ready account of a round-robin: every seating, every pair's paired margin and verdict, ratings.

    ``wins[t]``: table ``t``'s (D, 2) win shares by position on its decks
    (:func:`analyzer.stats.tournament.head_to_head`).  ``seatings`` shows
    each table's win rates by position, so the seat advantage the design
    cancels is visible (``first_seat_advantage``: position 0 minus position 1,
    paired over all tables' decks).
    """
    s = head_to_head(design, wins)
    names = list(design.strategies)
    arrs = [np.asarray(w, dtype=np.float64) for w in wins]
    seatings = [{"seats": list(design.lineup(t)), "win_rates": [json_num(v) for v in a.mean(axis=0)],
                 **({"hands": list(design.tables[t].hands)} if design.tables[t].hands != (0, 1) else {})}
                for t, a in enumerate(arrs)]
    first = np.concatenate([a[:, 0] for a in arrs])
    second = np.concatenate([a[:, 1] for a in arrs])
    adv = paired_difference(first, second)
    margins = cross_table(s, names, design.pairs)
    pairs = []
    for g, row in enumerate(margins.iloc[::2].to_dict("records")):
        # p-values keep full precision: rounding would print a p of 1e-8 as 0
        pairs.append({**{k: (float(v) if k in ("p", "p_holm") else json_num(v) if isinstance(v, float) else v)
                         for k, v in row.items()},
                      "verdict": verdict(row), **_narrowing(_pair_diffs(design, g, arrs))})
    rated = ratings(s, names, boot=boot, seed=seed, scale=scale, anchor=anchor)
    return {
        "design": design.name, "measures": design.measures, "players": design.players, "strategies": names,
        "n_decks": int(s.shape[0]), "seatings": seatings,
        "first_seat_advantage": {"diff": json_num(float(adv.est)), "lo": json_num(float(adv.lo)), "hi": json_num(float(adv.hi))},
        "pairs": pairs,
        "ratings": [{k: (json_num(v) if isinstance(v, float) else int(v) if k == "n_decks" else v) for k, v in r.items()}
                    for r in rated.to_dict("records")],
        "rating_scale": scale, "bootstrap": {"replicates": boot, "seed": seed, "unit": "deck"},
    }


def hero_summary(design: Design, wins: Sequence[ArrayLike], *, boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """A JSON-ready account of a hero design: each strategy's win rate against the field, paired margins.

    ``wins[t]``: table ``t``'s (D, players) win shares by position.  A strategy's
    score on a deck is its win share averaged over its ``players`` positions
    (:func:`analyzer.stats.tournament.hero_scores`); its interval is a normal
    interval over decks, and ``margin`` is the score minus the fair share
    ``1 / players`` (paired with nothing: the field is the same for every
    strategy).  Margins between two strategies are paired over decks (every
    hero played every deck against the same field), with Holm over the pairs.
    ``boot`` and ``seed`` are unused (the summary has no bootstrap); they keep
    the signature of :func:`round_robin_summary`.
    """
    del boot, seed
    h = hero_scores(design, wins)
    names = list(design.strategies)
    n = design.players
    arrs = [np.asarray(w, dtype=np.float64) for w in wins]
    seatings = [{"seats": list(design.lineup(t)), "hero_position": design.tables[t].scored[0],
                 "win_rates": [json_num(v) for v in a.mean(axis=0)]} for t, a in enumerate(arrs)]
    rows: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        e = paired_difference(h[:, i], np.zeros(h.shape[0]))
        by_pos = [json_num(float(arrs[t][:, design.tables[t].scored[0]].mean()))
                  for t in range(len(design.tables)) if design.tables[t].group == i]
        rows.append({"strategy": name, "win_rate": json_num(float(e.est)), "lo": json_num(float(e.lo)),
                     "hi": json_num(float(e.hi)), "margin": json_num(float(e.est) - 1.0 / n),
                     "by_position": by_pos, "n_decks": int(h.shape[0])})
    ranking = sorted(rows, key=lambda r: -(r["win_rate"] or 0.0))
    pairs = []
    if len(names) > 1:
        for row in paired_table(h, names).iloc[::2].to_dict("records"):
            pairs.append({**{k: (float(v) if k in ("p", "p_holm") else json_num(v) if isinstance(v, float) else v)
                             for k, v in row.items()}, "verdict": verdict(row)})
    back = [design.entrants[e] for q, e in enumerate(design.tables[0].seats) if q != design.tables[0].scored[0]]
    return {
        "design": design.name, "measures": design.measures, "players": n, "strategies": names, "field": back,
        "fair_share": 1.0 / n, "n_decks": int(h.shape[0]), "seatings": seatings, "ranking": ranking, "pairs": pairs,
    }
