"""Quantities the rules fix at 0 say why where they are shown; the note is never claimed where it does not hold."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.rules import make_rules
from analyzer.report.footnotes import first_never_holds_wild, wild_held_notes


def _simulate(*args: str) -> dict:
    res = CliRunner().invoke(app, ["simulate", "--deals", "3000", "--jobs", "1", "--json", "-q", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize("args", [["--players", "2"], ["--players", "4", "--strategies", "weighted,random"],
                                  ["--players", "3", "--rule", "hand_size=6", "--rule", "reshuffle=shuffle"]])
def test_czech_position_0_never_ends_a_deal_holding_a_wild_and_the_table_says_why(args: list[str]) -> None:
    out = _simulate(*args)
    assert out["wild_held_rate"][0] == 0 and max(out["wild_held_rate"][1:]) > 0
    assert len(out["notes"]) == 1 and "Position 0's wild held % is 0 by the rules" in out["notes"][0]
    table = CliRunner().invoke(app, ["simulate", "--deals", "200", "--jobs", "1", "-q", *args]).stdout
    assert "wild held % [95% CI]*" in table and "* Position 0's wild held % is 0 by the rules" in table


@pytest.mark.parametrize("rule", ["sevens=on", "queen_needs_king=on"])
def test_where_the_rules_allow_it_position_0_does_end_holding_a_wild_and_no_note_is_claimed(rule: str) -> None:
    out = _simulate("--players", "3", "--rule", rule)
    assert out["wild_held_rate"][0] > 0 and out["notes"] == []


def test_the_note_is_for_single_czech_deals_only() -> None:
    assert first_never_holds_wild(make_rules("czech", 4))
    assert not any(first_never_holds_wild(make_rules(v)) for v in ("prague", "svinya"))
    assert wild_held_notes(make_rules("czech", 4), "match") == []


def test_the_report_marks_position_0_of_czech_deals_and_says_why() -> None:
    """The committed quick run's per-position table: czech position 0 (0.000%) is marked, nothing else is."""
    from pathlib import Path

    from analyzer.report import display
    from analyzer.stats import tables

    res = tables.load_results(Path(__file__).resolve().parents[2] / "reports" / "quick")
    shown = display.show_wild_positions(tables.wild_by_position(res))
    marked = shown[shown["held a wild at the end [95% CI]"].str.endswith("*")]
    assert len(marked) == 6 and set(marked["position"]) == {0} and set(marked["cell"].str[:5]) == {"czech"}
    assert all(x.startswith("0.000%") for x in marked["held a wild at the end [95% CI]"])
