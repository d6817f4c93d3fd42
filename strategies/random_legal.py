"""``random``: the baseline every other strategy is measured against.

Uniform over the legal cards, a uniformly random suit for a wild, a coin flip
between answering a sevens chain and taking the penalty (CZ8).  It never draws
voluntarily (G7).  Randomness comes only from the ``rng`` passed in (STYLE.md
section 4: no global ``np.random``), so a seeded run is reproducible.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.cards import TAKE

from .base import Action, BatchView, DecisionView
from .builtin import forced_action, forced_actions
from .masks import card_tables, nth_card, popcount
from .registry import register

#: Probability of answering a 7 with a 7 when it may (else it takes the penalty).
ANSWER_SEVEN = 0.5


@register("random")
class RandomLegal:
    """Uniformly random legal card and named suit; answers a 7 half the time; never draws voluntarily."""

    name = "random"
    description = "a uniformly random legal card (random suit for a wild), answers a 7 half the time, never draws by choice"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        cards = view.legal_cards  # sorted: legal actions are listed cards first, by id
        if not cards:
            return forced_action(view)
        if view.pending_seven and view.can_take and rng.random() >= ANSWER_SEVEN:
            return (TAKE, None)
        # floor(u * k) is uniform on 0..k-1 and costs a fraction of Generator.integers per call;
        # the fraction left over, u * k - floor(u * k), is uniform on [0, 1) and independent of
        # the card picked, so it names the wild's suit without a second draw
        x = rng.random() * len(cards)
        i = int(x)
        card = cards[i]
        return (card, int((x - i) * 4) if view.is_wild(card) else None)

    def choose_batch(
        self, view: BatchView, rng: np.random.Generator
    ) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        legal = np.asarray(view.legal, dtype=np.uint64)
        n = popcount(legal).astype(np.int64)
        pick = nth_card(legal, rng.integers(0, np.maximum(n, 1)))
        take = np.asarray(view.can_take, dtype=bool) & (rng.random(len(legal)) >= ANSWER_SEVEN)
        actions = np.where(n == 0, forced_actions(view), np.where(take, TAKE, pick)).astype(np.int16)
        wild = (actions >= 0) & (actions < 52) & card_tables(view.rules).wild[np.clip(actions, 0, 51)]
        suits = np.where(wild, rng.integers(0, 4, len(legal)), -1).astype(np.int8)
        return actions, suits

    def __repr__(self) -> str:
        return "<strategy random>"
