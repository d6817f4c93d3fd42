"""``tracker``: card counting — a heuristic that remembers.

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

It declares ``uses_history = True``: the batch simulator records the public
history for its line-ups and its views carry it (``view.history``), so it
counts cards on both paths -- ``choose`` and the vectorised ``choose_batch`` --
and, through ``choose_known``, on the engine's table runner
(:func:`analyzer.knowledge.table.play_observed`); the three make the same move
from the same information (tests/strategies/test_tracker.py).  A view without history
(a simulator that does not record it) gets the ``weighted`` heuristic.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, TAKE, rank_of, suit_of
from analyzer.core.contract import Action, BatchView, DecisionView
from analyzer.core.registry import register
from analyzer.engine.deal import Deal
from analyzer.knowledge.observer import Knowledge, cards_in

from .builtin import forced_actions
from .masks import CARD_SUIT, card_bits, card_tables, popcount, suit_counts
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
    """Counts cards: uses inferred voids of the next player and the cards still hidden (views with history)."""

    name = "tracker"
    description = "card counter: weighted play plus the next player's known voids and the cards still hidden"
    #: reads the public history from its views: the simulator records it for line-ups with a tracker
    uses_history = True

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        h = view.history
        if h is None:  # no history (a simulator that does not record it): weighted play
            return super().choose(view, rng)
        hidden_by_suit = [0, 0, 0, 0]
        for c in h.hidden:
            hidden_by_suit[suit_of(c)] += 1
        return self._decide(view, set(h.voids[1]) if len(h.voids) > 1 else set(), hidden_by_suit)

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action:
        n = view.rules.players
        voids = known_voids(knowledge, (table.current + 1) % n)
        hidden_by_suit = [0, 0, 0, 0]
        for c in cards_in(knowledge.pool()):
            hidden_by_suit[suit_of(c)] += 1
        return self._decide(view, voids, hidden_by_suit)

    def _decide(self, view: DecisionView, voids: set[int], hidden_by_suit: list[int]) -> Action:
        """The move from the view, the next player's known void suits and the hidden cards by suit."""
        cards = sorted(view.legal_cards)
        if not cards:
            return (TAKE, None) if view.can_take else (DRAW, None)

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

    def choose_batch(self, view: BatchView, rng: np.random.Generator) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        """:meth:`choose` for every row at once (the same scores in the same float order, ties to the lowest id)."""
        h = view.history
        if h is None:
            return super().choose_batch(view, rng)
        t = card_tables(view.rules)
        hand = np.asarray(view.hand, np.uint64)
        legal = np.asarray(view.legal, np.uint64)
        b = len(hand)
        voids = h.voids[:, 1] if h.voids.shape[1] > 1 else np.zeros(b, np.uint8)
        void = ((voids[:, None] >> np.arange(4, dtype=np.uint8)[None, :]) & 1).astype(bool)  # (B, 4)
        hidden = suit_counts(h.hidden)  # (B, 4)
        held = suit_counts(hand)  # (B, 4) before the play
        # the suit a wild names: the next player's void suit it holds most of after the play (ties: lowest),
        # else its own longest suit
        pool = np.where(void.any(axis=1, keepdims=True), void, True)
        suit = np.broadcast_to(CARD_SUIT, (b, 52)).copy()
        for w in np.nonzero(t.wild)[0]:
            counts = held - (np.arange(4) == CARD_SUIT[w])[None, :]
            suit[:, w] = np.argmax(np.where(pool, counts, -1), axis=1)
        rows = np.arange(b)[:, None]
        score = np.asarray(self.score_matrix(view), np.float64)
        score = score + np.where(void[rows, suit], VOID_BONUS, 0.0)
        score = score - LIVE_WEIGHT * hidden[:, CARD_SUIT].astype(np.float64)
        score = np.where(card_bits(legal), score, -np.inf)
        best = np.argmax(score, axis=1).astype(np.int16)
        has_card = legal != 0
        actions = np.where(has_card, best, forced_actions(view)).astype(np.int16)
        named = has_card & t.wild[best] & (popcount(hand) > 1)
        suits = np.where(named, suit[np.arange(b), best], -1).astype(np.int8)
        return actions, suits
