"""Many deals at once: blocks of deal indices on threads, each deal run to its own end.

No lock-step: each deal is played to its own end, so a deal that cycles to the
turn cap costs only its own turns (issue 12, point 5).  The kernel is serial
and releases the GIL; threads take blocks of deals from a queue (dynamic load
balancing without numba's ``parallel=True``, whose compilation costs a minute).
Every random number of deal ``j`` comes from streams keyed by (seed, j)
(analyzer.kernel.rng), so results depend on the seed and the deal index
only — not on threads, block sizes or how a run is split.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import deck as deck_cards
from analyzer.core.outcomes import DealResults
from analyzer.core.rules import RuleSet
from analyzer.kernel import params as P
from analyzer.kernel.deal import run_deal, start_from_deck
from analyzer.kernel.jit import helper, outer
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.rng import DECK_STREAM, PLAY_STREAM, shuffle_segment, stream_key
from analyzer.kernel.state import END, LAST_CARD, NI, RING, RNG, TURNOVERS, TURNS, WENT_OUT

#: deals handed to a thread at a time (a slow deal holds up only its own block)
BLOCK = 2048


@helper
def deal_deck(base: np.ndarray, seed: int, index: int, sub: int, m: np.ndarray, out: np.ndarray) -> None:
    """The deck order of deal ``index`` (deal ``sub`` of a match): a shuffle from its own stream."""
    d = base.shape[0]
    out[:d] = base
    m[RNG] = stream_key(seed, index, sub, DECK_STREAM)
    shuffle_segment(out, 0, d, d, m, RNG)


@helper
def seat_lineup(kinds_pos: np.ndarray, weights_pos: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Strategies by seat from strategies by position (position 0 = seat 1, G2)."""
    kinds = np.empty(n, np.int64)
    weights = np.empty_like(weights_pos)
    for s in range(n):
        kinds[s] = kinds_pos[(s - 1) % n]
        weights[s] = weights_pos[(s - 1) % n]
    return kinds, weights


@outer
def deals_kernel(p: np.ndarray, kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: int, first: int,
                 lo: int, hi: int, base: np.ndarray, decks: np.ndarray,
                 points: np.ndarray, went_out: np.ndarray, winner: np.ndarray, loser: np.ndarray,
                 by_wild: np.ndarray, wild_held: np.ndarray, end: np.ndarray, turns: np.ndarray,
                 last_card: np.ndarray, turnovers: np.ndarray) -> None:
    """Play rows ``lo .. hi`` of the output, deal index ``first + row``; ``decks`` (N, D) if given, else (0, 0)."""
    n = p[P.PLAYERS]
    st = np.zeros(NI, np.int64)
    m = np.zeros(2 + n, np.uint64)
    ring = np.zeros(RING, np.int64)
    deck = np.zeros(RING, np.int64)
    pts = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)
    kinds, weights = seat_lineup(kinds_pos, weights_pos, n)
    for i in range(lo, hi):
        index = first + i
        if decks.shape[0] > 0:
            for j in range(decks.shape[1]):
                deck[j] = decks[i, j]
        else:
            deal_deck(base, seed, index, 0, m, deck)
        m[RNG] = stream_key(seed, index, 0, PLAY_STREAM)
        start_from_deck(st, m, ring, deck, p)
        win, lose, bw = run_deal(st, m, ring, kinds, weights, p, pts, held)
        for q in range(n):  # results by position: position q is seat q + 1
            s = (q + 1) % n
            points[i, q] = pts[s]
            wild_held[i, q] = held[s]
        went_out[i] = -1 if st[WENT_OUT] < 0 else (st[WENT_OUT] - 1) % n
        winner[i] = -1 if win < 0 else (win - 1) % n
        loser[i] = -1 if lose < 0 else (lose - 1) % n
        by_wild[i] = bw
        end[i] = st[END]
        turns[i] = st[TURNS]
        last_card[i] = st[LAST_CARD]
        turnovers[i] = st[TURNOVERS]


def deck_orders(rules: RuleSet, n: int, seed: int = 0, first: int = 0) -> NDArray[np.int64]:
    """(n, D) the deck orders :func:`simulate_deals` deals for deals ``first ..`` of ``seed``."""
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    out = np.zeros((n, RING), np.int64)
    m = np.zeros(2, np.uint64)
    for i in range(n):
        deal_deck(base, int(seed) & (2**63 - 1), first + i, 0, m, out[i])
    return out[:, :rules.deck_size]


def play_keys(n: int, seed: int = 0, first: int = 0) -> NDArray[np.uint64]:
    """(n,) the play-stream keys of deals ``first ..`` of ``seed``.

    The stream is core.streams' (uniform(key, counter) = splitmix64 of key +
    golden * (counter + 1)), so an engine Deal given ``stream_key`` = this key
    shuffles (G8) and forgets (CZ8) exactly as the kernel does with
    deterministic strategies; a random strategy draws from the same stream.
    """
    return np.array([stream_key(int(seed) & (2**63 - 1), first + i, 0, PLAY_STREAM) for i in range(n)],
                    np.uint64)


def empty_results(n: int, players: int) -> DealResults:
    z = np.zeros
    return DealResults(points=z((n, players), np.int16), went_out=z(n, np.int8), winner=z(n, np.int8),
                       loser=z(n, np.int8), loser_by_wild=z(n, np.bool_), wild_held=z((n, players), np.bool_),
                       end=z(n, np.int8), turns=z(n, np.int32), last_card=z(n, np.int8),
                       turnovers=z(n, np.int16))


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int, seed: int = 0, *,
                   first: int = 0, decks: NDArray[np.integer] | None = None,
                   threads: int | None = None) -> DealResults:
    """Play deals ``first .. first + n - 1`` of ``seed`` with compiled strategies (by position).

    ``decks`` (n, D) fixes the deck orders (tests build the same decks for the
    engine); otherwise deal ``j``'s deck is drawn from its own stream.
    ``threads`` (default: every core) play blocks of deals side by side;
    results do not depend on it.
    """
    kinds, weights = compile_lineup(strategies)
    if len(kinds) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, not {len(kinds)}")
    p = P.rule_params(rules)
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    if decks is None:
        dk = np.zeros((0, 0), np.int64)
    else:
        dk = np.ascontiguousarray(decks, dtype=np.int64)
        if dk.shape != (n, rules.deck_size):
            raise ValueError(f"decks must be ({n}, {rules.deck_size}), not {dk.shape}")
    out = empty_results(n, rules.players)
    seed = int(seed) & (2**63 - 1)

    def block(lo: int) -> None:
        deals_kernel(p, kinds, weights, seed, first, lo, min(n, lo + BLOCK), base, dk, out.points,
                     out.went_out, out.winner, out.loser, out.loser_by_wild, out.wild_held, out.end,
                     out.turns, out.last_card, out.turnovers)

    run_blocks(block, n, threads)
    return out


def run_blocks(block, n: int, threads: int | None, size: int = BLOCK) -> None:  # noqa: ANN001
    """Call ``block(lo)`` for lo = 0, size, 2 size … < n, on ``threads`` threads (default: every core)."""
    starts = range(0, n, size)
    workers = max(1, min(threads or os.cpu_count() or 1, len(starts)))
    if workers == 1:
        for lo in starts:
            block(lo)
        return
    with ThreadPoolExecutor(workers) as pool:
        for f in [pool.submit(block, lo) for lo in starts]:
            f.result()
