"""The public history of one engine deal, for strategies that read it (``uses_history``).

A :class:`DealRecord` is the batch simulator's
:class:`~analyzer.core.public.PublicRecord` with one row, fed by the
:class:`~analyzer.engine.deal.Deal` at the same moments as the simulator feeds
its own: the deal's start, each card drawn (G8, a turn-over first), a draw at a
decision (G6/G7, what it proves), a pass (SV4), a sevens chain taken (CZ8), a
suit named for a Jack lead (PR2), a card played.  What a move proves is the
record's and :mod:`analyzer.core.public`'s (one inference for both
engines); the legal cards a draw is judged against are the deal's
(:func:`analyzer.engine.deal.legal_cards`).  A deal records only when started
with ``record=True``: no cost otherwise.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from analyzer.core.contract import History
from analyzer.core.public import (
    NAME,
    PASS,
    TAKE_CHAIN,
    PublicRecord,
    batch_history,
    draw_proves_void,
    drawn_card_proves,
    mask,
    pass_proves_void,
    row_histories,
)
from analyzer.core.rules import RuleSet


class SeenDeal(Protocol):
    """What the record reads of a deal (:class:`analyzer.engine.deal.Deal` has it): a protocol, so this module
    needs no import of the deal module, which imports this one."""

    hands: list[list[int]]
    talon: list[int]
    pile: list[int]
    current: int
    turns: int
    turnovers: int


_ROW = np.zeros(1, np.int64)


class DealRecord:
    """What everyone at the table has seen of one deal, and what it proves (a one-row PublicRecord)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.pub = PublicRecord(rules, 1)
        self.accept = 0  # the cards legal at the last draw decision
        self.new = False  # the last draw opened an unknown slot

    def _seat(self, deal: SeenDeal) -> np.ndarray:
        return np.array([deal.current], np.int64)

    def _turn(self, deal: SeenDeal) -> np.ndarray:
        return np.array([deal.turns], np.int64)

    # -------------------------------------------------------------- the deal's moments
    def start(self, deal: SeenDeal) -> None:
        """Hands dealt (the prague lead off the dealer's hand), the starter laid and seen (CZ3/PR2)."""
        sizes = np.array([[len(h) for h in deal.hands]], np.int16)
        self.pub.start(_ROW, sizes, np.array([mask(deal.pile)], np.uint64))

    def begin_turn(self) -> None:
        self.pub.drew_at_decision[0] = False

    def turned_over(self, deal: SeenDeal) -> None:
        """G8: the pile but its top became the talon (called after the turn-over)."""
        self.pub.turned_over(_ROW, np.array([deal.pile[-1]], np.int8), self._turn(deal), self._seat(deal))

    def drew(self, deal: SeenDeal, card: int) -> None:
        """The current player drew ``card`` (known to all when the talon's order is known)."""
        self.new = bool(self.pub.drew(_ROW, self._seat(deal), np.array([card], np.int8), self._turn(deal))[0])

    def draw_decision(self, deal: SeenDeal, legal: list[int]) -> None:
        """Before a DRAW chosen at a decision, ``legal`` the cards that would go on the pile: what drawing
        proves about the hand (G6/G7)."""
        self.accept = mask(legal)
        if draw_proves_void(self.rules):
            self.pub.narrow_hand(_ROW, self._seat(deal), np.array([~self.accept & (2**64 - 1)], np.uint64))

    def drawn(self, deal: SeenDeal, card: int) -> None:
        """After that draw: under draw_one the new card fits exactly when it is played at once (G6)."""
        acc = self.accept
        if drawn_card_proves(self.rules) and self.new:
            allowed = acc if acc >> card & 1 else ~acc & (2**64 - 1)
            self.pub.narrow_hand(_ROW, self._seat(deal), np.array([allowed], np.uint64), last_only=True)
        self.pub.drew_at_decision[0] = True
        self.pub.void_at_draw[0] = acc

    def passed(self, deal: SeenDeal) -> None:
        """No legal card and nothing to draw: a pass; after a draw at a decision it proves a void (SV4)."""
        pub, seat = self.pub, self._seat(deal)
        if pass_proves_void(self.rules) and pub.drew_at_decision[0]:
            pub.narrow_hand(_ROW, seat, ~pub.void_at_draw[_ROW])
        pub.passes[0, deal.current] += 1
        pub.log(_ROW, self._turn(deal), seat, PASS)

    def took(self, deal: SeenDeal) -> None:
        """CZ8: the current player takes a sevens chain (before drawing its penalty)."""
        self.pub.takes[0, deal.current] += 1
        self.pub.log(_ROW, self._turn(deal), self._seat(deal), TAKE_CHAIN)

    def named_lead(self, deal: SeenDeal, suit: int) -> None:
        """PR2: the dealer named ``suit`` for a Jack lead."""
        self.pub.named[0, 0] = suit
        self.pub.log(_ROW, self._turn(deal), np.zeros(1, np.int64), NAME, suit=np.array([suit]))

    def played(self, deal: SeenDeal, seat: int, card: int, named: int | None) -> None:
        """``seat`` played ``card`` (``named``: the suit a wild names, else None)."""
        self.pub.played(_ROW, np.array([seat], np.int64), np.array([card], np.int8),
                        np.array([-1 if named is None else named], np.int64), self._turn(deal))

    # -------------------------------------------------------------- what a player is shown
    def history(self, deal: SeenDeal, hand: tuple[int, ...]) -> History:
        """The :class:`History` of the player to act, holding ``hand`` (the simulator's, field for field)."""
        d = self.rules.deck_size
        pile = np.full((1, d), -1, np.int8)
        pile[0, : len(deal.pile)] = deal.pile
        talon = np.full((1, d), -1, np.int8)
        if deal.turnovers and self.rules.reshuffle == "turn_over":  # G8: a turned-over talon's order is known
            talon[0, : len(deal.talon)] = deal.talon
        h = batch_history(self.pub, _ROW, self._seat(deal), np.array([mask(hand)], np.uint64), pile=pile,
                          pile_size=np.array([len(deal.pile)], np.int16), talon=talon)
        return row_histories(h)[0]

