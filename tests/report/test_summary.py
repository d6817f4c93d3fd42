"""The first screen of a report: the headline sentences say what the tables hold."""

from __future__ import annotations

from pathlib import Path

from analyzer.report.format import pct
from analyzer.report.summary import first_player_panel, jack_panel
from analyzer.stats import tables

ROOT = Path(__file__).resolve().parents[2]


def test_jack_headline_names_the_cell_where_being_dealt_a_wild_matters_most() -> None:
    """Without a pair that differs in wild handling alone, the Jack panel answers with being
    dealt a wild against none (randomised by the shuffle), in the cell with the widest gap, and names the
    experiment that compares keeping with shedding."""
    res = tables.load_results(ROOT / "reports" / "first_player")
    eff = tables.jack_effects(res)
    d = eff[(eff["unit"] == "deal") & eff["dealt_gap"].notna()]
    top = d.loc[d["dealt_gap"].abs().idxmax()]
    panel = jack_panel(res)
    assert panel is not None
    assert f"{top['variant']} {int(top['players'])}p deals" in panel.sentence
    assert pct(top["dealt_with_rate"]) in panel.sentence and pct(top["dealt_none_rate"]) in panel.sentence
    assert "experiments/wild_penalty.toml" in panel.sentence


def test_first_player_headline_names_the_largest_advantage() -> None:
    res = tables.load_results(ROOT / "reports" / "first_player")
    panel = first_player_panel(res)
    fpa = tables.first_player_advantage(res, pooled=True)
    best = fpa.loc[fpa["ratio"].idxmax()]
    assert panel is not None and f"**{best['variant']} {int(best['players'])}p**" in panel.sentence


def test_other_cells_gaps_read_with_natural_signs() -> None:
    """The sentence says "lowers the rate by 0.4–18.1 points", never "runs from -18.1 to +0.6"."""
    import pandas as pd

    from analyzer.report.summary import _spread

    text = _spread(pd.Series([-0.181, -0.004, 0.006]))
    assert text == "lowers the rate by 0.4–18.1 points in 2 cells and raises it by 0.6 points in 1 cell"
    assert "-" not in text and "+" not in text
    assert _spread(pd.Series([0.02])) == "raises it by 2.0 points in 1 cell"


def test_a_lineup_shared_by_every_sentence_is_named_once() -> None:
    """Sentences name a cell once, not the whole line-up in every bullet."""
    from analyzer.report.sentences import name_once

    lines = ["In czech with 4 players (wild_rule=deal; a and b rotated over 2 seatings) the first player wins 29%.",
             "In prague with 4 players (a and b rotated over 2 seatings) the first player wins 24%."]
    assert name_once(lines) == ["Every cell below seats a and b, rotated over 2 seatings.",
                                "In czech with 4 players (wild_rule=deal) the first player wins 29%.",
                                "In prague with 4 players the first player wins 24%."]
    mixed = [lines[0], lines[1].replace("a and b", "a and c")]
    assert name_once(mixed) == mixed  # different line-ups stay in their sentences
    assert name_once(lines[:1]) == lines[:1]
