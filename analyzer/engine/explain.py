"""Why a move is illegal, in one line that names the player, the reason and the legal moves (STYLE 3: verify loudly).

Kept apart from :class:`analyzer.engine.deal.Deal` so the state machine holds
the rules and this module the wording; it reads the deal through
:class:`DealState`, so it needs no import of the deal module.
"""

from __future__ import annotations

from typing import Protocol

from analyzer.core.cards import DRAW, TAKE, card_pretty, suit_of


class DealState(Protocol):
    """What the explanation reads of a deal in progress."""

    hands: list[list[int]]
    current: int
    phase: str
    drawn_card: int | None
    active_suit: int | None

    @property
    def top(self) -> int | None: ...

    def can_draw(self) -> bool: ...


def why_illegal(deal: DealState, action: int, legal: list[int], who: str) -> str:
    """``who: reason (legal: ...)`` for an ``action`` not in ``legal``, the player to act's legal actions."""
    shown = " ".join("draw" if a == DRAW else "take" if a == TAKE else card_pretty(a) for a in legal)
    if action == DRAW:
        reason = "cannot draw: holds a legal card and voluntary drawing is off" if deal.can_draw() \
            else "nothing left to draw"
    elif action == TAKE:
        reason = "there is no sevens penalty to take"
    elif not 0 <= action < DRAW:
        reason = f"unknown action {action}"
    elif action not in deal.hands[deal.current]:
        reason = f"does not hold {card_pretty(action)}"
    elif deal.phase == "drawn":
        reason = f"must play the card just drawn, {card_pretty(deal.drawn_card)}"  # type: ignore[arg-type]
    elif deal.phase == "seven":
        reason = "must answer the 7 with a 7 or take"
    else:
        top = deal.top
        reason = f"{card_pretty(action)} does not go on {card_pretty(top)}" if top is not None else "illegal"
        if deal.active_suit is not None and top is not None and suit_of(top) != deal.active_suit:
            reason += f" with {'SCHD'[deal.active_suit]} named"
    return f"{who}: {reason} (legal: {shown})"
