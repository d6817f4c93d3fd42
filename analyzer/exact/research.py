"""Research sizes: two-player deals on a short deck, small enough to solve exactly.

These are *not* games of RULES.md: its decks have 32 to 52 cards (G1).  A research deck keeps the ranks that
make the variant what it is -- the wild first (G4), then the ranks with an effect (PR5, SV5; CZ8 when switched
on), highest first -- and fills up with the highest plain ranks, four suits each.  Everything else is the
variant's rules, with the hand size and a turn cap given (a short deck cycles through the pile often, G8; a
deal reaching the cap is capped, G10, and pays 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analyzer.core.cards import ACE, DECK_LOW_RANK, card_id
from analyzer.core.rules import RulesError, RuleSet, make_rules

#: The research sizes this project solves: (deck, hand) pairs, deck of 12 to 20 cards, hands of 2 to 4.
SIZES = ((12, 2), (16, 2), (16, 3), (20, 3), (20, 4))
#: Turns after which a research deal is capped (G10).
RESEARCH_TURN_CAP = 12


def research_ranks(rules: RuleSet, deck: int) -> tuple[int, ...]:
    """The ranks of a ``deck``-card research deck, in the order they were chosen (wild, effects, the highest)."""
    if deck % 4 or not 8 <= deck <= 52:
        raise RulesError(f"a research deck has 8 to 52 cards in whole ranks of four suits, not {deck}")
    low = DECK_LOW_RANK[32 if rules.variant == "czech" else 36]
    effects = [r for r in range(ACE, low - 1, -1) if r != rules.wild_rank
               and (rules.effects[r].draw or rules.effects[r].skip)]
    plain = [r for r in range(ACE, 1, -1) if r != rules.wild_rank and r not in effects]
    return tuple([rules.wild_rank, *effects, *plain][: deck // 4])


def research_cards(rules: RuleSet, deck: int) -> tuple[int, ...]:
    """The card ids of the research deck, sorted."""
    return tuple(sorted(card_id(r, s) for r in research_ranks(rules, deck) for s in range(4)))


def research_rules(variant: str, hand: int, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The variant's two-player rules with ``hand`` cards each and the research turn cap (overridable)."""
    o = {"hand_size": hand, "turn_cap": RESEARCH_TURN_CAP, **(overrides or {})}
    return make_rules(variant, 2, o)


def check_size(deck: int, hand: int) -> None:
    """RulesError unless ``deck`` and ``hand`` make a deal: two hands, a starter, at least one card to draw."""
    if not 2 <= hand <= 10:
        raise RulesError(f"a research hand has 2 to 10 cards, not {hand}")
    if 2 * hand + 2 > deck:
        raise RulesError(f"a deck of {deck} is too small for 2 hands of {hand}, a starter and a talon")
