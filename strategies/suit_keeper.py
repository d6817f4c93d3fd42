"""``suit-keeper``: keep the longest suit as a reserve to follow with later.

A player who can always follow suit rarely has to draw (G6).  So the longest
suit (counted without wilds; ties S, C, H, D) is hoarded: the strategy first
follows the active suit with another suit, then switches by rank match into
another short suit, then spends the long suit, and plays a wild last, naming
the long suit.  Inside each tier the greedy order decides.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import suit_of
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.registry import register

from .builtin import ScoredStrategy, greedy_key, greedy_keys
from .masks import CARD_SUIT, card_tables, suit_counts

_TIER = 100  # beats any greedy key (at most 23)


def _long_suit(view: DecisionView) -> int:
    counts = [0, 0, 0, 0]
    for c in view.hand:
        if not view.is_wild(c):
            counts[suit_of(c)] += 1
    return counts.index(max(counts))


def _long_suits(view: BatchView) -> NDArray[np.int64]:
    hand = np.asarray(view.hand, dtype=np.uint64) & ~card_tables(view.rules).wild_mask
    return np.argmax(suit_counts(hand), axis=1)


@register("suit-keeper")
class SuitKeeper(ScoredStrategy):
    """Hoards its longest suit: follows with other suits first, then the long suit, a wild last naming it."""

    name = "suit-keeper"
    description = "hoards its longest suit: sheds other suits first (following suit first), then the long suit, wilds last naming it"

    def card_score(self, view: DecisionView, card: int) -> float:
        if view.is_wild(card):
            tier = 0
        elif suit_of(card) == _long_suit(view):
            tier = 1
        elif view.active_suit is not None and suit_of(card) == view.active_suit:
            tier = 3
        else:
            tier = 2
        return _TIER * tier + greedy_key(view, card)

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        wild = card_tables(view.rules).wild[None, :]
        long_ = CARD_SUIT[None, :] == _long_suits(view)[:, None]
        active = CARD_SUIT[None, :] == np.asarray(view.active_suit, dtype=np.int64)[:, None]
        tier = np.where(wild, 0, np.where(long_, 1, np.where(active, 3, 2)))
        return (_TIER * tier + greedy_keys(view)[None, :]).astype(np.float64)

    def name_suit(self, view: DecisionView, card: int) -> int:
        return _long_suit(view)

    def name_suits(self, view: BatchView, cards: NDArray[np.int16]) -> NDArray[np.int8]:
        return _long_suits(view).astype(np.int8)

