"""``weighted``: a linear score over card features, with tunable weights.

Every legal card gets ``sum(w_f * f)`` over the features below, computed for
the hand as it would be after the play; the best card is played (ties: lowest
card id), a wild names the most-held suit after the play.  Weights are
keyword-only constructor arguments, so an experiment can tune them from a spec
such as ``weighted?w_points=1.5,w_wild=-2`` (analyzer.core.registry).

Features:
    points     the card's points (shed now, not scored later)
    wild       1 for a wild (a negative weight holds wilds back)
    effect     1 if the rank makes the next player draw or lose the turn
    suit_len   cards of the suit that will be active after the play (wild: the named suit)
    threat     effect x max(0, 3 - next player's hand size): punish a player close to going out
    same_rank  cards of the same rank kept (later switches of suit by rank match)

Presets: ``weighted?preset=czech-2p`` takes every weight from a tuned preset
(:data:`strategies.weighted_presets.PRESETS`, made by ``durak tune`` for the
default rules of a variant and player count; the tuning reports are in
``reports/tuning/``).  A preset is not combined with weights (an error, unless
the weight is given at its default value).

Both paths add the terms in this order with float64 arithmetic, so they agree
to the last bit.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import rank_of, suit_of
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.registry import register

from .builtin import ScoredStrategy
from .masks import CARD_RANK, CARD_SUIT, card_tables, rank_counts, suit_counts
from .weighted_presets import PRESETS

#: The threat feature counts from this hand size of the next player down.
THREAT_FROM = 3
#: The default weights (the constructor's defaults).
DEFAULTS = {"w_points": 1.0, "w_wild": -6.0, "w_effect": 2.0, "w_suit_len": 1.5, "w_threat": 5.0, "w_same_rank": 0.5}


def _finite(v: int | float) -> bool:
    """A float64 the compiled policy can hold (an int beyond a float's range is not)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


@register("weighted")
class Weighted(ScoredStrategy):
    """Plays the legal card with the best weighted feature score (tunable weights, see the module doc)."""

    name = "weighted"
    #: two specs differing only in these play alike but for the wild (analyzer.core.registry.wild_twin_key)
    wild_params = ("w_wild",)
    description = "plays the card with the best weighted score of points, wild, effect, suit length, threat, same rank (tunable)"

    #: Tuned weights by preset name (``weighted?preset=NAME``).
    presets = PRESETS

    def __init__(
        self,
        *,
        preset: str | None = None,
        w_points: float = 1.0,
        w_wild: float = -6.0,
        w_effect: float = 2.0,
        w_suit_len: float = 1.5,
        w_threat: float = 5.0,
        w_same_rank: float = 0.5,
    ) -> None:
        weights = dict(w_points=w_points, w_wild=w_wild, w_effect=w_effect,
                       w_suit_len=w_suit_len, w_threat=w_threat, w_same_rank=w_same_rank)
        if preset is not None:
            if preset not in PRESETS:
                raise ValueError(f"unknown weighted preset {preset!r}; known: {', '.join(PRESETS) or 'none'}")
            given = [k for k, v in weights.items() if v != DEFAULTS[k]]
            if given:
                raise ValueError(f"give a preset or weights, not both (preset {preset!r} with {', '.join(given)})")
            weights = {**weights, **PRESETS[preset]["weights"]}
        for k, v in weights.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
                raise ValueError(f"weight {k} must be a finite number, not {v!r}")
        self.weights = {k: float(v) for k, v in weights.items()}

    def card_score(self, view: DecisionView, card: int) -> float:
        rules, w = view.rules, self.weights
        rank = rank_of(card)
        eff = rules.effects[rank]
        effect = 1 if (eff.draw > 0 or eff.skip) else 0
        counts = [0, 0, 0, 0]
        same_rank = 0
        for c in view.hand:
            if c != card:
                counts[suit_of(c)] += 1
                same_rank += rank_of(c) == rank
        suit_len = max(counts) if view.is_wild(card) else counts[suit_of(card)]
        next_hand = view.hand_sizes[1] if len(view.hand_sizes) > 1 else THREAT_FROM
        threat = effect * max(0, THREAT_FROM - next_hand)
        score = w["w_points"] * rules.points[rank]
        score = score + w["w_wild"] * (1 if view.is_wild(card) else 0)
        score = score + w["w_effect"] * effect
        score = score + w["w_suit_len"] * suit_len
        score = score + w["w_threat"] * threat
        score = score + w["w_same_rank"] * same_rank
        return score

    def score_matrix(self, view: BatchView) -> NDArray[np.float64]:
        t, w = card_tables(view.rules), self.weights
        hand = np.asarray(view.hand, dtype=np.uint64)
        n = len(hand)
        sc = suit_counts(hand)  # (B, 4) before the play; the played card is in hand
        own = sc[:, CARD_SUIT] - 1  # (B, 52) its suit after playing it
        # a wild names the most-held suit after the play: the longest suit, one
        # shorter only if the wild itself came from the single longest suit
        top = sc.max(axis=1, keepdims=True)
        single = (sc == top).sum(axis=1, keepdims=True) == 1
        wild_len = np.where((sc == top) & single, top - 1, top)  # (B, 4) by the wild's suit
        suit_len = np.where(t.wild[None, :], wild_len[:, CARD_SUIT], own)
        same_rank = rank_counts(hand)[:, CARD_RANK] - 1
        hs = np.asarray(view.hand_sizes)
        next_hand = hs[:, 1].astype(np.int64) if hs.ndim == 2 and hs.shape[1] > 1 else np.full(n, THREAT_FROM)
        effect = t.effect.astype(np.int64)
        threat = effect[None, :] * np.maximum(0, THREAT_FROM - next_hand)[:, None]
        score = np.broadcast_to(w["w_points"] * t.points.astype(np.float64), (n, 52))
        score = score + w["w_wild"] * t.wild.astype(np.float64)
        score = score + w["w_effect"] * effect.astype(np.float64)
        score = score + w["w_suit_len"] * suit_len.astype(np.float64)
        score = score + w["w_threat"] * threat.astype(np.float64)
        score = score + w["w_same_rank"] * same_rank.astype(np.float64)
        return score
