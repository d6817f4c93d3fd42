"""``greedy``: shed the most points now (CZ6, PR6, SV6 point tables)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.registry import register

from .builtin import ScoredStrategy, greedy_key, greedy_keys


@register("greedy")
class Greedy(ScoredStrategy):
    """Plays the legal card worth the most points (non-wild first on a tie), names its most-held suit."""

    name = "greedy"
    #: plays greedy's moves but for when a wild goes: a keeper-against-dumper pair with greedy, wild-keeper or
    #: wild-dumper isolates the wild (analyzer.core.registry.wild_twin_key)
    wild_twin = "greedy"
    description = "plays the legal card worth the most points (a non-wild on a tie), names its most-held suit"

    def card_score(self, view: DecisionView, card: int) -> float:
        return greedy_key(view, card)

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        return np.broadcast_to(greedy_keys(view).astype(np.float64), (len(view.legal), 52))
