"""Interval arithmetic for the stored sufficient statistics (no scipy).

Results reach the analyzer only as counts, sums and sums of squares
(:func:`analyzer.stats.sums.summarize`), so every estimate here is computed from
those: proportions get Wilson intervals (good near 0 and 1, where capped or
wild-decided rates live), means get normal intervals from the sum of squares,
and comparisons get normal-approximation intervals.  Everything is vectorized
over numpy arrays so a whole table is done in one call; ``n = 0`` gives NaN
rather than an exception, so an empty cell shows up as missing, not as 0 %.

Convention: a comparison whose interval contains its null value (0 for a
difference, 1 for a ratio) is *not distinguishable* (:func:`distinguishable`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:  # a frame only where one is asked for (rate_frame)
    import pandas as pd

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054
#: Family-wise error rate of the verdicts (with :data:`Z95`: 95 % intervals).
ALPHA = 0.05

FloatArray = NDArray[np.float64]


class Rate(NamedTuple):
    """A proportion with its interval and the sample size it rests on."""

    rate: FloatArray
    lo: FloatArray
    hi: FloatArray
    n: FloatArray


class Estimate(NamedTuple):
    """A point estimate with standard error, interval and sample size."""

    est: FloatArray
    se: FloatArray
    lo: FloatArray
    hi: FloatArray
    n: FloatArray


def _f(x: ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz), for x < (a+1)/(a+b+2)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return f


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (a t-interval over a few draws: 3 draws
    give 4.303 at 97.5 %, where the normal 1.960 would be far too narrow).  Bisection on the distribution
    function, I_x(df/2, 1/2) with x = df / (df + t^2), to 1e-12."""
    if not (0.0 < p < 1.0) or not df > 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    tail = 2.0 * (1.0 - p)  # P(|T| > t) at the quantile
    lo, hi = 0.0, 1.0
    while _incomplete_beta(df / 2, 0.5, df / (df + hi * hi)) > tail:
        hi *= 2.0
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = (lo + hi) / 2
        if _incomplete_beta(df / 2, 0.5, df / (df + mid * mid)) > tail:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def wilson(successes: ArrayLike, n: ArrayLike, z: float = Z95) -> Rate:
    """Wilson score interval for ``successes / n``.

    Counts may be fractional (match ties share a win).  ``n == 0`` yields NaN.
    """
    k, m = np.broadcast_arrays(_f(successes), _f(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(m > 0, k / m, np.nan)
        p = np.clip(p, 0.0, 1.0)
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom
        lo = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return Rate(p, lo, hi, m.astype(np.float64))


def rate_frame(successes: ArrayLike, n: ArrayLike, prefix: str = "", z: float = Z95) -> pd.DataFrame:
    """:func:`wilson` as DataFrame columns ``{prefix}rate, lo, hi, n`` (for tables)."""
    r = wilson(successes, n, z)
    import pandas as pd

    return pd.DataFrame({f"{prefix}rate": np.atleast_1d(r.rate), f"{prefix}lo": np.atleast_1d(r.lo),
                         f"{prefix}hi": np.atleast_1d(r.hi), f"{prefix}n": np.atleast_1d(r.n)})


def diff_proportions(p1: ArrayLike, n1: ArrayLike, p2: ArrayLike, n2: ArrayLike,
                     z: float = Z95) -> Estimate:
    """Normal (Wald) interval for ``p1 - p2`` from independent samples.

    ``n2 = inf`` treats ``p2`` as a known constant (e.g. a fair share 1/players).
    """
    a, na, b, nb = np.broadcast_arrays(_f(p1), _f(n1), _f(p2), _f(n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        v1 = np.where(na > 0, a * (1 - a) / na, np.nan)
        v2 = np.where(np.isinf(nb), 0.0, np.where(nb > 0, b * (1 - b) / nb, np.nan))
        se = np.sqrt(v1 + v2)
    d = a - b
    return Estimate(d, se, d - z * se, d + z * se, na)


def ratio_over_clusters(m: ArrayLike, sum_w: ArrayLike, sum_d: ArrayLike, sum_ww: ArrayLike, sum_wd: ArrayLike,
                        sum_dd: ArrayLike, z: float = Z95) -> Estimate:
    """Normal interval for R = sum w / sum d over ``m`` independent clusters (decks), each with w successes in d
    trials that need not be independent (a deck dealt with its hands rotated: its deals share the cards), from
    the clusters' sums of w, d, w^2, w d and d^2.  Linearised: var(R) = sum (w - R d)^2 / ((m - 1) m dbar^2).
    """
    mm, w, d, ww, wd, dd = (_f(x) for x in (m, sum_w, sum_d, sum_ww, sum_wd, sum_dd))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = w / d
        resid = np.maximum(ww - 2 * r * wd + r * r * dd, 0.0)  # sum over clusters of (w - R d)^2
        se = np.sqrt(resid / (mm - 1) / mm) / (d / mm)
    return Estimate(r, se, r - z * se, r + z * se, mm)


def diff_multinomial(p1: ArrayLike, p2: ArrayLike, n: ArrayLike, z: float = Z95) -> Estimate:
    """Interval for ``p1 - p2`` of two outcomes of the *same* multinomial draws.

    Two positions of one deal are not independent: exactly one of them loses,
    so ``cov = -p1 p2 / n`` and ``var = (p1(1-p1) + p2(1-p2) + 2 p1 p2) / n``.
    """
    a, b, m = np.broadcast_arrays(_f(p1), _f(p2), _f(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(m > 0, np.sqrt((a * (1 - a) + b * (1 - b) + 2 * a * b) / m), np.nan)
    d = a - b
    return Estimate(d, se, d - z * se, d + z * se, m)


def ratio_proportions(p1: ArrayLike, n1: ArrayLike, p2: ArrayLike, n2: ArrayLike,
                      z: float = Z95) -> Estimate:
    """Interval for ``p1 / p2`` by the delta method on the log scale.

    ``se(log ratio) = sqrt((1-p1)/(n1 p1) + (1-p2)/(n2 p2))``; ``n2 = inf`` makes
    ``p2`` a constant.  ``se`` is returned on the log scale; ``lo, hi`` on the
    ratio scale.  A zero proportion gives NaN (the log is undefined).
    """
    a, na, b, nb = np.broadcast_arrays(_f(p1), _f(n1), _f(p2), _f(n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(b > 0, a / b, np.nan)
        v1 = np.where((na > 0) & (a > 0), (1 - a) / (na * a), np.nan)
        v2 = np.where(np.isinf(nb), 0.0, np.where((nb > 0) & (b > 0), (1 - b) / (nb * b), np.nan))
        se = np.sqrt(v1 + v2)
        lo = r * np.exp(-z * se)
        hi = r * np.exp(z * se)
    return Estimate(r, se, lo, hi, na)


def mean_from_sums(total: ArrayLike, total_sq: ArrayLike, n: ArrayLike, z: float = Z95) -> Estimate:
    """Mean, standard error and normal interval from ``sum``, ``sum of squares``, ``n``.

    The sample variance is ``(sumsq - sum^2/n) / (n - 1)``; ``n < 2`` gives a NaN
    standard error, ``n = 0`` a NaN mean.
    """
    s, s2, m = np.broadcast_arrays(_f(total), _f(total_sq), _f(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(m > 0, s / m, np.nan)
        var = np.where(m > 1, (s2 - s * s / m) / (m - 1), np.nan)
        se = np.sqrt(np.maximum(var, 0.0) / m)
    return Estimate(mean, se, mean - z * se, mean + z * se, m)


def paired_difference(a: ArrayLike, b: ArrayLike, z: float = Z95) -> Estimate:
    """Mean of ``a - b`` over paired samples (same deals, common random numbers).

    Pairing removes the deal-to-deal noise both share, which is why it is
    preferred over :func:`diff_proportions` when per-deal outcomes exist.
    """
    d = _f(a) - _f(b)
    if d.ndim != 1:
        d = d.ravel()
    n = d.size
    return mean_from_sums(d.sum(), (d * d).sum(), n, z)


def z_test_p(estimate: ArrayLike, se: ArrayLike, null: ArrayLike = 0.0) -> FloatArray:
    """Two-sided p-value of a z statistic, ``erfc(|z| / sqrt 2)`` (no scipy)."""
    e, s, h = np.broadcast_arrays(_f(estimate), _f(se), _f(null))
    with np.errstate(divide="ignore", invalid="ignore"):
        zz = np.abs(e - h) / s
    erfc = np.vectorize(lambda x: math.erfc(x / math.sqrt(2.0)) if np.isfinite(x) else
                        (0.0 if x == np.inf else np.nan), otypes=[np.float64])
    with np.errstate(invalid="ignore"):  # a NaN z (no standard error) is a NaN p, quietly
        return erfc(zz) if zz.size else zz


def holm(pvalues: ArrayLike) -> FloatArray:
    """Holm–Bonferroni adjusted p-values (same order as given; NaN stays NaN).

    Controls the family-wise error when a report makes many comparisons at
    once (one per cell), without Bonferroni's full conservatism.
    """
    p = _f(pvalues).ravel()
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out.reshape(np.shape(pvalues))
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adj, 1.0)
    return out.reshape(np.shape(pvalues))


def distinguishable(ci_low: ArrayLike, ci_high: ArrayLike, null: ArrayLike = 0.0) -> NDArray[np.bool_]:
    """True where the interval excludes ``null``; an interval containing it is "not distinguishable".

    A NaN bound is never distinguishable (nothing was measured).
    """
    lo, hi, h = np.broadcast_arrays(_f(ci_low), _f(ci_high), _f(null))
    with np.errstate(invalid="ignore"):
        return (lo > h) | (hi < h)


def agreed_distinguishable(ci_low: ArrayLike, ci_high: ArrayLike, p_holm: ArrayLike, null: ArrayLike = 0.0,
                           alpha: float = ALPHA) -> NDArray[np.bool_]:
    """The one verdict rule: "distinguishable" only where the 95 % interval excludes ``null``
    *and* the Holm-adjusted p-value is below ``alpha``.

    Where a report makes several comparisons at once, an interval that just
    misses the null value is not enough (its p-value is not corrected for the
    others), and a small Holm p-value with an interval touching the null
    (different approximations) is not either: both must agree.  A NaN p-value
    or bound is never distinguishable.
    """
    ph = _f(p_holm)
    with np.errstate(invalid="ignore"):
        return distinguishable(ci_low, ci_high, null) & (ph < alpha)


def quantiles_from_hist(bins: ArrayLike, counts: ArrayLike, qs: ArrayLike) -> FloatArray:
    """Quantiles of an integer-valued distribution from its histogram.

    Returns the smallest bin whose cumulative share reaches each ``q`` (the
    lower-median convention for integers); NaN for an empty histogram.  The
    caller decides what the last, open-ended bin means.
    """
    b = _f(bins)
    c = _f(counts)
    q = np.atleast_1d(_f(qs))
    order = np.argsort(b, kind="stable")
    b, c = b[order], c[order]
    total = c.sum()
    if total <= 0:
        return np.full(q.shape, np.nan)
    cum = np.cumsum(c) / total
    idx = np.searchsorted(cum, q - 1e-12, side="left")
    idx = np.minimum(idx, b.size - 1)
    return b[idx]
