"""Stop when the answer is known: stopping rules checked after each chunk of decks.

The data are per-deck *paired differences* (strategy A's score minus B's on
the same deck, common random numbers), one row per deck; ``until_ci`` also
takes several columns (every pair of a tournament cell) and waits for all.

Rules
-----
:class:`UntilCI` ``(half_width)``
    Stop once the 95 % normal interval of the mean difference is no wider than
    ``± half_width`` in every column (the data's units: ``--until-ci 0.5`` in
    points of win rate is ``half_width=0.005`` on win shares).  The rule looks
    at the spread only, not at the mean, so stopping on it hardly biases the
    estimate.
:class:`Sprt` ``(mu0, mu1, alpha, beta)``
    Wald's sequential probability ratio test of ``H0: mean = mu0`` against
    ``H1: mean = mu1`` (``mu0 < mu1``) for the mean of the per-deck
    differences, in the normal approximation with the variance estimated from
    all decks so far (the "generalised" SPRT that engine testers use):

        LLR_n = (mu1 - mu0) / s_n^2 * (S_n - n (mu0 + mu1) / 2)

    with ``S_n`` the sum and ``s_n^2`` the sample variance of the ``n``
    differences.  Accept H1 when ``LLR_n >= log((1 - beta) / alpha)``, accept
    H0 when ``LLR_n <= log(beta / (1 - alpha))``.  ``alpha`` is the chance of
    accepting H1 when the mean is ``mu0``, ``beta`` of accepting H0 when it is
    ``mu1``; between the two (the *indifference zone*) either answer may come.
    With ``mu0 = -delta`` and ``mu1 = +delta`` it decides which of two
    strategies is better by ``delta``.  Checked only at chunk boundaries, the
    statistic overshoots the bounds a little, so the real error rates are at or
    slightly below the stated ones.

Driver
------
:func:`run_sequential` asks ``run_chunk(k)`` for chunk ``k = 0, 1, 2, ...``
(``batch`` at a time, e.g. one per job, through any ``mapper`` that returns
results in the order asked) and checks the rule at each chunk boundary *in
index order*.  It stops at the first boundary where the rule is met and at
least ``min_deals`` decks are in; chunks computed after it in the same batch
are discarded.  So the answer, and the number of decks it took, depend on the
data (the seed) alone, never on ``batch`` or ``--jobs``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from analyzer.stats.intervals import Z95

FloatArray = NDArray[np.float64]
#: A variance below this counts as this (identical results on every deck would divide by 0).
VAR_FLOOR = 1e-12


class SequentialError(ValueError):
    """A stopping rule or budget that cannot work (one line)."""


@dataclass(frozen=True)
class Running:
    """Sums over the decks so far, per column: enough for means, intervals and the SPRT statistic."""

    n: int
    total: FloatArray
    total_sq: FloatArray

    def add(self, x: FloatArray) -> Running:
        return Running(self.n + x.shape[0], self.total + x.sum(axis=0), self.total_sq + (x * x).sum(axis=0))

    @property
    def mean(self) -> FloatArray:
        return self.total / self.n if self.n else np.full_like(self.total, np.nan)

    @property
    def var(self) -> FloatArray:
        if self.n < 2:
            return np.full_like(self.total, np.nan)
        return np.maximum((self.total_sq - self.total * self.total / self.n) / (self.n - 1), 0.0)

    @property
    def half_width(self) -> FloatArray:
        """95 % normal half-width of each column's mean."""
        return Z95 * np.sqrt(self.var / self.n) if self.n >= 2 else np.full_like(self.total, np.inf)


class Rule(Protocol):
    """A stopping rule: the verdict at a chunk boundary, or None to go on."""

    def check(self, run: Running) -> str | None: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class UntilCI:
    """Stop when every column's 95 % half-width is at most ``half_width`` (module doc)."""

    half_width: float

    def __post_init__(self) -> None:
        if not (isinstance(self.half_width, (int, float)) and math.isfinite(self.half_width) and self.half_width > 0):
            raise SequentialError(f"the target half-width must be a positive number, got {self.half_width!r}")

    def check(self, run: Running) -> str | None:
        return "precise" if run.n >= 2 and bool((run.half_width <= self.half_width).all()) else None

    def describe(self) -> str:
        return f"until the 95% interval is within ±{self.half_width:g}"


