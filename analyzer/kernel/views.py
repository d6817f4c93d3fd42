"""What a Python strategy sees at a paused decision: the kernel writes it, Python hands it over as a BatchView.

At each decision where the kernel stops for a Python strategy
(analyzer.kernel.pause), it writes the fields of that decision into row ``k``
of :class:`Paused`'s arrays, ``k`` counting the pauses of the call.  The
fields are those the numpy simulator's views hold (analyzer.sim.calls), in the
same dtypes: the hand (a Jack lead's starter included, PR2), the legal cards,
whether the player may draw or take a sevens penalty, the top card (-1 on an
empty pile and while the dealer names a Jack lead's suit), the active suit,
the sevens chain being answered, hand sizes by seat offset, the talon size and
the cards played.  :func:`batch_view` gives a strategy fresh read-only copies,
as the numpy simulator does; :class:`SimplePath` builds the simple path's
DecisionViews from them.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import CHUNK_TABLES
from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.rules import RuleSet
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, bit, popcount, wrap
from analyzer.kernel.jit import inner
from analyzer.kernel.state import ACTIVE, CUR, DRAWN, DRAWN_CARD, HANDS, LEAD, PEND7, PHASE, PLAYED, SEVEN, TCOUNT, TOP, TURNS
from analyzer.kernel.turn import can_draw, legal_mask
from analyzer.sim.calls import answer_arrays

#: Paused's arrays in the order the kernel takes them (a tuple)
FIELDS = ("seat", "hand", "legal", "can_draw", "can_take", "top", "active_suit", "pending_seven", "hand_sizes",
          "talon_size", "played", "turn", "job", "slot")


@dataclasses.dataclass
class Paused:
    """Row ``k``: the ``k``-th decision the kernel paused at in one call (``slot``: its slot, ``job``: its deal)."""

    seat: NDArray[np.int8]
    hand: NDArray[np.uint64]
    legal: NDArray[np.uint64]
    can_draw: NDArray[np.bool_]
    can_take: NDArray[np.bool_]
    top: NDArray[np.int8]
    active_suit: NDArray[np.int8]
    pending_seven: NDArray[np.int16]
    hand_sizes: NDArray[np.int16]  # (B, P) by seat offset
    talon_size: NDArray[np.int16]
    played: NDArray[np.uint64]
    turn: NDArray[np.int32]
    job: NDArray[np.int64]
    slot: NDArray[np.int64]

    @classmethod
    def allocate(cls, slots: int, players: int) -> Paused:
        z = np.zeros
        return cls(z(slots, np.int8), z(slots, np.uint64), z(slots, np.uint64), z(slots, np.bool_),
                   z(slots, np.bool_), z(slots, np.int8), z(slots, np.int8), z(slots, np.int16),
                   z((slots, players), np.int16), z(slots, np.int16), z(slots, np.uint64), z(slots, np.int32),
                   z(slots, np.int64), z(slots, np.int64))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in :data:`FIELDS` order (what the kernel fills)."""
        return tuple(getattr(self, f) for f in FIELDS)


@inner
def write_view(k: int, slot: int, job: int, st: np.ndarray, m: np.ndarray, p: np.ndarray, view: tuple) -> None:
    """Row ``k`` of the paused decisions: the decision in ``st``/``m`` as the numpy simulator's view shows it."""
    seat, hand, legal, can_draw_v, can_take, top, active, pending, sizes, talon, played, turn, jobs, slots = view
    n = p[P.PLAYERS]
    cur, phase = st[CUR], st[PHASE]
    h = m[HANDS + cur]
    t = st[TOP]
    draw, take = False, False
    if phase == LEAD:  # PR2: the dealer names the suit of his Jack lead, held in hand for the view
        g = bit(t)
        h |= g
        t = -1
    elif phase == DRAWN:  # G6: a drawn wild that fits, played at once; its suit is the choice
        g = bit(st[DRAWN_CARD])
    elif phase == SEVEN:  # CZ8: a 7 or TAKE
        g = h & RANK_MASKS[7]
        take = True
    else:
        g = legal_mask(h, t, st[ACTIVE], p)
        draw = can_draw(st) and (popcount(g) == 0 or p[P.VOLUNTARY] != 0)
    seat[k] = cur
    hand[k] = h
    legal[k] = g
    can_draw_v[k] = draw
    can_take[k] = take
    top[k] = t
    active[k] = st[ACTIVE]
    pending[k] = st[PEND7] if phase == SEVEN else 0
    s = cur
    for j in range(n):
        sizes[k, j] = popcount(m[HANDS + s])
        s = wrap(s + 1, n)
    talon[k] = st[TCOUNT]
    played[k] = m[PLAYED]
    turn[k] = st[TURNS]
    jobs[k] = job
    slots[k] = slot


def _take(a: NDArray[Any], rows: slice | NDArray[np.int64]) -> NDArray[Any]:
    """A fresh copy of ``a``'s rows (a strategy never holds the kernel's own buffers)."""
    return a[rows].copy() if isinstance(rows, slice) else a[rows]


def _lazy(a: NDArray[Any], rows: slice | NDArray[np.int64]) -> Callable[[], NDArray[Any]]:
    return lambda: _take(a, rows)


