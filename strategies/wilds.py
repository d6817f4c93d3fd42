"""``wild-keeper`` and ``wild-dumper``: the two answers to the wild-holding penalty.

CZ7 and PR7 make a player caught with a Jack the loser, SV6 makes a lone Queen
cost 20; these two strategies differ from greedy only in when the wild goes.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.registry import register

from .builtin import ScoredStrategy, greedy_key, greedy_keys
from .masks import card_tables

#: Larger than any greedy key (2 * 11 + 1), so the wild test decides first.
_WILD_BONUS = 100


@register("wild-keeper")
class WildKeeper(ScoredStrategy):
    """Holds wilds as a last resort: greedy among non-wild cards, the wild only when nothing else is legal."""

    name = "wild-keeper"
    #: plays greedy's moves but for when a wild goes: a keeper-against-dumper pair with greedy, wild-keeper or
    #: wild-dumper isolates the wild (analyzer.core.registry.wild_twin_key)
    wild_twin = "greedy"
    description = "holds its wilds as a last resort: greedy among the other legal cards, names its most-held suit"

    def card_score(self, view: DecisionView, card: int) -> float:
        return greedy_key(view, card) - (_WILD_BONUS if view.is_wild(card) else 0)

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        keys = greedy_keys(view) - _WILD_BONUS * card_tables(view.rules).wild
        return np.broadcast_to(keys.astype(np.float64), (len(view.legal), 52))


@register("wild-dumper")
class WildDumper(ScoredStrategy):
    """Sheds a wild as soon as one is legal, otherwise plays like greedy."""

    name = "wild-dumper"
    #: plays greedy's moves but for when a wild goes: a keeper-against-dumper pair with greedy, wild-keeper or
    #: wild-dumper isolates the wild (analyzer.core.registry.wild_twin_key)
    wild_twin = "greedy"
    description = "sheds a wild as soon as it is legal, otherwise greedy; names its most-held suit"

    def card_score(self, view: DecisionView, card: int) -> float:
        return greedy_key(view, card) + (_WILD_BONUS if view.is_wild(card) else 0)

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        keys = greedy_keys(view) + _WILD_BONUS * card_tables(view.rules).wild
        return np.broadcast_to(keys.astype(np.float64), (len(view.legal), 52))
