"""One line of meaning per rule option, with the rule id it comes from (docs/rules.md, RULES.md).

``durak rules VARIANT`` prints these beside each option's value in force and
its allowed values; a test keeps this table and ``analyzer.core.rules.OPTIONS``
the same set of names, so a new option cannot ship undocumented.
"""

from __future__ import annotations

from analyzer.core.rules import OPTIONS  # noqa: F401  (the names MEANING must cover)

#: option -> (rule ids, meaning)
MEANING: dict[str, tuple[str, str]] = {
    "deck_size": ("G1, CZ1", "cards in the deck (32 = 7..A, 36 = 6..A, 48 = 3..A, 52 = 2..A)"),
    "hand_size": ("CZ2, PR2, SV2", "cards dealt to each player"),
    "wild_on_anything": ("G4", "a wild may be played on any card"),
    "starter_effects": ("CZ3, PR2", "the first card of the pile hits the first player to act"),
    "sevens": ("CZ8", "a 7 makes the next player draw and lose the turn unless answered with a 7"),
    "seven_chain": ("CZ8", "who takes a sevens chain draws 1 (transfer) or 1 per 7 (accumulate)"),
    "eight_stop": ("CZ8", "an 8 makes the next player lose the turn"),
    "queen_needs_king": ("CZ8", "only the King of the same suit may go on a Queen (not even a wild)"),
    "jack_finish_doubles": ("CZ8", "a deal ended by a Jack scores double for everyone"),
    "last_card_call": ("CZ8", "a player down to one card must call it or draw 2"),
    "forget_rate": ("CZ8", "probability that a player forgets the last-card call"),
    "no_card": ("G6, SV4", "without a legal card: draw one and play it if it fits, or draw until a play"),
    "voluntary_draw": ("G7, SV4", "a player may draw while holding a legal card"),
    "reshuffle": ("G8", "the pile becomes the talon in its order (turn_over) or shuffled"),
    "serve_last_effect": ("G9", "the effect of the card that ends the deal is still served"),
    "target": ("G11, CZ7, SV7", "match target in points; none plays single deals"),
    "turn_cap": ("G10", "a deal stops after this many turns and counts as capped"),
    "lone_wild_points": ("SV6", "points of a hand of exactly one wild"),
    "wild_rule": ("CZ7, PR7", "analyzer switch: caught with a wild loses every deal, a match's last deal, or never"),
}
