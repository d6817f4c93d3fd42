"""Chunk summaries (analyzer.stats.sums.summarize) and the exact wild-holding figures they feed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer.core.outcomes import DealResults
from analyzer.stats import tables
from analyzer.stats.sums import summarize
from tests.stats.test_tables import write_results


def _deals() -> DealResults:
    """Three deals, two positions, with known winners, points and wild holders."""
    return DealResults(
        points=np.array([[0, 12], [7, 0], [20, 0]], np.int16),
        went_out=np.array([0, 1, -1], np.int8), winner=np.array([0, 1, 1], np.int8),
        loser=np.array([1, 0, -1], np.int8), loser_by_wild=np.array([False, True, False]),
        wild_held=np.array([[False, True], [True, False], [False, False]]),
        end=np.array([0, 0, 2], np.int8), turns=np.array([10, 20, 2000], np.int32),
        last_card=np.array([5, 6, -1], np.int8), turnovers=np.array([0, 1, 9], np.int16))


def test_summarize_counts_and_sums_by_position():
    t = summarize(_deals(), ["a", "b"])
    pos = t["positions"]
    assert pos["wins"].tolist() == [1.0, 2.0] and pos["losses"].tolist() == [1.0, 1.0]
    assert pos["losses_by_wild"].tolist() == [1.0, 0.0]  # G10 capped deal 2 has no loser
    assert pos["points_sum"].tolist() == [27, 12] and pos["points_sq"].tolist() == [449, 144]
    tot = t["totals"].iloc[0]
    assert (tot["n"], tot["capped"], tot["turns_sum"], tot["turnovers_sum"]) == (3, 1, 2030, 10)


def test_summarize_stores_exact_wild_holding_figures():
    tot = summarize(_deals(), ["a", "b"])["totals"].iloc[0]
    assert tot["wild_any"] == 2          # deals 0 and 1 end with a wild in some hand
    assert tot["wild_hands"] == 2
    assert tot["wild_points_sum"] == 12 + 7


def test_wild_summary_uses_exact_share_and_wild_hand_points(tmp_path):
    d = write_results(tmp_path)
    tot = pd.read_parquet(d / "results" / "totals.parquet")
    tot["wild_any"] = (tot["n"] * 0.25).round()
    tot["wild_hands"] = tot["wild_any"]
    tot["wild_points_sum"] = tot["wild_hands"] * 30
    tot["wild_rest_hands"], tot["wild_rest_points_sum"] = tot["wild_hands"], tot["wild_points_sum"]
    tot.to_parquet(d / "results" / "totals.parquet", index=False)
    ws = tables.wild_summary(tables.load_results(d))
    assert (ws["any_lo"] == ws["any_hi"]).all()
    assert ws["any_lo"].to_numpy() == pytest.approx((tot["wild_any"] / tot["n"]).to_numpy())
    assert ws["wild_hand_points"].to_numpy() == pytest.approx(30.0)
