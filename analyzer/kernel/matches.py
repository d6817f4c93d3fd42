"""Matches in the compiled kernel (G11, CZ2, SV2 rotation; CZ7/PR7/SV7 outcome).

Each match runs its deals in sequence, on one thread, to the target: the
rotation of analyzer.engine.deal.play_match, the outcome by the same
analyzer.engine.match.match_outcome the engine uses.
Deal ``k`` of match ``j`` draws from streams keyed by (seed, j, k): its deck from
the kernel's own stream, its play from core.streams' ``deal_key(seed, j, k)``
(the rules engine's key for that deal).

Hands by player (a duplicate design's hook, analyzer.stats.tournament "Dealing
by strategy"): with ``hands``, player ``p`` receives canonical hand
``hands[p]`` of every deck whoever deals (:func:`arrange_hands`, the kernel's
form of analyzer.engine.match.arrange_deck); without it hands are dealt by
seat (G10a).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import deck as deck_cards
from analyzer.core.outcomes import END_CAPPED, MatchResults
from analyzer.core.rules import RuleSet
from analyzer.engine.match import MAX_DEALS, match_outcome
from analyzer.kernel import params as P
from analyzer.kernel.bitops import ZERO, bit, popcount
from analyzer.kernel.deal import conserved, count_dealt, run_deal, scratch, start_from_deck
from analyzer.kernel.driver import Broken, deal_deck, run_blocks, seed_word
from analyzer.kernel.jit import SPECIALISE_FROM, Specialised, body, inner, outer
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.rng import deal_key
from analyzer.kernel.state import END, HANDS, RNG


@inner
def arrange_hands(deck: np.ndarray, tmp: np.ndarray, dealer: int, hands: np.ndarray, n: int, h: int) -> None:
    """Reorder ``deck`` in place so that a deal from player ``dealer`` gives player ``p`` canonical hand
    ``hands[p]`` (the cards at positions ``hands[p] + n * r``, r < h, in that order); the rest of the deck
    (starter, talon) keeps its order.  G10a: position ``i`` goes to seat ``(i + 1) % n``, player
    ``(dealer + i % n + 1) % n``."""
    for i in range(n * h):
        tmp[i] = deck[i]
    for j in range(n):
        src = hands[(dealer + j + 1) % n]
        for r in range(h):
            deck[r * n + j] = tmp[r * n + src]


#: matches handed to a thread at a time: small, so that a run of a few hundred matches still uses every core
MATCH_BLOCK = 32


@body
def match_deal(kinds_pl: np.ndarray, weights_pl: np.ndarray, dealer: int, kinds: np.ndarray, weights: np.ndarray,
               decks: np.ndarray, row: int, k: int, base: np.ndarray, seed: np.uint64, index: int, m: np.ndarray,
               deck: np.ndarray, tmp: np.ndarray, hands: np.ndarray, p: np.ndarray) -> None:
    """Deal ``k`` of a match: its line-up by seat (seat s is player (dealer + s) mod n) and its deck,
    ``decks[row, k]`` if given, else its own stream (``index``, ``k``), arranged by player when ``hands``
    deals by player (SV2)."""
    n = p[P.PLAYERS]
    for s in range(n):
        kinds[s] = kinds_pl[(dealer + s) % n]
        weights[s] = weights_pl[(dealer + s) % n]
    if decks.shape[0] > 0:
        for j in range(decks.shape[2]):
            deck[j] = decks[row, k, j]
    else:
        deal_deck(base, seed, index, k, m, deck, p[P.DECK])
    if hands.shape[0] > 0:
        arrange_hands(deck, tmp, dealer, hands, n, p[P.HAND])


@body
def play_matches(p: np.ndarray, kinds_pl: np.ndarray, weights_pl: np.ndarray, seed: np.uint64, first: int,
                 lo: int, hi: int, base: np.ndarray, decks: np.ndarray, max_deals: int,
                 totals: np.ndarray, wild_held: np.ndarray, deals: np.ndarray, capped: np.ndarray,
                 wilds_dealt: np.ndarray, cards_left: np.ndarray, check: bool, broken: np.ndarray,
                 hands: np.ndarray) -> None:
    """Play matches ``lo .. hi`` (index ``first + row``); ``decks`` (M, K, D) if given, else (0, 0, 0);
    ``hands`` (players,) deals by player (:func:`arrange_hands`), empty by seat.

    Player i acts first in deal 1, so player n-1 deals it (engine.match.first_dealer).
    """
    n = p[P.PLAYERS]
    svinya = p[P.IS_SVINYA]
    deck_mask = ZERO
    for c in base:
        deck_mask |= bit(c)
    st, m, ring, deck, pts, held, dealt = scratch(n)
    kinds = np.zeros(n, np.int64)
    tmp = np.zeros(n * p[P.HAND], np.int64)
    weights = np.zeros_like(weights_pl)
    for i in range(lo, hi):
        index = first + i
        dealer = n - 1
        k = 0
        while True:
            match_deal(kinds_pl, weights_pl, dealer, kinds, weights, decks, i, k, base, seed, index, m, deck, tmp, hands,
                       p)
            m[RNG] = deal_key(seed, index, k)
            start_from_deck(st, m, ring, deck, p)
            count_dealt(m, p, dealt)
            win, _lose, _bw = run_deal(st, m, ring, kinds, weights, p, pts, held)
            if check and not conserved(st, m, ring, deck_mask, p):
                broken[i] = True
            k += 1
            capped[i] += st[END] == END_CAPPED
            top = 0
            for s in range(n):
                pl = (dealer + s) % n
                totals[i, pl] += pts[s]
                wild_held[i, pl] = held[s]
                wilds_dealt[i, pl] = dealt[s]
                cards_left[i, pl] = popcount(m[HANDS + s])
                top = max(top, totals[i, pl])
            if top >= p[P.TARGET] or k >= max_deals:
                break
            if svinya and win >= 0:  # SV2: the winner of the deal leads the next
                dealer = ((dealer + win) % n - 1) % n
            else:  # CZ2: the deal passes to the left
                dealer = (dealer + 1) % n
        deals[i] = k


@outer
def matches_kernel(p: np.ndarray, kinds_pl: np.ndarray, weights_pl: np.ndarray, seed: np.uint64, first: int,
                   lo: int, hi: int, base: np.ndarray, decks: np.ndarray, max_deals: int,
                   totals: np.ndarray, wild_held: np.ndarray, deals: np.ndarray, capped: np.ndarray,
                   wilds_dealt: np.ndarray, cards_left: np.ndarray, check: bool, broken: np.ndarray,
                 hands: np.ndarray) -> None:
    """:func:`play_matches` for any rules ``p``."""
    play_matches(p, kinds_pl, weights_pl, seed, first, lo, hi, base, decks, max_deals, totals, wild_held, deals,
                 capped, wilds_dealt, cards_left, check, broken, hands)


def _matches_for(rules: np.ndarray) -> Any:
    """:func:`play_matches` compiled for the rules ``rules`` (a constant): matches_kernel's arguments but ``p``."""

    def matches_kernel_for(kinds_pl: np.ndarray, weights_pl: np.ndarray, seed: np.uint64, first: int,
                           lo: int, hi: int, base: np.ndarray, decks: np.ndarray, max_deals: int,
                           totals: np.ndarray, wild_held: np.ndarray, deals: np.ndarray, capped: np.ndarray,
                           wilds_dealt: np.ndarray, cards_left: np.ndarray, check: bool, broken: np.ndarray,
                 hands: np.ndarray) -> None:
        play_matches(rules, kinds_pl, weights_pl, seed, first, lo, hi, base, decks, max_deals, totals, wild_held,
                     deals, capped, wilds_dealt, cards_left, check, broken, hands)

    return outer(matches_kernel_for)


