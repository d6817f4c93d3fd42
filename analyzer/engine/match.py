"""Match play (G11, CZ2, CZ7, PR7, SV2, SV7): rotation and the match outcome.

The outcome is a pure function over arrays with a leading match axis, so the
rules engine (one match) and the batch simulator (many) decide matches with the
same code.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from analyzer.core.rules import RuleSet

#: A match that has not reached the target after this many deals is stopped and
#: counted (it would take a pathological strategy).
MAX_DEALS = 1000


def first_dealer(players: int) -> int:
    """Player ids are positions: player 0 acts first in deal 1, so player n-1 deals it."""
    return players - 1


def next_dealer(variant: str, dealer: int, deal_winner: int | None, players: int) -> int:
    """CZ2: the deal passes to the left; SV2: the winner of the previous deal leads."""
    if variant == "svinya" and deal_winner is not None:
        return (deal_winner - 1) % players  # the leader sits left of the dealer
    return (dealer + 1) % players


def _ties(values: NDArray[np.float64], mask: NDArray[np.bool_], most: bool) -> NDArray[np.float64]:
    """Equal shares among the rows' extreme values inside ``mask`` (rows without any: zeros)."""
    fill = -np.inf if most else np.inf
    v = np.where(mask, values, fill)
    best = v.max(axis=1, keepdims=True) if most else v.min(axis=1, keepdims=True)
    hit = mask & (v == best)
    count = hit.sum(axis=1, keepdims=True)
    return np.where(hit, 1.0 / np.maximum(count, 1), 0.0)


def match_outcome(rules: RuleSet, totals: NDArray[np.integer], wild_held: NDArray[np.bool_]
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Win and loss shares (M, P) and whether the wild rule picked the loser (M,).

    CZ7 (and PR7 for prague matches): most points loses, except that players
    left holding a wild at the end lose first (most points among them); the
    winner has the fewest points among the others; exact ties share.
    SV7: the player whose total reaches the target loses; the other wins.
    ``rules.wild_rule = off`` drops the wild rule (points alone decide).
    """
    variant, target = rules.variant, rules.target
    t = totals.astype(np.float64)
    m, p = t.shape
    everyone = np.ones((m, p), dtype=bool)
    if variant == "svinya":
        assert target is not None  # SV7: svinya always plays to a target
        loss = _ties(t, t >= target, most=True)
        by_wild = np.zeros(m, dtype=bool)
    else:
        by_points = _ties(t, everyone, most=True)
        any_wild = np.asarray(wild_held.any(axis=1) & (rules.wild_rule != "off"))
        by_rule = _ties(t, wild_held, most=True)
        loss = np.where(any_wild[:, None], by_rule, by_points)
        by_wild = any_wild & ((by_rule > 0) != (by_points > 0)).any(axis=1)
    others = loss == 0
    others = np.where(others.any(axis=1, keepdims=True), others, everyone)
    win = _ties(t, others, most=False)
    return win, loss, by_wild
