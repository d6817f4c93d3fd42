"""Every rule option is documented once, with its rule ids and allowed values."""

from __future__ import annotations

from pathlib import Path

from analyzer.core.option_docs import MEANING
from analyzer.core.rules import OPTIONS, expected_values

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_every_option_has_one_meaning_and_no_stale_entry() -> None:
    assert set(MEANING) == set(OPTIONS)


def test_docs_rules_md_lists_every_option() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [o for o in OPTIONS if f"`{o}`" not in text]
    assert missing == []


def test_allowed_values_read_as_a_user_types_them() -> None:
    assert expected_values("sevens") == "on/off"
    assert expected_values("seven_chain") == "transfer | accumulate"
    assert expected_values("hand_size") == "1..10"
    assert expected_values("deck_size") == "32 | 36 | 48 | 52"
    assert expected_values("target").endswith("or none")


def test_durak_rules_prints_value_allowed_values_and_meaning_of_every_option() -> None:
    from typer.testing import CliRunner

    from analyzer.cli.app import app
    from analyzer.core.rules import make_rules

    out = CliRunner().invoke(app, ["rules", "svinya"])
    assert out.exit_code == 0, out.output
    lines = {line.split()[0]: line for line in out.output.splitlines()[1:] if line.strip()}
    assert set(lines) == set(make_rules("svinya", 2).options())
    assert "draw_until_play" in lines["no_card"] and "(G6, SV4)" in lines["no_card"]
    assert "a hand of exactly one wild" in lines["lone_wild_points"]