def batch_view(rules: RuleSet, v: Paused, rows: slice | NDArray[np.int64]) -> BatchView:
    """The BatchView of paused decisions ``rows`` (``slice(0, k)`` or indices): fresh read-only copies; hand
    sizes, talon and played cards are copied when first read, as the numpy simulator computes them."""
    return BatchView(rules=rules, seat=_take(v.seat, rows), hand=_take(v.hand, rows), legal=_take(v.legal, rows),
                     can_draw=_take(v.can_draw, rows), can_take=_take(v.can_take, rows), top=_take(v.top, rows),
                     active_suit=_take(v.active_suit, rows), pending_seven=_take(v.pending_seven, rows),
                     hand_sizes=_lazy(v.hand_sizes, rows), talon_size=_lazy(v.talon_size, rows),
                     played=_lazy(v.played, rows), scores=None)


#: DecisionView's fields after ``played``, None in deals without a recorded history
_AFTER_PLAYED = ("scores", "history")


class SimplePath:
    """The simple path on paused decisions: one ``choose`` per decision, as the numpy simulator's adapter
    (analyzer.sim.calls.choose_rows) builds them, with the answers checked the same way (calls.answer_arrays).

    The cards played, a frozenset, cost most of a view to build (a set of 20 cards
    takes longer than the rest of the view), so each slot keeps its last one and
    the next is that set plus the cards played since: the same cards (a set
    built another way may iterate in another order; no strategy may rely on
    the order of a set).
    """

    def __init__(self, rules: RuleSet, paused: Paused, slots: int) -> None:
        self.rules = rules
        self.v = paused
        self.played: list[tuple[int, frozenset[int]]] = [(0, frozenset())] * slots

    def strategy(self, strat: Any) -> _Simple:
        """``strat`` as a fast-path strategy over paused rows (what the calls and checks of analyzer.sim.calls take)."""
        return _Simple(self, strat)

    def answers(self, strat: Any, rows: slice | NDArray[np.int64], rng: np.random.Generator
                ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``strat.choose`` on each paused decision of ``rows``; the answers as arrays (suit -1 for None)."""
        # the views hold no reference cycles and go with their reference counts; the cyclic collector, set off by
        # their allocations, would walk the process's long-lived objects again and again (40% of the time here)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._answers(strat, rows, rng)
        finally:
            if collecting:
                gc.enable()

    def _answers(self, strat: Any, rows: slice | NDArray[np.int64], rng: np.random.Generator
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        v = self.v
        new = tuple.__new__
        choose = strat.choose
        rules, cache = self.rules, self.played
        layout = DecisionView._fields[10:] == _AFTER_PLAYED  # built positionally (4x cheaper) while it holds
        t0, t1, t2, t3 = CHUNK_TABLES
        extra = ((), (DRAW,), (TAKE,), (DRAW, TAKE))
        kinds = (v.can_draw[rows].astype(np.int8) + 2 * v.can_take[rows].astype(np.int8)).tolist()
        tops = [None if t < 0 else t for t in v.top[rows].tolist()]
        suits_in = [None if a < 0 else a for a in v.active_suit[rows].tolist()]
        sizes = list(map(tuple, v.hand_sizes[rows].tolist()))
        acts: list[Any] = []
        suits: list[Any] = []
        for slot, seat, h, g, kind, top, a_s, p7, hs, talon, p in zip(
                v.slot[rows].tolist(), v.seat[rows].tolist(), v.hand[rows].tolist(), v.legal[rows].tolist(), kinds,
                tops, suits_in, v.pending_seven[rows].tolist(), sizes, v.talon_size[rows].tolist(),
                v.played[rows].tolist()):
            was, played = cache[slot]
            if p != was:
                if p & was == was:  # the slot's last set and the cards played since
                    d = p ^ was
                    played = played.union(t0[d & 0x1FFF] + t1[(d >> 13) & 0x1FFF] + t2[(d >> 26) & 0x1FFF] + t3[d >> 39])
                else:  # a new deal
                    played = frozenset(t0[p & 0x1FFF] + t1[(p >> 13) & 0x1FFF] + t2[(p >> 26) & 0x1FFF] + t3[p >> 39])
                cache[slot] = (p, played)
            hand = t0[h & 0x1FFF] + t1[(h >> 13) & 0x1FFF] + t2[(h >> 26) & 0x1FFF] + t3[h >> 39]
            legal = t0[g & 0x1FFF] + t1[(g >> 13) & 0x1FFF] + t2[(g >> 26) & 0x1FFF] + t3[g >> 39] + extra[kind]
            a, s = choose(new(DecisionView, (rules, seat, hand, legal, top, a_s, p7, hs, talon, played, None, None))
                          if layout else DecisionView(rules, seat, hand, legal, top, a_s, p7, hs, talon, played), rng)
            acts.append(a)
            suits.append(-1 if s is None else s)
        return answer_arrays(acts, suits)


class _Simple:
    """A simple-path strategy as the calls of analyzer.sim.calls take a fast one: ``choose_batch(rows, rng)``."""

    def __init__(self, path: SimplePath, strat: Any) -> None:
        self.path = path
        self.strat = strat
        self.name = getattr(strat, "name", repr(strat))

    def choose_batch(self, rows: slice | NDArray[np.int64], rng: np.random.Generator
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return self.path.answers(self.strat, rows, rng)
