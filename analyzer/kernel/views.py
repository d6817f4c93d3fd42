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
as the numpy simulator does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.contract import BatchView
from analyzer.core.rules import RuleSet
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, bit, popcount, wrap
from analyzer.kernel.jit import inner
from analyzer.kernel.state import ACTIVE, CUR, DRAWN, DRAWN_CARD, HANDS, LEAD, PEND7, PHASE, PLAYED, SEVEN, TCOUNT, TOP, TURNS
from analyzer.kernel.turn import can_draw, legal_mask

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
