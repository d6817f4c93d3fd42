"""The public events of a deal, logged by the kernel for strategies that read the public history.

A line-up with a strategy that reads the public history (``uses_history = True``: tracker, pimc, ismcts,
expert) plays on the pause path with the rules' ``p[LOG]`` set (analyzer.kernel.params.logging_params).
Each deal then writes what every player at the table saw happen into the tail of its ``m`` row, past the
hands: ``m[at]`` counts the events, event ``i`` is the three words ``m[at + 1 + 3 i ..]`` (:func:`log_event`).
The phase functions write them where the event happens (a draw in ``turn.draw_one``, a play in
``turn.play_card`` ...), so every path that draws or plays logs the same way; with ``p[LOG]`` 0 (every other
kernel) the writes are never reached, and a kernel compiled for its rules drops them.

Python reads the log at every pause and feeds it to the one public record
(analyzer.core.public.PublicRecord, through analyzer.kernel.history), the code that builds a strategy's
history.  A log nearly full stops the deal (:func:`log_full`: the pause path then reads it and lets the deal
go on), so no event is ever lost.
"""

from __future__ import annotations

import numpy as np

from analyzer.kernel import params as P
from analyzer.kernel.jit import inner
from analyzer.kernel.state import HANDS

#: event kinds: a deal starts (its hand sizes and the starter), the pile is turned over (G8), a card is drawn, a
#: player passes (G10/SV4), takes a sevens chain (CZ8), draws at a decision (G6/SV4, with the cards that would
#: have been legal), plays a card, or the dealer names a Jack lead's suit (PR2); every event carries its turn
START, TURN_OVER, DRAW, PASS, TAKE, DECIDE_DRAW, PLAY, NAME = range(8)
KINDS = 8
#: words an event takes: (kind | seat << 4 | (card + 1) << 8 | (suit + 1) << 16 | turn << 24, a card mask, extra)
WORDS = 3
#: events a deal's log holds between two reads (the pause path sizes its ``m`` rows with it: 3.3 KiB a deal);
#: a deal stops for a read once ROOM - MARGIN are logged, which bounds the events one read goes through
ROOM = 136
#: a deal stops for its log to be read once fewer than this many events are free: more than one step of play
#: can write (a step's draws are bounded by the rules' penalties -- a whole sevens chain taken is eight cards,
#: each perhaps after a turn-over -- so a step writes a few dozen events at the most)
MARGIN = 96


def log_words(players: int) -> int:
    """The width of an ``m`` row with room for the log (the hands, the count, ROOM events)."""
    if ROOM <= MARGIN:  # the deal would stop for a read before every step, and never go on
        raise ValueError(f"the event log's room ({ROOM}) must exceed its margin ({MARGIN})")
    return HANDS + players + 1 + WORDS * ROOM


@inner
def log_event(m: np.ndarray, p: np.ndarray, kind: int, seat: int, card: int, suit: int, turn: int,
              mask: np.uint64, extra: np.uint64) -> None:
    """Append one event to the deal's log (the caller tests ``p[P.LOG]``)."""
    at = HANDS + p[P.PLAYERS]
    i = np.int64(m[at])
    j = at + 1 + WORDS * i
    if j + WORDS <= m.shape[0]:  # full: the count still grows, and the reader refuses the log (never a silent loss)
        m[j] = np.uint64(kind | (seat << 4) | ((card + 1) << 8) | ((suit + 1) << 16) | (turn << 24))
        m[j + 1] = mask
        m[j + 2] = extra
    m[at] = np.uint64(i + 1)


@inner
def log_full(m: np.ndarray, p: np.ndarray) -> bool:
    """The deal's log has fewer than MARGIN events free (see :data:`MARGIN`)."""
    at = HANDS + p[P.PLAYERS]
    return np.int64(m[at]) + MARGIN > (m.shape[0] - at - 1) // WORDS


@inner
def log_start(m: np.ndarray, p: np.ndarray, played: np.uint64) -> None:
    """A new deal: the log emptied, then START with the cards seen (the starter) and each seat's hand size
    (6 bits a seat, seat 0 lowest)."""
    n = p[P.PLAYERS]
    at = HANDS + n
    m[at] = np.uint64(0)
    sizes = np.uint64(0)
    for s in range(n):
        c = np.uint64(0)
        h = m[HANDS + s]
        while h != np.uint64(0):
            h &= h - np.uint64(1)
            c += np.uint64(1)
        sizes |= c << np.uint64(6 * s)
    log_event(m, p, START, 0, -1, -1, 0, played, sizes)
