"""``aggressive``: punish the next player with penalty and skip cards (G5).

The effect table of the rule set says which ranks hurt (prague A/7/6, svinya
A/7/6, czech 7 with ``sevens`` and 8 with ``eight_stop``).  Normally any effect
card goes before the others; when the next player holds at most
``THREAT_HAND`` cards the harshest effect goes first (cards drawn + 1 for a
lost turn).  Ties fall back to greedy.  In plain czech no rank has an effect,
so this is greedy there.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import rank_of
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.registry import register

from .builtin import ScoredStrategy, greedy_key, greedy_keys
from .masks import card_tables

#: The next player is "close to going out" at this many cards or fewer.
THREAT_HAND = 2
_EFFECT_BONUS = 100  # beats any greedy key (at most 23)
_SEVERITY_BONUS = 1000  # beats the effect bonus


@register("aggressive")
class Aggressive(ScoredStrategy):
    """Penalty and skip cards first (the harshest when the next player has <= 2 cards), else greedy."""

    name = "aggressive"
    description = "plays penalty/skip cards first (the harshest when the next player has <= 2 cards), else greedy"

    def card_score(self, view: DecisionView, card: int) -> float:
        eff = view.rules.effects[rank_of(card)]
        has_effect = eff.draw > 0 or eff.skip
        score = greedy_key(view, card) + (_EFFECT_BONUS if has_effect else 0)
        if len(view.hand_sizes) > 1 and view.hand_sizes[1] <= THREAT_HAND:
            score += _SEVERITY_BONUS * (eff.draw + int(eff.skip))
        return score

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        t = card_tables(view.rules)
        base = (greedy_keys(view) + _EFFECT_BONUS * t.effect).astype(np.float64)
        hs = np.asarray(view.hand_sizes)
        if hs.ndim == 2 and hs.shape[1] > 1:
            threat = hs[:, 1] <= THREAT_HAND
        else:
            threat = np.zeros(len(view.legal), dtype=bool)
        return base[None, :] + np.where(threat[:, None], float(_SEVERITY_BONUS) * t.severity[None, :], 0.0)
