"""Deals started from given positions: search rollouts start mid-deal.

A position is the full state of a deal at a decision point: hands, talon and
pile order, top, active suit, pending effect or sevens chain, the player to
act, the turn count.  :func:`encode_deal` reads it off an engine
:class:`~analyzer.engine.deal.Deal`; :func:`play_from_positions` plays each
row to its end with compiled strategies.  Row ``j`` of a run draws from the
streams of (seed, j), so many rollouts of one position differ only where a
random strategy or option draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.outcomes import DealResults
from analyzer.core.rules import RuleSet
from analyzer.engine.deal import Deal
from analyzer.kernel import params as P
from analyzer.kernel.deal import run_deal, scratch, store_deal
from analyzer.kernel.driver import empty_results, result_arrays, run_blocks, seat_lineup, seed_word
from analyzer.kernel.jit import Specialised, body, outer
from analyzer.kernel.lineup import compile_lineup
from analyzer.kernel.rng import deal_key
from analyzer.kernel.state import (
    ACTIVE,
    CUR,
    DRAWN,
    DRAWN_CARD,
    DREW,
    END,
    HANDS,
    HEAD,
    LAST_ACTOR,
    LAST_CARD,
    LEAD,
    NI,
    PCOUNT,
    PDRAW,
    PEND7,
    PHASE,
    PLAY,
    PLAYED,
    PSKIP,
    RING,
    RNG,
    SEVEN,
    STUCK,
    TCOUNT,
    TOP,
    TURNOVERS,
    TURNS,
    WENT_OUT,
)

_PHASES = {"play": PLAY, "drawn": DRAWN, "seven": SEVEN, "lead_suit": LEAD}


@dataclass
class Positions:
    """K positions as the kernel's state arrays: ``st`` (K, NI), ``m`` (K, 2 + P), ``ring`` (K, 52)."""

    st: NDArray[np.int64]
    m: NDArray[np.uint64]
    ring: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.st.shape[0])

    def repeat(self, k: int) -> Positions:
        """Each position ``k`` times in a row (rollouts)."""
        return Positions(np.repeat(self.st, k, axis=0), np.repeat(self.m, k, axis=0),
                         np.repeat(self.ring, k, axis=0))

    @staticmethod
    def concat(parts: Sequence[Positions]) -> Positions:
        return Positions(np.concatenate([q.st for q in parts]), np.concatenate([q.m for q in parts]),
                         np.concatenate([q.ring for q in parts]))


def encode_deal(deal: Deal) -> Positions:
    """The position of an engine deal waiting at a decision point (one row)."""
    if deal.done or deal.phase not in _PHASES:
        raise ValueError(f"a position must wait at a decision point, not in phase {deal.phase!r}")
    n = deal.rules.players
    st = np.zeros((1, NI), np.int64)
    m = np.zeros((1, HANDS + n), np.uint64)
    ring = np.zeros((1, RING), np.int64)
    cards = list(deal.talon) + list(deal.pile)  # the talon top first, then the pile oldest first
    ring[0, :len(cards)] = cards
    s = st[0]
    s[HEAD], s[TCOUNT], s[PCOUNT] = 0, len(deal.talon), len(deal.pile)
    s[TOP] = -1 if deal.top is None else deal.top
    s[ACTIVE] = -1 if deal.active_suit is None else deal.active_suit
    s[CUR], s[PHASE] = deal.current, _PHASES[deal.phase]
    s[PDRAW], s[PSKIP], s[PEND7] = deal.pending_draw, deal.pending_skip, deal.pending_seven
    s[DRAWN_CARD] = -1 if deal.drawn_card is None else deal.drawn_card
    s[DREW], s[TURNS], s[STUCK], s[TURNOVERS] = deal.drew_this_turn, deal.turns, deal.stuck, deal.turnovers
    s[LAST_ACTOR], s[LAST_CARD], s[WENT_OUT], s[END] = deal.last_actor, -1, -1, 0
    for seat, hand in enumerate(deal.hands):
        m[0, HANDS + seat] = np.uint64(sum(1 << c for c in hand))
    m[0, PLAYED] = np.uint64(sum(1 << c for c in deal.played))
    return Positions(st, m, ring)


@body
def play_positions(p: np.ndarray, kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
                   lo: int, hi: int, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray, out: tuple) -> None:
    """Play positions ``lo .. hi`` to their ends (row j draws from the play stream of ``first + j``)."""
    n = p[P.PLAYERS]
    st, m, ring, _deck, pts, held, _dealt = scratch(n)
    kinds, weights = seat_lineup(kinds_pos, weights_pos, n)
    for i in range(lo, hi):
        st[:] = st0[i]
        m[:] = m0[i]
        ring[:] = ring0[i]
        m[RNG] = deal_key(seed, first + i, 0)
        win, lose, bw = run_deal(st, m, ring, kinds, weights, p, pts, held)
        store_deal(i, st, m, win, lose, bw, pts, held, n, out)


@outer
def positions_kernel(p: np.ndarray, kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
                     lo: int, hi: int, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray, out: tuple) -> None:
    """:func:`play_positions` for any rules ``p``."""
    play_positions(p, kinds_pos, weights_pos, seed, first, lo, hi, st0, m0, ring0, out)


def _positions_for(rules: np.ndarray) -> Any:
    """:func:`play_positions` compiled for the rules ``rules`` (a constant): positions_kernel's arguments but ``p``."""

    def positions_kernel_for(kinds_pos: np.ndarray, weights_pos: np.ndarray, seed: np.uint64, first: int,
                             lo: int, hi: int, st0: np.ndarray, m0: np.ndarray, ring0: np.ndarray, out: tuple) -> None:
        play_positions(rules, kinds_pos, weights_pos, seed, first, lo, hi, st0, m0, ring0, out)

    return outer(positions_kernel_for)


#: positions_kernel compiled per rule set (analyzer.kernel.jit.Specialised; counted in rollouts)
POSITIONS = Specialised(_positions_for)


def play_from_positions(rules: RuleSet, strategies: Sequence[object], positions: Positions, seed: int = 0, *,
                        first: int = 0, threads: int | None = None, specialise: bool | None = None) -> DealResults:
    """Play every position to its end; strategies and results by position (column q = seat q + 1).

    ``specialise``: as in analyzer.kernel.driver.simulate_deals (same results).
    """
    kinds, weights = compile_lineup(strategies)
    if len(kinds) != rules.players or positions.m.shape[1] != HANDS + rules.players:
        raise ValueError(f"positions and strategies must be for {rules.players} players")
    p = P.rule_params(rules)
    n = len(positions)
    out = empty_results(n, rules.players, dealt=False)
    word = seed_word(seed)
    arrays = result_arrays(out)
    st0 = np.ascontiguousarray(positions.st)
    m0 = np.ascontiguousarray(positions.m)
    ring0 = np.ascontiguousarray(positions.ring)

    play = POSITIONS.runner(positions_kernel, p, n, specialise)

    def block(lo: int, hi: int) -> None:
        play(kinds, weights, word, first, lo, hi, st0, m0, ring0, arrays)

    run_blocks(block, 0, n, threads)
    return out
