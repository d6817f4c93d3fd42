"""``tracker``: card counting — a heuristic that remembers (issue 13 item 3).

It plays like ``weighted`` (points shed, wilds held back, effect cards against
a player close to going out) and adds what perfect memory tells it
(:class:`analyzer.knowledge.observer.Knowledge`):

* **Known voids.** A suit the next player is known to lack (every unknown card
  of that player excludes it, G6 forced draws) is worth making active: a card
  of that suit — or a wild naming it — forces a draw.
* **Names a void suit.** A wild names the suit the next player lacks that it
  holds most of itself; with no known void, its own longest suit.
* **Keeps the answer.** Among otherwise equal cards it keeps a card of a suit
  or rank that is still largely unseen (many cards of it still hidden), since
  those are the cards that will come back onto the pile.

With no history (the plain ``choose`` contract) it has no voids to use and
plays the ``weighted`` heuristic, so it runs through every simulator; with the
table runner (:func:`analyzer.knowledge.table.play_observed`) it counts cards.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW, TAKE, rank_of, suit_of
from analyzer.core.contract import Action, DecisionView
from analyzer.core.registry import register
from analyzer.engine.deal import Deal
from analyzer.knowledge.observer import Knowledge, cards_in

from .weighted import Weighted

#: Score of making the next player's known-void suit the active one.
VOID_BONUS = 6.0
#: Score per hidden card of the kept card's suit (a small tie-breaker toward keeping live suits).
LIVE_WEIGHT = 0.05


def known_voids(k: Knowledge, seat: int) -> set[int]:
    """Suits ``seat`` certainly holds none of: every unknown slot excludes the suit, no known card has it."""
    masks = k.slot_masks(seat)
    held = {suit_of(c) for c in k.known_cards[seat]}
    voids = set()
    for s in range(4):
        suit_cards = sum(1 << c for c in range(52) if suit_of(c) == s)
        if s not in held and all(not m & suit_cards for m in masks):
            voids.add(s)
    return voids


@register("tracker")
class Tracker(Weighted):
    """Counts cards: uses inferred voids of the next player and the cards still hidden (table runner)."""

    name = "tracker"
    description = "card counter: weighted play plus the next player's known voids and the cards still hidden"

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action:
        cards = sorted(view.legal_cards)
        if not cards:
            return (TAKE, None) if view.can_take else (DRAW, None)
        n = view.rules.players
        nxt = (table.current + 1) % n
        voids = known_voids(knowledge, nxt)
        hidden = knowledge.pool()
        hidden_by_suit = [0, 0, 0, 0]
        for c in cards_in(hidden):
            hidden_by_suit[suit_of(c)] += 1

        def suit_to_name(card: int) -> int:
            counts = [0, 0, 0, 0]
            for c in view.hand:
                if c != card:
                    counts[suit_of(c)] += 1
            pool = [s for s in range(4) if s in voids] or list(range(4))
            return max(pool, key=lambda s: (counts[s], -s))

        best, best_score, best_suit = cards[0], -np.inf, None
        for c in cards:
            wild = rank_of(c) == view.rules.wild_rank
            suit = suit_to_name(c) if wild else suit_of(c)
            score = self.card_score(view, c)
            if suit in voids:
                score += VOID_BONUS
            # keep cards of live suits: playing one from a dead suit costs less later
            score -= LIVE_WEIGHT * hidden_by_suit[suit_of(c)]
            if score > best_score:
                best, best_score, best_suit = c, score, (suit if wild else None)
        if rank_of(best) == view.rules.wild_rank and len(view.hand) > 1:
            return best, best_suit
        return best, None