@dataclass(frozen=True)
class Sprt:
    """Wald's SPRT of mean ``mu0`` against ``mu1`` with error rates ``alpha``, ``beta`` (module doc)."""

    mu0: float
    mu1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0 < v < 0.5:
                raise SequentialError(f"SPRT {name} must lie between 0 and 0.5, got {v}")
        if not self.mu0 < self.mu1:
            raise SequentialError(f"SPRT needs mu0 < mu1 (an indifference zone), got mu0={self.mu0}, mu1={self.mu1}")

    @classmethod
    def better_by(cls, delta: float, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
        """Which of two strategies is better by ``delta``: H0 mean −delta (B better), H1 +delta (A better)."""
        if not delta > 0:
            raise SequentialError(f"the SPRT margin delta must be positive, got {delta}")
        return cls(-delta, delta, alpha, beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of the log-likelihood ratio: accept H0 at or below, H1 at or above."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, run: Running) -> float:
        if run.n < 2:
            return 0.0
        if run.total.shape != (1,):
            raise SequentialError(f"the SPRT compares one pair: one column of differences, got {run.total.size}")
        var = max(float(run.var[0]), VAR_FLOOR)
        return (self.mu1 - self.mu0) / var * (float(run.total[0]) - run.n * (self.mu0 + self.mu1) / 2)

    def check(self, run: Running) -> str | None:
        lo, hi = self.bounds
        z = self.llr(run)
        return "H1" if z >= hi else "H0" if z <= lo else None

    def describe(self) -> str:
        return (f"SPRT of mean {self.mu0:g} (H0) against {self.mu1:g} (H1), alpha={self.alpha:g}, "
                f"beta={self.beta:g}")


@dataclass
class SequentialResult:
    """Where a sequential run stopped and what it had seen.

    ``verdict``: the rule's answer ("precise", "H0", "H1") or "budget" when the
    chunks ran out first; ``chunks`` and ``deals`` count what was used;
    ``discarded`` the decks computed in the last batch after the stop;
    ``data`` the used per-deck differences (deals, columns); ``history`` one row
    per chunk boundary checked.
    """

    verdict: str
    chunks: int
    deals: int
    discarded: int
    rule: str
    data: FloatArray
    history: pd.DataFrame = field(repr=False)

    @property
    def stopped(self) -> bool:
        """True when the rule decided (not the budget)."""
        return self.verdict != "budget"

    @property
    def mean(self) -> FloatArray:
        return self.data.mean(axis=0)


def _as_rows(x: ArrayLike, k: int, width: int | None) -> FloatArray:
    a = np.asarray(x, dtype=np.float64)
    a = a[:, None] if a.ndim == 1 else a
    if a.ndim != 2 or (width is not None and a.shape[1] != width):
        raise SequentialError(f"chunk {k}: expected (decks,) or (decks, {width or 'columns'}) differences, "
                              f"got shape {np.shape(x)}")
    return a


def run_sequential(run_chunk: Callable[[int], ArrayLike], rule: Rule, *, max_chunks: int, min_deals: int = 0,
                   batch: int = 1,
                   mapper: Callable[[Callable[[int], ArrayLike], Sequence[int]], Iterable[ArrayLike]] | None = None,
                   ) -> SequentialResult:
    """Run chunks 0, 1, ... until ``rule`` stops at a boundary with at least ``min_deals`` decks in.

    Args:
        run_chunk: chunk index -> (decks,) or (decks, columns) per-deck differences; must depend on the
            index (and the seed) only.
        rule: :class:`UntilCI`, :class:`Sprt` or any :class:`Rule`.
        max_chunks: the budget; ``verdict == "budget"`` when it runs out undecided.
        min_deals: no verdict before this many decks.
        batch: chunks asked for at once (e.g. ``--jobs``); never changes the answer.
        mapper: ``mapper(run_chunk, indices)`` -> results in the order of ``indices`` (default: ``map``).
    """
    if max_chunks < 1 or batch < 1 or min_deals < 0:
        raise SequentialError(f"need max_chunks >= 1, batch >= 1 and min_deals >= 0, got {max_chunks}, {batch}, "
                              f"{min_deals}")
    apply = mapper or (lambda f, idx: map(f, idx))
    used: list[FloatArray] = []
    run: Running | None = None
    rows = []
    verdict, nxt, discarded = "budget", 0, 0
    while nxt < max_chunks and verdict == "budget":
        idx = list(range(nxt, min(nxt + batch, max_chunks)))
        results = list(apply(run_chunk, idx))
        if len(results) != len(idx):
            raise SequentialError(f"the mapper returned {len(results)} results for {len(idx)} chunks")
        for pos, (k, res) in enumerate(zip(idx, results)):
            x = _as_rows(res, k, None if run is None else run.total.size)
            run = (run or Running(0, np.zeros(x.shape[1]), np.zeros(x.shape[1]))).add(x)
            used.append(x)
            said = rule.check(run) if run.n >= min_deals else None
            llr = rule.llr(run) if isinstance(rule, Sprt) else math.nan
            rows.append({"chunk": k, "deals": run.n, "mean": float(run.mean.mean()) if run.total.size == 1 else
                         math.nan, "half_width": float(run.half_width.max()), "llr": llr})
            if said is not None:
                verdict = said
                discarded = sum(_as_rows(r, j, None).shape[0] for j, r in zip(idx[pos + 1:], results[pos + 1:]))
                break
        nxt = idx[-1] + 1
    data = np.concatenate(used) if used else np.zeros((0, 1))
    return SequentialResult(verdict=verdict, chunks=len(used), deals=int(data.shape[0]), discarded=discarded,
                            rule=rule.describe(), data=data, history=pd.DataFrame(rows))


def stopping_summary(seq: SequentialResult, rule: Rule, chunk: int, budget: int) -> dict[str, Any]:
    """The JSON ``stopping`` record of a run: rule, verdict, decks used (``chunk`` per check, ``budget`` at most),
    decks discarded past the stop, the largest half-width and, for the SPRT, its statistic and bounds.
    The caller adds ``deals`` (decks times the line-ups each deck was played by)."""
    out: dict[str, Any] = {"rule": seq.rule, "verdict": seq.verdict, "stopped": seq.stopped, "decks": seq.deals,
                           "chunks": seq.chunks, "chunk_decks": chunk, "budget_decks": budget,
                           "discarded_decks": seq.discarded, "half_width": float(seq.history["half_width"].iloc[-1])}
    if isinstance(rule, Sprt):
        out.update(llr=float(seq.history["llr"].iloc[-1]), bounds=list(rule.bounds), alpha=rule.alpha,
                   beta=rule.beta, mu0=rule.mu0, mu1=rule.mu1)
    return out
