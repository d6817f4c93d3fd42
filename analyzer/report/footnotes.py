"""Footnotes for quantities that the rules fix at 0 or 100%, so that a table never shows a puzzle.

Each note is tied to a predicate on the rules that proves it (docs/rules.md, "What the reports count"); a test
plays the rule sets where the predicate holds and where it fails, so the note is never claimed wrongly.
"""

from __future__ import annotations

from analyzer.core.rules import RulesError, RuleSet, make_rules, parse_description


def first_never_holds_wild(rules: RuleSet) -> bool:
    """Position 0 never ends a single deal holding a wild.

    Dealt a wild, a player always has a legal card (G4 ``wild_on_anything``, and no ``queen_needs_king``), so it
    plays on every turn (G7: no voluntary draw) and nothing makes it draw or skip (no penalty cards: czech without
    ``sevens``, ``eight_stop`` or ``last_card_call``); a wild drawn later is played at once (G6 ``draw_one``).
    So it sheds one card a turn from its first turn on, and position 0, first in every round, goes out before
    anyone else can: it never ends a deal still holding the wild.
    """
    return (rules.variant == "czech" and rules.wild_on_anything and not rules.queen_needs_king
            and not rules.voluntary_draw and rules.no_card == "draw_one" and not rules.sevens
            and not rules.eight_stop and not rules.last_card_call)


#: The footnote of a "wild held" column where :func:`first_never_holds_wild` marks position 0's value.
WILD_HELD_NOTE = ("* Position 0's wild held % is 0 by the rules, not by chance: a player dealt a wild always has a "
                  "legal card (G4), must play one (G7) and is never made to draw in these rules, so it plays a card "
                  "every turn; acting first in every round, position 0 goes out before anyone else can, and a wild "
                  "it draws is played at once (G6). See docs/rules.md, \"What the reports count\".")


def wild_held_notes(rules: RuleSet, unit: str) -> list[str]:
    """The footnotes of a table showing "wild held %" by position."""
    return [WILD_HELD_NOTE] if unit == "deal" and first_never_holds_wild(rules) else []


def wild_held_by_rule(variant: str, players: int, rules_text: str, unit: str, position: int) -> bool:
    """Whether a stored row (a results table's variant, players, rules text, unit) is position 0's wild held
    that :func:`first_never_holds_wild` fixes at 0."""
    if position != 0 or unit != "deal":
        return False
    try:
        rules = make_rules(variant, int(players), parse_description(rules_text), inactive_ok=True)
    except RulesError:
        return False
    return first_never_holds_wild(rules)
