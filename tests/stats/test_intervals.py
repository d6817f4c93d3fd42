"""Interval arithmetic checked against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.stats import intervals as stats
from analyzer.stats.intervals import t_quantile


def test_wilson_50_of_100_is_0403_to_0596() -> None:
    r = stats.wilson(50, 100)
    assert float(r.rate) == 0.5 and float(r.n) == 100
    assert float(r.lo) == pytest.approx(0.4038, abs=1e-4)
    assert float(r.hi) == pytest.approx(0.5962, abs=1e-4)


def test_wilson_zero_successes_has_zero_lower_bound_and_positive_upper() -> None:
    # 0/10: upper = z^2/n / (1 + z^2/n) = 3.8415/13.8415
    r = stats.wilson(0, 10)
    assert float(r.lo) == 0.0
    assert float(r.hi) == pytest.approx(3.8415 / 13.8415, abs=1e-4)


def test_wilson_n_zero_is_nan_not_error() -> None:
    r = stats.wilson([0, 5], [0, 10])
    assert np.isnan(r.rate[0]) and np.isnan(r.lo[0]) and np.isnan(r.hi[0])
    assert r.rate[1] == 0.5


def test_wilson_accepts_fractional_counts_from_shared_match_wins() -> None:
    r = stats.wilson(4.5, 10)
    assert float(r.rate) == pytest.approx(0.45)
    assert float(r.lo) < 0.45 < float(r.hi)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=10**6), st.floats(min_value=0, max_value=1))
def test_wilson_interval_contains_rate_and_stays_in_unit_interval(n: int, share: float) -> None:
    k = round(share * n)
    r = stats.wilson(k, n)
    assert 0.0 <= float(r.lo) <= float(r.rate) + 1e-12
    assert float(r.rate) - 1e-12 <= float(r.hi) <= 1.0


def test_rate_frame_has_rate_lo_hi_n_columns() -> None:
    f = stats.rate_frame([50, 1], [100, 4], prefix="win_")
    assert list(f.columns) == ["win_rate", "win_lo", "win_hi", "win_n"]
    assert f["win_rate"].tolist() == [0.5, 0.25]


def test_difference_of_proportions_hand_computed() -> None:
    # 0.6 (n=100) - 0.5 (n=100): se = sqrt(.24/100 + .25/100) = 0.07
    d = stats.diff_proportions(0.6, 100, 0.5, 100)
    assert float(d.est) == pytest.approx(0.1)
    assert float(d.se) == pytest.approx(0.07)
    assert float(d.lo) == pytest.approx(0.1 - 1.96 * 0.07, abs=1e-4)
    assert float(d.hi) == pytest.approx(0.1 + 1.96 * 0.07, abs=1e-4)


def test_difference_against_a_constant_fair_share_uses_one_variance() -> None:
    d = stats.diff_proportions(0.4, 1000, 1 / 3, np.inf)
    assert float(d.se) == pytest.approx(math.sqrt(0.24 / 1000))


def test_difference_within_one_multinomial_has_negative_covariance() -> None:
    # p1 = .5, p2 = .3, n = 1000: var = (.25 + .21 + .30)/1000
    d = stats.diff_multinomial(0.5, 0.3, 1000)
    assert float(d.se) == pytest.approx(math.sqrt(0.76 / 1000))


def test_ratio_delta_method_on_log_scale() -> None:
    # 0.6/0.5 with n=100 each: se(log) = sqrt(.4/60 + .5/50) = sqrt(1/60)
    r = stats.ratio_proportions(0.6, 100, 0.5, 100)
    se = math.sqrt(0.4 / 60 + 0.5 / 50)
    assert float(r.est) == pytest.approx(1.2)
    assert float(r.se) == pytest.approx(se)
    assert float(r.lo) == pytest.approx(1.2 * math.exp(-1.959964 * se))
    assert float(r.hi) == pytest.approx(1.2 * math.exp(1.959964 * se))


def test_ratio_with_zero_proportion_is_nan() -> None:
    assert np.isnan(float(stats.ratio_proportions(0.0, 10, 0.5, 10).lo))


def test_mean_from_sums_matches_numpy() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    m = stats.mean_from_sums(x.sum(), (x * x).sum(), x.size)
    assert float(m.est) == pytest.approx(x.mean())
    assert float(m.se) == pytest.approx(x.std(ddof=1) / math.sqrt(x.size))
    assert float(m.hi) - float(m.est) == pytest.approx(stats.Z95 * float(m.se))


def test_mean_from_sums_small_n_is_nan_not_error() -> None:
    m = stats.mean_from_sums([0, 5], [0, 25], [0, 1])
    assert np.isnan(m.est[0]) and m.est[1] == 5 and np.isnan(m.se[1])


def test_paired_difference_mean_and_interval() -> None:
    a = np.array([3.0, 4.0, 5.0, 6.0])
    b = np.array([1.0, 1.0, 1.0, 1.0])
    d = stats.paired_difference(a, b)
    assert float(d.est) == pytest.approx(3.5)
    assert float(d.se) == pytest.approx(np.std(a - b, ddof=1) / 2)
    assert float(d.n) == 4


def test_z_test_p_two_sided() -> None:
    p = stats.z_test_p([1.959964, 0.0, -2.575829], [1.0, 1.0, 1.0])
    assert p == pytest.approx([0.05, 1.0, 0.01], abs=1e-6)
    assert float(stats.z_test_p(0.6, 0.1, 0.5)) == pytest.approx(math.erfc(1 / math.sqrt(2)))


def test_holm_adjustment_hand_computed_and_order_kept() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = .02, .03, .06, .04 -> monotone .06
    adj = stats.holm([0.01, 0.04, 0.03, 0.005])
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])
    out = stats.holm([np.nan, 0.02])
    assert np.isnan(out[0]) and out[1] == pytest.approx(0.02)


def test_interval_containing_zero_is_not_distinguishable() -> None:
    got = stats.distinguishable([-0.1, 0.01, -0.3, np.nan], [0.1, 0.2, -0.01, 1.0])
    assert got.tolist() == [False, True, True, False]
    assert stats.distinguishable(0.9, 1.1, null=1.0).item() is False


def test_quantiles_from_histogram_lower_convention() -> None:
    q = stats.quantiles_from_hist([0, 1, 2, 3], [1, 1, 1, 1], [0.5, 0.9, 0.99])
    assert q.tolist() == [1.0, 3.0, 3.0]
    assert np.isnan(stats.quantiles_from_hist([0, 1], [0, 0], [0.5])[0])


@pytest.mark.parametrize("p, df, table", [(0.975, 1, 12.7062047), (0.975, 2, 4.30265273), (0.975, 3, 3.18244631),
                                          (0.975, 10, 2.22813885), (0.995, 5, 4.03214298), (0.95, 30, 1.69726089),
                                          (0.9, 4, 1.53320627), (0.975, 1e7, 1.95996422)])
def test_student_t_quantiles_are_the_tables(p: float, df: float, table: float) -> None:
    """The t-interval over a strategy's few draws (analyzer.exact.measure) takes its quantile from here, not
    scipy (which only an optional extra installs)."""
    assert t_quantile(p, df) == pytest.approx(table, rel=1e-7)
    assert t_quantile(1 - p, df) == pytest.approx(-table, rel=1e-7)


def test_a_t_quantile_outside_its_domain_is_refused() -> None:
    for p, df in ((0.0, 3), (1.0, 3), (0.9, 0)):
        with pytest.raises(ValueError, match="t_quantile"):
            t_quantile(p, df)
