"""The state of one deal in the compiled kernel: three small arrays and their layout.

* ``st`` int64[NI] — the scalar fields below (phase, turn, pending effects …);
* ``m``  uint64[2 + P] — ``m[PLAYED]`` the cards played so far, ``m[RNG]`` the
  play stream's counter, ``m[HANDS + seat]`` each seat's hand as a card mask;
* ``ring`` int64[52] — talon and pile as one circular queue (as in the numpy
  simulator): the talon is ``ring[head : head + tcount]`` top first, the pile
  follows it oldest first, so turning the pile over (G8) moves no card.

While a deal is played (analyzer.kernel.deal.run_deal) ``st`` lives in a tuple
``s`` of the same fields (:func:`load`, :func:`store`): numba keeps a tuple's
items in registers, where every write to ``st`` would be a store the next
read waits for (a write to ``m`` or ``ring`` may alias ``st`` as far as the
compiler knows).  The phase functions (analyzer.kernel.turn) take and return
the tuple, setting fields with :func:`put`; code that keeps a deal in ``st``
(the pause path, the starter) goes through :func:`load` and :func:`store`.

Seat 0 is the dealer and seat 1 acts first (G2), as in analyzer.engine.deal.
The phases are the engine's decision points (play, drawn, seven, lead_suit)
plus BEGIN (a turn starts: cap, effects, forced draws) and DONE.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.tuple import tuple_setitem

from analyzer.kernel.jit import inner

# scalar fields of st
HEAD, TCOUNT, PCOUNT, TOP, ACTIVE, CUR, PHASE, PDRAW, PSKIP, PEND7, DRAWN_CARD, DREW, TURNS, STUCK, \
    TURNOVERS, LAST_ACTOR, LAST_CARD, END, WENT_OUT = range(19)
NI = 19

# slots of m
PLAYED, RNG, HANDS = 0, 1, 2

RING = 52

BEGIN, PLAY, DRAWN, SEVEN, LEAD, DONE = 0, 1, 2, 3, 4, 5


def new_state(players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty (st, m, ring) for a deal of ``players``."""
    return np.zeros(NI, np.int64), np.zeros(HANDS + players, np.uint64), np.zeros(RING, np.int64)


assert NI == 19  # load and store name every field


@inner
def load(st: np.ndarray) -> tuple[int, ...]:
    """The fields of ``st`` as a tuple (registers while a deal is played)."""
    return (st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7], st[8], st[9], st[10], st[11], st[12], st[13],
            st[14], st[15], st[16], st[17], st[18])


@inner
def store(st: np.ndarray, s: tuple[int, ...]) -> None:
    """Write the tuple ``s`` back to ``st`` (a deal that pauses or ends)."""
    (st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7], st[8], st[9], st[10], st[11], st[12], st[13],
     st[14], st[15], st[16], st[17], st[18]) = s


@inner
def put(s: tuple, field: int, value: int) -> tuple:
    """``s`` with ``field`` set to ``value`` (the tuple's ``st[field] = value``)."""
    return tuple_setitem(s, field, value)  # type: ignore[call-arg]  # typingctx is numba's
