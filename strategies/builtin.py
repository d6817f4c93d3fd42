"""Machinery shared by the deterministic built-in strategies.

Each of them scores every legal card and plays the best one, ties going to
the lowest card id.  The simple path scores card by card in plain Python; the
fast path builds a (B, 52) score matrix with NumPy gathers and takes ``argmax``
(whose first-maximum rule is the same tie-break).  The two are written
separately on purpose: tests/strategies/test_strategies.py checks that they agree on
thousands of random views, which catches a slip in either.

Common moves: with no legal card the strategy takes a sevens penalty if it may
(CZ8), else draws; it never draws voluntarily (G7) and never takes while it holds
a 7 it may answer with.  A wild names the suit returned by ``name_suit``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, TAKE, rank_of, suit_of
from analyzer.core.contract import Action, BatchView, DecisionView

from .masks import card_bits, card_tables, mask_of_cards, suit_counts


def forced_action(view: DecisionView) -> Action:
    """The move when no card is legal: take the sevens penalty, else draw."""
    return (TAKE, None) if view.can_take else (DRAW, None)


def forced_actions(view: BatchView) -> NDArray[np.int16]:
    """(B,) the forced move of each row (meaningful where no card is legal)."""
    return np.where(view.can_take, TAKE, DRAW).astype(np.int16)


def greedy_key(view: DecisionView, card: int) -> int:
    """Greedy order as one int: points first, then a non-wild before a wild."""
    return 2 * view.rules.points[rank_of(card)] + (0 if view.is_wild(card) else 1)


def greedy_keys(view: BatchView) -> NDArray[np.int64]:
    """(52,) greedy_key of every card id under ``view.rules``."""
    t = card_tables(view.rules)
    return 2 * t.points + (~t.wild).astype(np.int64)


def most_held_suit(hand: tuple[int, ...], played: int) -> int:
    """Suit of which most cards stay in hand after playing ``played``; ties S, C, H, D."""
    counts = [0, 0, 0, 0]
    for c in hand:
        if c != played:
            counts[suit_of(c)] += 1
    return counts.index(max(counts))


def most_held_suits(hand: NDArray[np.uint64], played: NDArray[np.int16]) -> NDArray[np.int8]:
    """(B,) most_held_suit for each row."""
    after = np.asarray(hand, dtype=np.uint64) & ~mask_of_cards(played)
    return np.argmax(suit_counts(after), axis=1).astype(np.int8)


class ScoredStrategy:
    """Base of a deterministic strategy: subclasses give a card score on both paths.

    ``card_score`` (simple path) and ``score_matrix`` (fast path) must agree;
    higher is better and the lowest card id wins a tie.  The default suit to
    name with a wild is the one most held after the play.
    """

    name: str = "scored"
    description: str = ""

    def card_score(self, view: DecisionView, card: int) -> float:
        raise NotImplementedError

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        """(B, 52) scores; entries of illegal cards are ignored."""
        raise NotImplementedError

    def name_suit(self, view: DecisionView, card: int) -> int:
        return most_held_suit(view.hand, card)

    def name_suits(self, view: BatchView, cards: NDArray[np.int16]) -> NDArray[np.int8]:
        return most_held_suits(view.hand, cards)

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        cards = sorted(view.legal_cards)
        if not cards:
            return forced_action(view)
        best, best_score = cards[0], self.card_score(view, cards[0])
        for c in cards[1:]:
            s = self.card_score(view, c)
            if s > best_score:
                best, best_score = c, s
        return (best, self.name_suit(view, best) if view.is_wild(best) else None)

    def choose_batch(
        self, view: BatchView, rng: np.random.Generator
    ) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        legal = np.asarray(view.legal, dtype=np.uint64)
        scores = np.asarray(self.score_matrix(view), dtype=np.float64)
        scores = np.where(card_bits(legal), scores, -np.inf)
        best = np.argmax(scores, axis=1).astype(np.int16)
        has_card = legal != 0
        actions = np.where(has_card, best, forced_actions(view)).astype(np.int16)
        wild = has_card & card_tables(view.rules).wild[best]
        suits = np.full(len(actions), -1, dtype=np.int8)
        if wild.any():
            suits[wild] = self.name_suits(view, best)[wild]
        return actions, suits

    def __repr__(self) -> str:
        return f"<strategy {self.name}>"

