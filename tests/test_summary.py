"""The first screen of a report (issue 15 item 1): the headline sentences say what the tables hold."""

from __future__ import annotations

from pathlib import Path

from analyzer.report.format import pct
from analyzer.report.summary import first_player_panel, jack_panel
from analyzer.stats import tables

ROOT = Path(__file__).resolve().parents[1]


def test_jack_headline_counts_deals_with_a_wild_left_not_wild_holders() -> None:
    res = tables.load_results(ROOT / "reports" / "first_player")
    ws = tables.wild_summary(res, pooled=True)
    share = ws["wild_any"] / ws["n"]
    top = ws.loc[share.idxmax()]
    panel = jack_panel(res)
    assert panel is not None
    assert f"**{pct(top['wild_any'] / top['n'])}** of {top['variant']} {int(top['players'])}p" in panel.sentence
    assert pct(top["by_wild_rate"]) in panel.sentence  # the rule decides at most the deals with a wild left
    assert top["by_wild_rate"] <= top["wild_any"] / top["n"]


def test_first_player_headline_names_the_largest_advantage() -> None:
    res = tables.load_results(ROOT / "reports" / "first_player")
    panel = first_player_panel(res)
    fpa = tables.first_player_advantage(res, pooled=True)
    best = fpa.loc[fpa["ratio"].idxmax()]
    assert panel is not None and f"**{best['variant']} {int(best['players'])}p**" in panel.sentence
