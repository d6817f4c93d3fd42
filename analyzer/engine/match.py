"""Match play (G11, CZ2, CZ7, PR7, SV2, SV7): rotation and the match outcome.

The outcome is a pure function over arrays with a leading match axis, so the
rules engine (one match) and the batch simulator (many) decide matches with the
same code.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

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


# ---------------------------------------------------------------- dealing by player, not by seat (SV2)
class DealingError(ValueError):
    """Decks or hands that cannot be dealt by player (wrong shape, not a permutation); one line."""


def hand_positions(players: int, hand_size: int) -> NDArray[np.int64]:
    """(players, hand_size) deck positions of each canonical hand: hand j = positions j, j + n, ... (the
    analyzer.stats.tournament module doc, "Dealing by strategy")."""
    return np.arange(players * hand_size, dtype=np.int64).reshape(hand_size, players).T


def arrange_deck(decks: ArrayLike, dealer: ArrayLike, hands: ArrayLike, *, players: int,
                 hand_size: int) -> NDArray[np.int8]:
    """Reorder deck orders so that a deal from ``dealer`` gives player ``p`` canonical hand ``hands[p]``.

    Args:
        decks: (R, D) deck orders as the design drew them.
        dealer: (R,) player id of each row's dealer (seat 0, G2).
        hands: (players,) or (R, players) permutation: the canonical hand of each player.
        players, hand_size: the rule set's ``players`` and ``hand_size``.

    Returns:
        (R, D) int8 decks; positions from ``players * hand_size`` on (starter,
        talon) are unchanged.  Dealt as the simulator deals (G10a: position ``i``
        to seat ``(i + 1) % n``), player ``p`` receives exactly the cards of
        canonical hand ``hands[p]``, in the order they were dealt.
    """
    d = np.asarray(decks)
    if d.ndim != 2 or d.shape[1] < players * hand_size:
        raise DealingError(f"decks must be (rows, deck size >= {players * hand_size}), got {d.shape}")
    r = d.shape[0]
    dl = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (r,))
    hp = np.broadcast_to(np.asarray(hands, dtype=np.int64), (r, players))
    if not (np.sort(hp, axis=1) == np.arange(players)).all():
        raise DealingError(f"hands must be a permutation of 0..{players - 1} for every row")
    # position i (residue j = i % n) goes to player (dealer + j + 1) % n, who must get hand hands[player]
    j = np.arange(players)
    player = (dl[:, None] + j[None, :] + 1) % players  # (R, n): the player served by residue j
    src_residue = np.take_along_axis(hp, player, axis=1)  # (R, n): canonical hand to put at residue j
    rounds = np.arange(hand_size) * players  # start of each round of dealing
    src = rounds[None, :, None] + src_residue[:, None, :]  # (R, h, n)
    out = d.astype(np.int8, copy=True)
    out[:, : players * hand_size] = np.take_along_axis(d, src.reshape(r, -1), axis=1)
    return out


def hands_by_player(decks: ArrayLike, dealer: ArrayLike, *, players: int, hand_size: int) -> NDArray[np.int8]:
    """(R, players, hand_size) cards each player is dealt from ``decks`` by ``dealer`` (G10a), in deal order.

    The dealing of :func:`analyzer.engine.deal.deal_hands` with seats turned into
    players; used to check :func:`arrange_deck` against the rule.
    """
    d = np.asarray(decks)
    r = d.shape[0]
    dl = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (r,))
    out = np.zeros((r, players, hand_size), np.int8)
    for i in range(players * hand_size):
        seat = (i + 1) % players
        out[np.arange(r), (dl + seat) % players, i // players] = d[:, i]
    return out
