"""The state of one deal in the compiled kernel: three small arrays and their layout.

* ``st`` int64[NI] — the scalar fields below (phase, turn, pending effects …);
* ``m``  uint64[2 + P] — ``m[PLAYED]`` the cards played so far, ``m[RNG]`` the
  play stream's counter, ``m[HANDS + seat]`` each seat's hand as a card mask;
* ``ring`` int64[52] — talon and pile as one circular queue (as in the numpy
  simulator): the talon is ``ring[head : head + tcount]`` top first, the pile
  follows it oldest first, so turning the pile over (G8) moves no card.

Seat 0 is the dealer and seat 1 acts first (G2), as in analyzer.engine.deal.
The phases are the engine's decision points (play, drawn, seven, lead_suit)
plus BEGIN (a turn starts: cap, effects, forced draws) and DONE.
"""

from __future__ import annotations

import numpy as np

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
