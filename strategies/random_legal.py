"""``random``: the baseline every other strategy is measured against.

Uniform over the legal cards, a uniformly random suit for a wild, a coin flip
between answering a sevens chain and taking the penalty (CZ8).  It never draws
voluntarily (G7).  Randomness comes only from the ``rng`` passed in (STYLE.md
section 4: no global ``np.random``), so a seeded run is reproducible.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import nth_set_card
from analyzer.core.cards import TAKE
from analyzer.core.contract import Action, BatchView, DecisionView
from analyzer.core.registry import register
from analyzer.core.rules import RuleSet

from .builtin import forced_action, forced_actions
from .masks import card_tables, popcount

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

    def policy(self, view: DecisionView) -> dict[tuple[int, int | None], float]:
        """The exact probability of each answer :meth:`choose` gives (what an exact solver weighs it by)."""
        cards = view.legal_cards
        if not cards:
            return {forced_action(view): 1.0}
        out: dict[tuple[int, int | None], float] = {}
        seven = ANSWER_SEVEN if view.pending_seven and view.can_take else 1.0
        if seven < 1.0:
            out[(TAKE, None)] = 1.0 - seven
        for card in cards:
            for suit in (range(4) if view.is_wild(card) else (None,)):
                key = (card, suit)
                out[key] = out.get(key, 0.0) + seven / len(cards) / (4 if suit is not None else 1)
        return out

    def choose_batch(
        self, view: BatchView, rng: np.random.Generator
    ) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        legal = np.asarray(view.legal, dtype=np.uint64)
        n = popcount(legal)
        # as in choose: floor(u * n) picks the card, the fraction names a wild's suit
        x = rng.random(len(legal)) * n
        i = x.astype(np.int64)
        cards = nth_set_card(legal, i)  # -1 where no card is legal
        empty = n == 0
        if empty.any():  # no legal card: the forced move (the pause path asks only where a card is legal)
            cards = np.where(empty, forced_actions(view), cards)
        actions = cards.astype(np.int16)
        can_take = np.asarray(view.can_take, dtype=bool)
        if can_take.any():
            take = can_take & (rng.random(len(legal)) >= ANSWER_SEVEN)
            actions[take] = TAKE
        wild = _wild_actions(view.rules)[actions + 1]  # actions are cards, DRAW or TAKE
        suits = np.where(wild, ((x - i) * 4).astype(np.int8), -1).astype(np.int8, copy=False)
        return actions, suits

    def __repr__(self) -> str:
        return "<strategy random>"


@lru_cache(maxsize=64)
def _wild_actions(rules: RuleSet) -> NDArray[np.bool_]:
    """Whether action ``a`` (-1, a card, DRAW, TAKE) plays a wild, at index ``a + 1``."""
    return np.concatenate([[False], card_tables(rules).wild, [False, False]])