#: matches_kernel compiled per rule set (analyzer.kernel.jit.Specialised; counted in matches)
MATCHES = Specialised(_matches_for, SPECIALISE_FROM // 10)


def simulate_matches(rules: RuleSet, strategies: Sequence[object], n: int, seed: int = 0, *,
                     first: int = 0, decks: NDArray[np.integer] | None = None,
                     threads: int | None = None, check: bool = False,
                     hands: Sequence[int] | None = None, specialise: bool | None = None) -> MatchResults:
    """Play matches ``first .. first + n - 1`` to ``rules.target`` (G11); strategies by player.

    ``decks`` (n, K, D) fixes the deck of each match's first K deals (duplicate designs, tests).
    ``hands`` (a permutation of the players): player ``p`` receives canonical hand ``hands[p]`` of every deck
    whoever deals (analyzer.engine.match.arrange_deck); by default by seat (G10a).
    ``specialise``: as in analyzer.kernel.driver.simulate_deals (same results).
    """
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    kinds, weights = compile_lineup(strategies)
    if len(kinds) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, not {len(kinds)}")
    p = P.rule_params(rules)
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    max_deals = MAX_DEALS
    if decks is None:
        dk = np.zeros((0, 0, 0), np.int64)
    else:
        dk = np.ascontiguousarray(decks, dtype=np.int64)
        if dk.ndim != 3 or dk.shape[0] != n or dk.shape[2] != rules.deck_size:
            raise ValueError(f"decks must be ({n}, K, {rules.deck_size}), not {dk.shape}")
        max_deals = min(MAX_DEALS, dk.shape[1])
    pl = rules.players
    if hands is None:
        hk = np.zeros(0, np.int64)
    else:
        hk = np.asarray(hands, dtype=np.int64)
        if hk.shape != (pl,) or sorted(hk.tolist()) != list(range(pl)):
            raise ValueError(f"hands must be a permutation of 0..{pl - 1}, got {list(hands)}")
    totals = np.zeros((n, pl), np.int32)
    wild = np.zeros((n, pl), np.bool_)
    deals = np.zeros(n, np.int32)
    capped = np.zeros(n, np.int32)
    dealt = np.zeros((n, pl), np.int8)
    left = np.zeros((n, pl), np.int8)
    broken = np.zeros(n if check else 0, np.bool_)
    word = seed_word(seed)

    play = MATCHES.runner(matches_kernel, p, n, specialise)

    def block(lo: int, hi: int) -> None:
        play(kinds, weights, word, first, lo, hi, base, dk, max_deals, totals, wild, deals, capped, dealt, left,
             check, broken, hk)

    run_blocks(block, 0, n, threads, MATCH_BLOCK)
    if broken.any():
        raise Broken(int(np.argmax(broken)))
    win, loss, by_wild = match_outcome(rules, totals, wild)
    return MatchResults(totals=totals, win_share=win.astype(np.float32), loss_share=loss.astype(np.float32),
                        loser_by_wild=by_wild, wild_held=wild, deals=deals, capped_deals=capped,
                        wilds_dealt=dealt, cards_left=left)
