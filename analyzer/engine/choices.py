"""How often a player has a real choice: decisions with more than one legal action (or a wild's suit to name).

A game where most turns are forced leaves skill little to act on; the balance
explorer's report card shows this share beside the skill gap.  Counted on the
readable engine, whose play loop asks a strategy only at a real choice
(:func:`analyzer.engine.deal.forced_action`) and records every decision in a
:class:`analyzer.engine.deal.MoveHistory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.rules import RuleSet
from analyzer.engine.deal import Deal, MoveHistory, play_deal


class _Counting:
    """A strategy's stand-in that counts the times it is asked (the real choices) and answers as it does."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.asked = inner, 0
        self.name = getattr(inner, "name", "?")
        self.uses_history = getattr(inner, "uses_history", False)

    def choose(self, view: Any, rng: np.random.Generator) -> Any:
        self.asked += 1
        return self.inner.choose(view, rng)


def count_choices(rules: RuleSet, strategies: Sequence[Any], decks: NDArray[np.int8], rng: np.random.Generator
                  ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per deck: the decisions with a real choice and all decisions (forced ones too) of one deal each."""
    seats = [_Counting(s) for s in strategies]
    record = any(s.uses_history is True for s in seats)
    choices = np.zeros(len(decks), np.int64)
    decisions = np.zeros(len(decks), np.int64)
    for i, deck in enumerate(decks):
        before = sum(s.asked for s in seats)
        history = MoveHistory()
        play_deal(Deal.from_deck(rules, [int(c) for c in deck], rng=rng, record=record), seats, rng, history=history)
        choices[i] = sum(s.asked for s in seats) - before
        decisions[i] = len(history.tokens) + (history.lead_suit is not None)
    return choices, decisions
