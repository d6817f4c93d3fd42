"""Seat fairness: every seat, both outcomes that matter (the winner and the дурак), one summary.

A game is fair when no seat wins, and no seat is the дурак, more often than
its fair share ``1 / players`` of the decided deals (a capped deal, G10, has
neither).  Per position ``k`` and outcome ``o`` (``win``, ``durak``) the
*deviation* is ``d = share - 1/players``; a rule set's one number is the
largest ``|d|`` over every seat and both outcomes, with the seat and outcome
that attain it (:class:`Fairness`).  Looking at one seat only (the first
mover's win rate) can call a game fair whose dealer is the дурак a third less
often than the others.

The largest of several noisy deviations is biased upward, so its interval is
not the attaining deviation's own one.  Here:

* **lower end** ``max (|d_k| - c se_k)+`` with ``c`` the simultaneous 95 %
  critical value of the deviations (the 95 % quantile of ``max |Z_k| / se_k``
  for ``Z ~ N(0, cov)``, by a fixed-seed simulation of the estimated
  covariance): every deviation's interval holds at once 95 % of the time,
  so a truly fair game is called unfair (lower end above 0) 5 % of the time;
* **upper end** ``max (|d_k| + z se_k)``, ``z`` the one-sided 95 % normal
  quantile: the attaining deviation's upper bound, missed 5 % of the time.

So the interval covers the truth 95 % of the time for a fair game and about
94.6 % for one with a single clearly largest deviation, and more (it is
conservative, up to ~98 % seen) where other deviations lie within noise of
the largest (tests/stats/test_fairness.py checks 93-97 % on planted tables).

Two sources: per-deck seats (:func:`from_decks`: the balance explorer keeps
each deck's winner and дурак, so the covariance of all ``2 * players``
deviations is estimated from the decks, shares as ratios with the
linearised variance) and stored counts (:func:`from_counts`: run reports keep
sums only; within an outcome the counts are multinomial, and the two
outcomes are taken as independent, which by Šidák's inequality only widens
the simultaneous value).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from analyzer.stats import intervals as stats

FloatArray = NDArray[np.float64]
OUTCOMES = ("win", "durak")
#: One-sided 95 % normal quantile (the summary's upper end).
Z95_ONE_SIDED = 1.6448536269514722
#: Draws of the simultaneous critical value's simulation (fixed seed: the same numbers every time).
DRAWS = 10_000
_SEED = 20_240_601


@dataclass(frozen=True)
class Fairness:
    """Every seat's win and дурак share with Wilson intervals, and the summary (module doc).

    Arrays are by position. ``fairness`` is the largest |share - fair| over seats and outcomes,
    attained by ``seat`` on ``outcome``; ``lo``/``hi`` its 95 % interval.
    """

    players: int
    decided: float
    n: float
    win: FloatArray
    win_lo: FloatArray
    win_hi: FloatArray
    durak: FloatArray
    durak_lo: FloatArray
    durak_hi: FloatArray
    dev: FloatArray  # (2, players): win, durak deviations from the fair share
    se: FloatArray  # (2, players)
    critical: float
    fairness: float
    lo: float
    hi: float
    seat: int
    outcome: str

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    def advantaged(self, outcome: str) -> int | None:
        """The seat favoured on ``outcome`` (most wins, or fewest дурак), if its 95 % interval excludes the fair
        share on the favourable side; else None."""
        if outcome == "win":
            k = int(np.nanargmax(self.win))
            return k if self.win_lo[k] > self.fair else None
        k = int(np.nanargmin(self.durak))
        return k if self.durak_hi[k] < self.fair else None

    def seats(self) -> list[dict[str, float]]:
        """By position: ``{"win", "win_lo", "win_hi", "durak", "durak_lo", "durak_hi"}`` (fractions)."""
        return [{"win": float(self.win[k]), "win_lo": float(self.win_lo[k]), "win_hi": float(self.win_hi[k]),
                 "durak": float(self.durak[k]), "durak_lo": float(self.durak_lo[k]),
                 "durak_hi": float(self.durak_hi[k])} for k in range(self.players)]

    def summary(self) -> dict[str, Any]:
        return {"fairness": self.fairness, "fairness_lo": self.lo, "fairness_hi": self.hi,
                "fairness_seat": self.seat, "fairness_outcome": self.outcome}


def nanmax(x: ArrayLike) -> float:
    """The largest finite value, NaN where there is none (every deal capped) -- without numpy's warning."""
    a = np.asarray(x, np.float64)
    ok = np.isfinite(a)
    return float(a[ok].max()) if ok.any() else float("nan")


