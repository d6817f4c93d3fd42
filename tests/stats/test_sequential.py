"""Sequential stopping: the stop lands where the arithmetic says, SPRT errors near nominal,
never before the minimum, the same for any batch (``--jobs``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from analyzer.stats.intervals import Z95
from analyzer.stats.sequential import SequentialError, Sprt, UntilCI, run_sequential

VALUES = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])  # per-deck margins of a 2-player pair over two seatings


def alternating(size: int) -> Callable[[int], np.ndarray]:
    """+1, -1, +1, ... on every chunk: mean 0 and a known variance at every chunk boundary."""
    return lambda k: np.tile([1.0, -1.0], size // 2)


def margins(mean: float, seed: int, size: int) -> Callable[[int], np.ndarray]:
    """Chunk k: ``size`` per-deck margins with the given mean, seeded by (seed, k) only."""
    base = np.array([0.1, 0.2, 0.4, 0.2, 0.1])  # mean 0
    lo, hi = -10.0, 10.0
    for _ in range(60):
        t = (lo + hi) / 2
        p = base * np.exp(t * VALUES)
        p /= p.sum()
        lo, hi = (t, hi) if p @ VALUES < mean else (lo, t)  # the exponential tilt of base with this mean

    def chunk(k: int) -> np.ndarray:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))
        return rng.choice(VALUES, size=size, p=p)
    return chunk


def test_until_ci_stops_at_the_first_boundary_where_the_interval_is_narrow_enough() -> None:
    # n decks of +-1 alternating: variance n/(n-1), half-width 1.96 sqrt(1/(n-1)); <= 0.1 first at n-1 >= 384.2
    need = math.ceil((Z95 / 0.1) ** 2 + 1)
    res = run_sequential(alternating(100), UntilCI(0.1), max_chunks=50)
    assert res.verdict == "precise" and res.stopped
    assert res.deals == 100 * math.ceil(need / 100) == 400 and res.chunks == 4
    assert res.history["half_width"].iloc[-1] <= 0.1 < res.history["half_width"].iloc[-2]
    assert res.history["deals"].tolist() == [100, 200, 300, 400]


def test_until_ci_waits_for_every_column() -> None:
    def chunk(k: int) -> np.ndarray:
        x = np.tile([1.0, -1.0], 50)
        return np.column_stack([x * 0.1, x])  # the second column is 10x noisier
    res = run_sequential(chunk, UntilCI(0.1), max_chunks=50)
    assert res.deals == 400 and res.data.shape == (400, 2)


def test_never_stops_before_the_minimum() -> None:
    res = run_sequential(alternating(100), UntilCI(0.1), max_chunks=50, min_deals=1001)
    assert res.deals == 1100 and res.verdict == "precise"
    strong = margins(0.6, seed=1, size=10)
    assert run_sequential(strong, Sprt.better_by(0.1), max_chunks=500).deals < 100
    res = run_sequential(strong, Sprt.better_by(0.1), max_chunks=500, min_deals=500)
    assert res.deals == 500 and res.verdict == "H1"


def test_budget_runs_out_undecided() -> None:
    res = run_sequential(alternating(10), UntilCI(0.01), max_chunks=7)
    assert res.verdict == "budget" and not res.stopped and res.deals == 70 and res.chunks == 7
    # identical strategies: every difference 0, a symmetric SPRT never leans either way
    res = run_sequential(lambda k: np.zeros(20), Sprt.better_by(0.05), max_chunks=30)
    assert res.verdict == "budget" and res.deals == 600


def reversed_mapper(f, idx):
    """Computes the chunks last first (as parallel jobs may finish), returns them in the order asked."""
    done = {k: f(k) for k in reversed(list(idx))}
    return [done[k] for k in idx]


@pytest.mark.parametrize("rule", [UntilCI(0.08), Sprt.better_by(0.05), Sprt(0.0, 0.1, 0.1, 0.2)])
def test_the_same_answer_for_any_batch_size(rule) -> None:
    chunk = margins(0.04, seed=7, size=25)
    first = run_sequential(chunk, rule, max_chunks=400, min_deals=50)
    assert first.stopped
    with ThreadPoolExecutor(3) as pool:
        for batch, mapper in [(2, None), (3, reversed_mapper), (7, pool.map), (64, reversed_mapper)]:
            other = run_sequential(chunk, rule, max_chunks=400, min_deals=50, batch=batch, mapper=mapper)
            assert (other.verdict, other.deals, other.chunks) == (first.verdict, first.deals, first.chunks)
            assert (other.data == first.data).all()
            assert other.history.equals(first.history)
            assert other.discarded <= 25 * (batch - 1)


def sprt_rate(mean: float, rule: Sprt, reps: int, size: int = 10) -> tuple[float, float]:
    """Share of runs accepting H1, and the mean decks used, over ``reps`` seeds."""
    h1, decks = 0, 0
    for rep in range(reps):
        res = run_sequential(margins(mean, seed=1000 + rep, size=size), rule, max_chunks=2000, min_deals=20)
        assert res.stopped
        h1 += res.verdict == "H1"
        decks += res.deals
    return h1 / reps, decks / reps


def test_sprt_error_rates_are_near_nominal() -> None:
    rule = Sprt.better_by(0.1, alpha=0.1, beta=0.1)
    false_h1, n0 = sprt_rate(-0.1, rule, 300)  # H0 true: alpha
    power, n1 = sprt_rate(0.1, rule, 300)  # H1 true: 1 - beta
    assert 0.03 <= false_h1 <= 0.13  # measured 0.06: chunk-boundary overshoot makes it a little conservative
    assert 0.87 <= power <= 0.98  # measured 0.96
    middle, _ = sprt_rate(0.0, rule, 100)  # inside the indifference zone: either answer, about evenly
    assert 0.3 <= middle <= 0.7
    # Wald's average sample number under H0: ((1 - alpha) log A + alpha log B) / E[step], variance 0.3
    lo, hi = rule.bounds
    wald = (0.9 * lo + 0.1 * hi) / (-(0.2 ** 2) / (2 * 0.3))
    assert wald <= n0 <= 2.5 * wald and wald <= n1 <= 2.5 * wald  # min 20 decks and chunks of 10 add some


def test_sprt_statistic_is_the_documented_formula() -> None:
    rule = Sprt(0.0, 0.2, alpha=0.05, beta=0.1)
    x = np.array([0.5, -0.5, 1.0, 0.0, 0.5])
    res = run_sequential(lambda k: x, rule, max_chunks=1)
    var = x.var(ddof=1)
    assert res.history["llr"].iloc[0] == pytest.approx(0.2 / var * (x.sum() - 5 * 0.1))
    assert rule.bounds == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize(("make", "words"), [
    (lambda: UntilCI(0), "half-width must be a positive number, got 0"),
    (lambda: UntilCI(float("nan")), "half-width must be a positive number"),
    (lambda: Sprt(0.1, 0.0), "mu0 < mu1"),
    (lambda: Sprt(0.0, 0.1, alpha=0.7), "alpha must lie between 0 and 0.5, got 0.7"),
    (lambda: Sprt.better_by(-1), "delta must be positive"),
    (lambda: run_sequential(lambda k: np.zeros(3), UntilCI(1), max_chunks=0), "max_chunks >= 1"),
    (lambda: run_sequential(lambda k: np.zeros((3, 2)), Sprt.better_by(0.1), max_chunks=3), "one column"),
    (lambda: run_sequential(lambda k: np.arange(3.0 * (k + 1)).reshape(3, k + 1), UntilCI(1e-9), max_chunks=3),
     r"chunk 1: expected \(decks,\) or \(decks, 1\)"),
])
def test_bad_rules_are_one_line_errors(make, words: str) -> None:
    with pytest.raises(SequentialError, match=words):
        make()
