"""Every rule option is documented once, with its rule ids and allowed values (issue 15 item 6)."""

from __future__ import annotations

from pathlib import Path

from analyzer.core.option_docs import MEANING, allowed_text
from analyzer.core.rules import OPTIONS

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_every_option_has_one_meaning_and_no_stale_entry() -> None:
    assert set(MEANING) == set(OPTIONS)


def test_docs_rules_md_lists_every_option() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [o for o in OPTIONS if f"`{o}`" not in text]
    assert missing == []


def test_allowed_values_read_as_a_user_types_them() -> None:
    assert allowed_text("sevens") == "on/off"
    assert allowed_text("seven_chain") == "transfer, accumulate"
    assert allowed_text("hand_size") == "1..10"
    assert allowed_text("deck_size") == "32, 36, 48, 52"
    assert allowed_text("target") == "points or none"
