"""Many deals at once: blocks of deal indices on threads, each deal run to its own end.

No lock-step: each deal is played to its own end, so a deal that cycles to the
turn cap costs only its own turns.  The kernel is serial
and releases the GIL; threads take pieces of the deals from a queue (dynamic load
balancing without numba's ``parallel=True``, whose compilation costs a minute).
Every random number of deal ``j`` comes from streams keyed by (seed, j)
(analyzer.kernel.rng), so results depend on the seed and the deal index
only — not on threads, block sizes or how a run is split.

The play stream of deal ``j`` is core.streams' ``deal_key(seed, j)``, the key
the rules engine gives deal ``j`` of a chunk whose base key is ``seed``; given
the same decks (:func:`analyzer.kernel.npdecks.numpy_decks`), a deterministic
line-up plays the same deals on the kernel and the rules engine.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import deck as deck_cards
from analyzer.core.outcomes import NOT_RECORDED, DealResults
from analyzer.core.rules import RuleSet
from analyzer.kernel import params as P
from analyzer.kernel.bitops import ZERO, bit, wrap
from analyzer.kernel.deal import BY_SEAT, conserved, count_dealt, run_deal, scratch, start_from_ring, store_deal
from analyzer.kernel.jit import Specialised, body, helper, inner, outer
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.npdecks import numpy_decks
from analyzer.kernel.rng import DECK_STREAM, deal_key, shuffle_segment, stream_key
from analyzer.kernel.state import RING, RNG

#: the smallest piece of deals a thread claims (:func:`pieces`): a run ends in pieces of this size, so the threads
#: finish together and a slow deal holds up only its own piece
BLOCK = 2048
#: deals whose numpy decks are drawn at once (memory stays bounded for any run size)
WINDOW = 1 << 16
_U64 = (1 << 64) - 1


class Broken(RuntimeError):
    """--check: deal (or match) ``index`` (counted from the call's first) ended without every card exactly once."""

    def __init__(self, index: int) -> None:
        super().__init__(f"cards not conserved in deal or match {index}")
        self.index = index


def seed_word(seed: int) -> np.uint64:
    """A seed as the kernel's 64-bit word (any int; negative ones wrap)."""
    return np.uint64(int(seed) & _U64)


@inner
def deal_deck(base: np.ndarray, seed: np.uint64, index: int, sub: int, m: np.ndarray, out: np.ndarray,
              d: int) -> None:
    """The deck order of deal ``index`` (deal ``sub`` of a match) in ``out[:D]``: a shuffle from its own stream
    (its counter left in ``m[RNG]``).  ``d`` is the deck's size, ``base.shape[0]``: the kernels pass the rules'
    ``p[P.DECK]``, a constant in a kernel compiled for the rules, so the copy, draw and swap loops have fixed
    trip counts (callgrind, czech 4p random: 4761 -> 4610 instructions a deal)."""
    for j in range(d):
        out[j] = base[j]
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


@body
def play_deals(p: np.ndarray, kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
               lo: int, hi: int, base: np.ndarray, decks: np.ndarray, deck_row: int, out: tuple,
               wilds_dealt: np.ndarray, check: bool, broken: np.ndarray, uniform: int) -> None:
    """Play rows ``lo .. hi`` of the results ``out`` and ``wilds_dealt`` (deal index ``first + row``).

    ``uniform``: the kind every seat plays (a constant in a kernel compiled for it), or BY_SEAT (``kinds_pos``).

    ``decks`` (R, D) holds the deck of row ``i`` at ``i - deck_row`` if given, else it is (0, 0).
    ``check``: ``broken[i]`` is set where a deal ends without every card exactly once (--check).
    """
    n = p[P.PLAYERS]
    deck_mask = ZERO
    for c in base:
        deck_mask |= bit(c)
    st, m, ring, _deck, pts, held, dealt = scratch(n)
    kinds, weights = seat_lineup(kinds_pos, weights_pos, n)
    for i in range(lo, hi):
        index = first + i
        if decks.shape[0] > 0:
            for j in range(decks.shape[1]):
                ring[j] = decks[i - deck_row, j]
        else:
            deal_deck(base, seed, index, 0, m, ring, p[P.DECK])  # shuffled where it is dealt from
        m[RNG] = deal_key(seed, index, 0)
        start_from_ring(st, m, ring, p)
        count_dealt(m, p, dealt)
        for q in range(n):
            wilds_dealt[i, q] = dealt[wrap(q + 1, n)]
        win, lose, bw = run_deal(st, m, ring, kinds, weights, p, pts, held, uniform=uniform)
        store_deal(i, st, m, win, lose, bw, pts, held, n, out)
        if check and not conserved(st, m, ring, deck_mask, p):
            broken[i] = True


@outer
def deals_kernel(p: np.ndarray, kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
                 lo: int, hi: int, base: np.ndarray, decks: np.ndarray, deck_row: int, out: tuple,
                 wilds_dealt: np.ndarray, check: bool, broken: np.ndarray) -> None:
    """:func:`play_deals` for any rules ``p``."""
    play_deals(p, kinds_pos, weights_pos, seed, first, lo, hi, base, decks, deck_row, out, wilds_dealt, check,
               broken, BY_SEAT)


def _deals_for(rules: np.ndarray, uniform: int = BY_SEAT) -> Any:
    """:func:`play_deals` compiled for the rules ``rules`` and the line-up code ``uniform`` (constants): the
    arguments of deals_kernel but ``p``.  ``uniform``: the kind of every seat (the other kinds' code drops
    out of the play loop), or BY_SEAT: each seat's kind read from ``kinds_pos``."""

    def deals_kernel_for(kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
                         lo: int, hi: int, base: np.ndarray, decks: np.ndarray, deck_row: int, out: tuple,
                         wilds_dealt: np.ndarray, check: bool, broken: np.ndarray) -> None:
        play_deals(rules, kinds_pos, weights_pos, seed, first, lo, hi, base, decks, deck_row, out, wilds_dealt,
                   check, broken, uniform)

    return outer(deals_kernel_for)


#: deals_kernel compiled per rule set and line-up code (analyzer.kernel.jit.Specialised, :func:`lineup_code`)
DEALS = Specialised(_deals_for)


def lineup_code(kinds: NDArray[np.int64]) -> int | None:
    """The line-up a kernel compiled for it folds in: the kind every seat plays, else None (a mixed table: the
    kernel compiled for the rules alone, each seat's kind read from ``kinds``)."""
    return int(kinds[0]) if (kinds == kinds[0]).all() else None


def deck_orders(rules: RuleSet, n: int, seed: int = 0, first: int = 0) -> NDArray[np.int64]:
    """(n, D) the deck orders :func:`simulate_deals` deals for deals ``first ..`` of ``seed`` (no decks given)."""
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    out = np.zeros((n, RING), np.int64)
    m = np.zeros(2, np.uint64)
    for i in range(n):
        deal_deck(base, seed_word(seed), first + i, 0, m, out[i], base.shape[0])
    return out[:, :rules.deck_size]


def play_keys(n: int, seed: int = 0, first: int = 0) -> NDArray[np.uint64]:
    """(n,) the play-stream keys of deals ``first ..`` of ``seed`` (core.streams.deal_key).

    An engine Deal given ``stream_key`` = this key shuffles (G8) and forgets
    (CZ8) exactly as the kernel does with deterministic strategies; a random
    strategy draws from the same stream.
    """
    return np.array([deal_key(seed_word(seed), first + i, 0) for i in range(n)], np.uint64)


def empty_results(n: int, players: int, dealt: bool = True) -> DealResults:
    """Results to fill; ``dealt=False``: ``wilds_dealt`` is NOT_RECORDED (rollouts start mid-deal)."""
    z = np.zeros
    return DealResults(points=z((n, players), np.int16), went_out=z(n, np.int8), winner=z(n, np.int8),
                       loser=z(n, np.int8), loser_by_wild=z(n, np.bool_), wild_held=z((n, players), np.bool_),
                       end=z(n, np.int8), turns=z(n, np.int32), last_card=z(n, np.int8),
                       turnovers=z(n, np.int16),
                       wilds_dealt=z((n, players), np.int8) if dealt else np.full((n, players), NOT_RECORDED, np.int8),
                       cards_left=z((n, players), np.int8))


def result_arrays(out: DealResults) -> tuple[np.ndarray, ...]:
    """The arrays the kernels fill (deal.store_deal's order)."""
    return (out.points, out.went_out, out.winner, out.loser, out.loser_by_wild, out.wild_held, out.end,
            out.turns, out.last_card, out.turnovers, out.cards_left)


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int, seed: int = 0, *,
                   first: int = 0, decks: NDArray[np.integer] | None = None,
                   deck_rng: np.random.Generator | None = None, threads: int | None = None,
                   check: bool = False, specialise: bool | None = None) -> DealResults:
    """Play deals ``first .. first + n - 1`` of ``seed`` with compiled strategies (by position).

    Deal ``j``'s deck is ``decks[j]`` if given (tests build the same decks for
    the engine), else the next of ``deck_rng`` as numpy's ``shuffled_decks``
    draws it, else a shuffle from its own stream.
    ``threads`` (default: every core) play pieces of the run side by side;
    results do not depend on it.  ``check``: every deal must end with every
    card exactly once in hands, talon and pile, else :class:`Broken` names
    the first deal that does not (results unchanged).  ``specialise``: play
    on the kernel compiled for these rules (True), on the generic one (False),
    or on the first once this process has asked for enough deals of them
    (None; :class:`analyzer.kernel.jit.Specialised`); a table whose seats all
    play one compiled kind gets a kernel with that kind compiled in too
    (:func:`lineup_code`); the results are the same.
    """
    kinds, weights = compile_lineup(strategies)
    if len(kinds) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} strategies, not {len(kinds)}")
    p = P.rule_params(rules)
    base = np.asarray(deck_cards(rules.deck_size), np.int64)
    given = None if decks is None else np.ascontiguousarray(decks, dtype=np.int64)
    if given is not None and given.shape != (n, rules.deck_size):
        raise ValueError(f"decks must be ({n}, {rules.deck_size}), not {given.shape}")
    out = empty_results(n, rules.players)
    arrays = result_arrays(out)
    broken = np.zeros(n if check else 0, np.bool_)
    word = seed_word(seed)
    play = DEALS.runner(deals_kernel, p, n, specialise, lineup_code(kinds))
    for w0 in range(0, n, WINDOW if deck_rng is not None else max(n, 1)):
        w1 = min(n, w0 + WINDOW) if deck_rng is not None else n
        if deck_rng is not None:
            dk, row0 = numpy_decks(base, w1 - w0, deck_rng), w0
        elif given is not None:
            dk, row0 = given, 0
        else:
            dk, row0 = np.zeros((0, 0), np.int64), 0

        def block(lo: int, hi: int, dk: NDArray[np.int64] = dk, row0: int = row0) -> None:
            play(kinds, weights, word, first, lo, hi, base, dk, row0, arrays, out.wilds_dealt, check, broken)

        run_blocks(block, w0, w1, threads)
    if broken.any():
        raise Broken(int(np.argmax(broken)))
    return out


