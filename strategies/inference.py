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


def _kept(turn: list[int], seat: list[int], kind: list[int]) -> list[int]:
    """Event indices of the opponent's draws that kept a card (not played at once in the same turn) and its takes."""
    n = len(turn)
    out = []
    for i in range(n):
        if seat[i] != OPPONENT:
            continue
        if kind[i] == TAKE_EVENT:
            out.append(i)
        elif kind[i] == DRAW_EVENT:
            played_it = i + 1 < n and seat[i + 1] == OPPONENT and kind[i + 1] == PLAY and turn[i + 1] == turn[i]
            if not played_it:
                out.append(i)
    return out


def _positions(card: list[int], kind: list[int], suit: list[int], pile_bottom: int) -> list[tuple[int, int]]:
    """(top, active suit) before each event, replayed from the plays and named suits."""
    top, active = pile_bottom, (pile_bottom % 4 if pile_bottom >= 0 else -1)
    out = []
    for i in range(len(kind)):
        out.append((top, active))
        if kind[i] == PLAY:
            top = card[i]
            active = suit[i] if suit[i] >= 0 else card[i] % 4
        elif kind[i] == NAME and suit[i] >= 0:
            active = suit[i]
    return out


def _legal_mask(top: int, active: int, rules: RuleSet) -> int:
    """The cards legal on ``top`` with ``active`` the suit (G3, a wild on anything where the rules say so)."""
    m = int(SUIT_MASK[active] | RANK_MASK[top // 4 + 2])
    return m | int(RANK_MASK[rules.wild_rank]) if rules.wild_on_anything else m


def observed_choices(events: NDArray[np.int64], pile_bottom: int, my_size: int, rules: RuleSet,
                     segment: int = 0) -> list[Choice]:
    """The opponent's plays since its last draw that kept a card (``segment=1``: those between its last two such
    draws), oldest first.

    ``events``: the deal's packed events (seats as offsets from the viewer);
    ``pile_bottom``: the pile's first card (the top before any play, when the pile
    was never turned over); ``my_size``: the viewer's hand size now.
    """
    turn, seat, kind, card, suit = (a.tolist() for a in unpack_events(events))
    n = len(turn)
    kept = _kept(turn, seat, kind)
    if segment == 0:
        lo, hi = (kept[-1] + 1 if kept else 0), n
    elif len(kept) and kind[kept[-1]] == DRAW_EVENT:
        lo, hi = (kept[-2] + 1 if len(kept) > 1 else 0), kept[-1]
        if len(kept) > 1 and kind[kept[-2]] == TAKE_EVENT:
            return []
    else:
        return []
    pos = _positions(card, kind, suit, pile_bottom)
    mine_after = [0] * (n + 1)  # the viewer's net cards gained from event i on
    for i in range(n - 1, -1, -1):
        delta = 0
        if seat[i] == 0:
            delta = -1 if kind[i] == PLAY else (1 if kind[i] in (DRAW_EVENT, TAKE_EVENT) else 0)
        mine_after[i] = mine_after[i + 1] + delta
    out = []
    for i in range(lo, hi):
        forced = i > 0 and seat[i - 1] == seat[i] and kind[i - 1] == DRAW_EVENT and turn[i - 1] == turn[i]
        top, active = pos[i]
        if kind[i] != PLAY or seat[i] != OPPONENT or forced or top < 0:
            continue
        later = 0
        for j in range(i + 1, n):
            if seat[j] == OPPONENT and kind[j] == PLAY:
                later |= 1 << card[j]
        if _legal_mask(top, active, rules) >> card[i] & 1:
            out.append(Choice(top, active, card[i], suit[i], later, my_size - mine_after[i]))
    return out


def reaches_back(rules: RuleSet) -> bool:
    """Whether every draw the opponent keeps is for want of a legal card (no penalty draws: no rank draws, no
    last-card call), so the card a kept draw brought was not legal then."""
    return not rules.last_card_call and not any(e.draw > 0 for e in rules.effects)


def kept_draw(events: NDArray[np.int64], pile_bottom: int, rules: RuleSet) -> tuple[int, int] | None:
    """(the cards its last kept draw may have brought -- those not legal then --, the cards it played since), or
    None when it kept none."""
    turn, seat, kind, card, suit = (a.tolist() for a in unpack_events(events))
    kept = _kept(turn, seat, kind)
    if not kept or kind[kept[-1]] != DRAW_EVENT:
        return None
    j = kept[-1]
    top, active = _positions(card, kind, suit, pile_bottom)[j]
    if top < 0:
        return None
    since = 0
    for i in range(j + 1, len(turn)):
        if seat[i] == OPPONENT and kind[i] == PLAY:
            since |= 1 << card[i]
    return ((1 << 52) - 1) & ~_legal_mask(top, active, rules), since


def older_log_likelihood(hands: NDArray[np.uint64], choices: list[Choice], may: int, since: int, rules: RuleSet,
                         lam: float) -> NDArray[np.float64]:
    """(W,) log of the likelihood of ``choices`` (plays before the last kept draw) averaged over the card that draw
    may have brought: any card of the hand now or played since (``since``) that ``may`` allows, each alike; 0
    where no card fits."""
    cand = (hands | np.uint64(since)) & np.uint64(may)
    acc = np.full(len(hands), -np.inf)
    for x in range(52):
        rows = np.flatnonzero(cand >> np.uint64(x) & np.uint64(1))
        if not len(rows):
            continue
        ll = log_likelihood(hands[rows], choices, rules, lam, without=1 << x)
        acc[rows] = np.logaddexp(acc[rows], ll)
    count = popcount(cand).astype(np.float64)
    return np.where(count > 0, acc - np.log(np.maximum(count, 1)), 0.0)


def log_likelihood(hands: NDArray[np.uint64], choices: list[Choice], rules: RuleSet, lam: float,
                   without: int = 0) -> NDArray[np.float64]:
    """(W,) log-likelihood of ``choices`` under the soft model for each world's opponent hand ``hands`` (W,)
    (``without``: cards it did not hold yet)."""
    t = card_tables(rules)
    w = DEFAULTS
    ll = np.zeros(len(hands), np.float64)
    for ch in choices:
        held = (hands | np.uint64(ch.later | 1 << ch.card)) & np.uint64(~without & (1 << 64) - 1)  # (W,) its hand then
        legal_mask = _legal_mask(ch.top, ch.active, rules)
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