def critical_value(cov: ArrayLike, level: float = 0.95) -> float:
    """The 95 % quantile of ``max_k |Z_k| / sd_k`` for ``Z ~ N(0, cov)``: simultaneous intervals ``± c sd_k``.

    Singular covariances (the win shares sum to the decided share) are fine: the draws go through the
    correlation matrix's eigen-decomposition.  A fixed seed, so the same covariance gives the same value.
    """
    c = np.atleast_2d(np.asarray(cov, np.float64))
    sd = np.sqrt(np.clip(np.diag(c), 0.0, None))
    keep = sd > 0
    if not keep.any():
        return float("nan")
    corr = c[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    vals, vecs = np.linalg.eigh((corr + corr.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    z = np.random.default_rng(_SEED).standard_normal((DRAWS, root.shape[0])) @ root.T
    return float(np.quantile(np.abs(z).max(axis=1), level))


def sidak_value(m: int, level: float = 0.95) -> float:
    """Šidák's simultaneous value for ``m`` deviations, whatever their correlation (at least ``level``): the cheap,
    slightly wider stand-in for :func:`critical_value` where thousands of rule sets are summarised at once."""
    return float(NormalDist().inv_cdf((1 + level ** (1 / m)) / 2))


def summarise(dev: ArrayLike, se: ArrayLike, cov: ArrayLike | None) -> tuple[float, float, float, int, int, float]:
    """(largest |dev|, lo, hi, outcome index, seat, critical value) of ``dev`` (2, players) (module doc); ``cov``
    None takes Šidák's value instead of the simulated one."""
    d, s = np.asarray(dev, np.float64), np.asarray(se, np.float64)
    a = np.abs(d)
    if not np.isfinite(a).any():
        return float("nan"), float("nan"), float("nan"), 0, 0, float("nan")
    # ties (two players: a seat's win and the other's дурак are one number) go to the favourable side: a share
    # above the fair one on wins, below it on the дурак
    favourable = np.zeros_like(d, bool)
    favourable[0], favourable[1] = d[0] > 0, d[1] < 0
    key = np.where(np.isnan(a), -1.0, a + 1e-12 * favourable)
    flat = int(np.argmax(key))
    o, k = divmod(flat, d.shape[1])
    c = critical_value(cov) if cov is not None else sidak_value(d.size)
    lo = nanmax(np.clip(a - c * s, 0.0, None))
    hi = nanmax(a + Z95_ONE_SIDED * s)
    return float(a.flat[flat]), lo, hi, o, k, c


def _build(players: int, wins: FloatArray, losses: FloatArray, decided: float, n: float, se: FloatArray,
           cov: FloatArray | None) -> Fairness:
    fair = 1.0 / players
    w = stats.wilson(wins, np.full(players, decided))
    lo_ = stats.wilson(losses, np.full(players, decided))
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = np.stack([wins / decided, losses / decided]) - fair
    value, lo, hi, o, k, c = summarise(dev, se, cov)
    return Fairness(players, float(decided), float(n), w.rate, w.lo, w.hi, lo_.rate, lo_.lo, lo_.hi, dev, se, c,
                    value, lo, hi, k, OUTCOMES[o])


def from_decks(winner: ArrayLike, durak: ArrayLike, players: int, exact: bool = True) -> Fairness:
    """Fairness from each deck's winner and дурак position (``-1``: none, a capped deal).

    Shares are ratios (count / decided); their variances and covariances come from the linearised residuals
    ``(y - r d) / mean(d)`` over decks, so the simultaneous value knows how the deviations move together
    (``exact=False``: Šidák's value, :func:`sidak_value`, for the many rule sets of a search).
    """
    w = np.asarray(winner, np.int64)
    lo = np.asarray(durak, np.int64)
    n = len(w)
    seats = np.arange(players)
    ind = np.concatenate([(w[:, None] == seats), (lo[:, None] == seats)], axis=1).astype(np.float64)  # (n, 2p)
    dec = (w >= 0).astype(np.float64)
    total = dec.sum()
    if n < 2 or total == 0:
        nan = np.full((2, players), np.nan)
        return _build(players, ind[:, :players].sum(0), ind[:, players:].sum(0), total, n, nan,
                      np.full((2 * players, 2 * players), np.nan))
    r = ind.sum(0) / total
    resid = (ind - dec[:, None] * r) / dec.mean()
    cov = np.cov(resid, rowvar=False) / n
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None)).reshape(2, players)
    return _build(players, ind[:, :players].sum(0), ind[:, players:].sum(0), total, n, se, cov if exact else None)


def from_counts(wins: ArrayLike, losses: ArrayLike, decided: float, players: int, n: float | None = None
                ) -> Fairness:
    """Fairness from stored sums: each seat's wins and дурак counts among ``decided`` deals (module doc)."""
    w, lo = np.asarray(wins, np.float64), np.asarray(losses, np.float64)
    d = float(decided)
    blocks = []
    for x in (w, lo):
        p = x / d if d > 0 else np.full(players, np.nan)
        blocks.append((np.diag(p) - np.outer(p, p)) / max(d, 1.0))
    cov = np.zeros((2 * players, 2 * players))
    cov[:players, :players], cov[players:, players:] = blocks
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None)).reshape(2, players)
    return _build(players, w, lo, d, d if n is None else float(n), se, cov)


def point(winner: NDArray[Any], durak: NDArray[Any], players: int) -> float:
    """The summary's point estimate alone (no interval): the search ranks thousands of rule sets on it."""
    w = np.asarray(winner)
    dec = float((w >= 0).sum())
    if dec == 0:
        return float("nan")
    wins = np.bincount(w[w >= 0].astype(np.int64), minlength=players)[:players]
    d = np.asarray(durak)
    losses = np.bincount(d[d >= 0].astype(np.int64), minlength=players)[:players]
    return float(np.abs(np.concatenate([wins, losses]) / dec - 1.0 / players).max())
