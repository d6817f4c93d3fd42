"""Inference of a two-player opponent's hidden hand from how it chose, for ``expert``.

The sampler (:mod:`analyzer.knowledge.sampler`) draws worlds uniformly among
those consistent with what the opponent could not hold; it ignores *which*
card the opponent chose when it had a choice.  This module weighs each sampled
world by the likelihood of the opponent's observed plays under a generic soft
model: a softmax, at inverse temperature ``lam``, over default ``weighted``'s
scores (:data:`strategies.weighted.DEFAULTS`, not a tuned preset) of every
candidate the opponent had, a wild once per suit it could name.

Only the plays since the opponent's last draw that kept a card are used: back
to there, its hand at each play is the world's hand now plus the cards it has
played since (public), so the likelihood is exact for the model.  A draw whose
card was played at once leaves the hand as it was and is skipped with that
play (the play was forced); a play the reconstruction finds illegal (a rule
option it does not model) is left out for every world alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import RANK_MASK, SUIT_MASK, popcount
from analyzer.core.public import unpack_events
from analyzer.core.rules import RuleSet
from strategies.masks import card_tables
from strategies.weighted import DEFAULTS, THREAT_FROM

PLAY, DRAW_EVENT, TAKE_EVENT, NAME = 0, 1, 3, 4  # analyzer.core.contract.EVENT_KINDS
OPPONENT = 1  # the opponent's seat offset at two players


def modelled(rules: RuleSet) -> bool:
    """Whether the reconstruction holds: a card drawn for want of a legal one is played at once if legal (G6
    ``draw_one``, no voluntary draw: a play right after a draw is the drawn card), and a legal card is a suit or
    rank match or a wild (no sevens chain to answer, no Queen needing its King: CZ8)."""
    return (rules.no_card == "draw_one" and not rules.voluntary_draw and not rules.sevens
            and not rules.queen_needs_king)


@dataclass(frozen=True)
class Choice:
    """One observed play of the opponent: the public position it chose in and what it chose."""

    top: int  # the top card it played on
    active: int  # the active suit then
    card: int
    suit: int  # the suit it named with a wild, -1 if none
    later: int  # mask of the cards it played after this one (its hand then = its hand now | later | card)
    my_size: int  # the viewer's hand size then (the opponent's "next player", for the threat feature)


def observed_choices(events: NDArray[np.int64], pile_bottom: int, my_size: int, rules: RuleSet) -> list[Choice]:
    """The opponent's plays since its last draw that kept a card, oldest first.

    ``events``: the deal's packed events (seats as offsets from the viewer);
    ``pile_bottom``: the pile's first card (the top before any play, when the pile
    was never turned over); ``my_size``: the viewer's hand size now.
    """
    turn, seat, kind, card, suit = (a.tolist() for a in unpack_events(events))
    n = len(turn)
    start = 0
    for i in range(n - 1, -1, -1):  # the window starts after the opponent's last draw that kept its card
        if seat[i] != OPPONENT:
            continue
        if kind[i] == TAKE_EVENT:
            start = i + 1
            break
        if kind[i] == DRAW_EVENT:
            played_it = (i + 1 < n and seat[i + 1] == OPPONENT and kind[i + 1] == PLAY
                         and turn[i + 1] == turn[i])
            if not played_it:
                start = i + 1
                break
    top, active = pile_bottom, (pile_bottom % 4 if pile_bottom >= 0 else -1)
    plays: list[tuple[int, int, int, int]] = []  # (event index, top, active, my size then)
    size_now = my_size
    mine_after = [0] * (n + 1)  # the viewer's net cards gained from event i on
    for i in range(n - 1, -1, -1):
        delta = 0
        if seat[i] == 0:
            delta = -1 if kind[i] == PLAY else (1 if kind[i] in (DRAW_EVENT, TAKE_EVENT) else 0)
        mine_after[i] = mine_after[i + 1] + delta
    for i in range(n):
        k = kind[i]
        forced = i > 0 and seat[i - 1] == seat[i] and kind[i - 1] == DRAW_EVENT and turn[i - 1] == turn[i]
        if k == PLAY and seat[i] == OPPONENT and i >= start and not forced and top >= 0:
            plays.append((i, top, active, size_now - mine_after[i]))
        if k == PLAY:
            top = card[i]
            active = suit[i] if suit[i] >= 0 else card[i] % 4
        elif k == NAME and suit[i] >= 0:
            active = suit[i]
    out = []
    for i, t, a, mine in plays:
        later = 0
        for j in range(i + 1, n):
            if seat[j] == OPPONENT and kind[j] == PLAY:
                later |= 1 << card[j]
        c = card[i]
        legal = c % 4 == a or c // 4 == t // 4 or (c // 4 + 2 == rules.wild_rank and rules.wild_on_anything)
        if legal:
            out.append(Choice(t, a, c, suit[i], later, mine))
    return out


def log_likelihood(hands: NDArray[np.uint64], choices: list[Choice], rules: RuleSet, lam: float
                   ) -> NDArray[np.float64]:
    """(W,) log-likelihood of ``choices`` under the soft model for each world's opponent hand ``hands`` (W,)."""
    t = card_tables(rules)
    w = DEFAULTS
    ll = np.zeros(len(hands), np.float64)
    for ch in choices:
        held = hands | np.uint64(ch.later | 1 << ch.card)  # (W,) its hand when it chose
        legal_mask = int(SUIT_MASK[ch.active] | RANK_MASK[ch.top // 4 + 2])
        if rules.wild_on_anything:
            legal_mask |= int(RANK_MASK[rules.wild_rank])
        cand = np.array([c for c in range(52) if legal_mask >> c & 1], np.int64)  # what it may have held
        has = ((held[:, None] >> cand.astype(np.uint64)[None, :]) & np.uint64(1)).astype(bool)  # (W, K)
        sc = popcount(held[:, None] & SUIT_MASK[None, :]).astype(np.float64)  # (W, 4) before the play
        rc = popcount(held[:, None] & RANK_MASK[cand // 4 + 2][None, :]).astype(np.float64)  # (W, K)
        effect = t.effect[cand].astype(np.float64)
        threat = effect * max(0, THREAT_FROM - ch.my_size)
        base = (w["w_points"] * t.points[cand] + w["w_wild"] * t.wild[cand] + w["w_effect"] * effect
                + w["w_threat"] * threat + w["w_same_rank"] * (rc - 1))  # (W, K)
        wild = t.wild[cand]
        suit_len = sc[:, cand % 4] - 1  # (W, K) the card's suit after the play
        z = np.where(has & ~wild[None, :], lam * (base + w["w_suit_len"] * suit_len), -np.inf)
        parts = [z]
        for j in np.flatnonzero(wild).tolist():  # a wild: one candidate per suit it names, that suit after the play
            after = sc - (np.arange(4) == cand[j] % 4)[None, :]  # (W, 4)
            parts.append(np.where(has[:, j:j + 1], lam * (base[:, j:j + 1] + w["w_suit_len"] * after), -np.inf))
        allz = np.concatenate(parts, axis=1)
        top = allz.max(axis=1)
        lse = top + np.log(np.exp(allz - top[:, None]).sum(axis=1))
        j = int(np.searchsorted(cand, ch.card))
        if wild[j]:
            s = ch.suit if ch.suit >= 0 else 0
            chosen = lam * (base[:, j] + w["w_suit_len"] * (sc[:, s] - (s == ch.card % 4)))
        else:
            chosen = z[:, j]
        ll += chosen - lse
    return ll


def resample(loglik: NDArray[np.float64], count: int, u: float) -> NDArray[np.int64]:
    """``count`` world indices drawn by systematic resampling with weights exp(``loglik``) (``u`` in [0, 1))."""
    wt = np.exp(loglik - loglik.max())
    cdf = np.cumsum(wt / wt.sum())
    cdf[-1] = 1.0
    return np.minimum(np.searchsorted(cdf, (np.arange(count) + u) / count, side="right"), len(wt) - 1)