#: blocks one kernel call plays at most (~20 ms of czech deals): each call costs tens of microseconds of Python
#: (argument typing, the GIL taken back), and Ctrl-C waits for the calls running to return (64: 0.2-0.4 s on the
#: shared 2-core machine under load)
MOST_BLOCKS = 16


def pieces(lo: int, hi: int, workers: int, size: int = BLOCK) -> list[tuple[int, int]]:
    """[lo, hi) cut into the pieces ``workers`` threads claim in turn: each is 1/(2 * workers) of what is left
    (guided self-scheduling), at least ``size`` and at most ``MOST_BLOCKS * size``; one worker takes the most.

    Few kernel calls while much is left (blocks of ``size`` each took a call, a result and a wake-up of the
    waiting thread: 5-10% more CPU on two threads than on one), and pieces of ``size`` at the end, so the
    threads finish within about one block of each other.
    """
    most = MOST_BLOCKS * size
    out = []
    a = lo
    while a < hi:
        k = most if workers == 1 else min(most, max(size, (hi - a) // (2 * workers)))
        out.append((a, min(hi, a + k)))
        a += k
    return out


def run_blocks(block: Callable[[int, int], None], lo: int, hi: int, threads: int | None, size: int = BLOCK) -> None:
    """Call ``block(a, b)`` over [lo, hi) on ``threads`` threads (default: every core), each deal once: the
    calling thread and ``threads - 1`` more take :func:`pieces` from one queue until it is empty."""
    workers = max(1, min(threads or os.cpu_count() or 1, -(-(hi - lo) // size)))
    todo = deque(pieces(lo, hi, workers, size))  # deque: its pops are atomic, each piece goes to one thread
    failed: list[BaseException] = []

    def work() -> None:
        while todo:
            try:
                a, b = todo.popleft()
            except IndexError:  # another thread took the last piece
                return
            block(a, b)

    def helper() -> None:
        try:
            work()
        except BaseException as e:  # handed to the calling thread
            failed.append(e)
            todo.clear()

    helpers = [threading.Thread(target=helper, name=f"blocks-{k}") for k in range(1, workers)]
    for t in helpers:
        t.start()
    try:
        work()
    finally:  # done, Ctrl-C or a failure: no piece starts any more (running ones finish: they hold no Python state)
        todo.clear()
        for t in helpers:
            t.join()
    if failed:
        raise failed[0]
