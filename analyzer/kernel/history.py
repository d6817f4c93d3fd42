"""The public history of paused deals: the kernel's event logs read into the public record.

On the pause path a line-up that reads the public history (``uses_history = True``) plays with the kernel's
event log on (analyzer.kernel.events).  After every kernel call :meth:`EventReader.read` feeds each slot's new
events, in order, to one :class:`analyzer.core.public.PublicRecord` whose rows are the slots -- the record and
the inference rules (G6/G7 forced draws, G6 drawn cards, SV4 passes), called in the order the events
happened -- and :func:`history` gives a pause's BatchHistory from it and the slot's talon and pile.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, U64
from analyzer.core.contract import BatchHistory
from analyzer.core.public import (
    NAME,
    TAKE_CHAIN,
    PublicRecord,
    batch_history,
    draw_proves_void,
    drawn_card_proves,
    pass_proves_void,
)
from analyzer.core.public import (
    PASS as PASS_EVENT,
)
from analyzer.core.rules import RuleSet
from analyzer.kernel import events as E
from analyzer.kernel.state import HANDS, HEAD, PCOUNT, TCOUNT, TURNOVERS

_ALL = U64((1 << 64) - 1)


class LogOverflow(RuntimeError):
    """A deal wrote more events than its log holds between two reads (the kernel stops a deal before that)."""


class EventReader:
    """The public record of ``slots`` deals, fed from their event logs (one row per slot)."""

    def __init__(self, rules: RuleSet, slots: int) -> None:
        self.rules = rules
        self.record = PublicRecord(rules, slots)
        self.n = rules.players
        #: a DRAW decision whose card is not yet read: the slot's flag and the cards that would have been legal
        self.deciding = np.zeros(slots, bool)
        self.acc = np.zeros(slots, np.uint64)
        #: the turn of the slot's last DRAW decision: a pass proves a void only in that turn (SV4; the kernel logs
        #: no turn starts, which would clear the record's ``drew_at_decision``)
        self.draw_turn = np.full(slots, -1, np.int64)
        self.void_proof = draw_proves_void(rules)
        self.card_proof = drawn_card_proves(rules)
        self.pass_proof = pass_proves_void(rules)

    def read(self, m: NDArray[np.uint64]) -> None:
        """Feed every slot's logged events (``m``: the slots' ``m`` rows) to the record, then empty the logs."""
        at = HANDS + self.n
        count = m[:, at].astype(np.int64)
        rows = np.flatnonzero(count)
        if not len(rows):
            return
        room = (m.shape[1] - at - 1) // E.WORDS
        if int(count[rows].max()) > room:
            raise LogOverflow(f"a deal logged {int(count[rows].max())} public events, its log holds {room}")
        # slots with the most events first: the slots with an ``e``-th event are then the first ``live[e]``
        rows = rows[np.argsort(-count[rows], kind="stable")]
        n_ev = count[rows]
        most = int(n_ev[0])
        live = (n_ev[None, :] > np.arange(most)[:, None]).sum(axis=1)
        words = m[rows, at + 1: at + 1 + E.WORDS * most].reshape(len(rows), most, E.WORDS)
        head = words[:, :, 0].astype(np.int64)
        for e in range(most):  # one event of each slot at a time, in order; the slots of one kind together
            r = int(live[e])
            col = head[:r, e] & 15
            order = np.argsort(col, kind="stable")
            counts = np.bincount(col, minlength=E.KINDS)
            start = 0
            for k in np.flatnonzero(counts).tolist():
                sel = order[start:start + counts[k]]
                start += counts[k]
                self._apply(k, rows[sel], head[sel, e], words[sel, e, 1], words[sel, e, 2])
        m[rows, at] = 0

    def _apply(self, kind: int, r: NDArray[np.int64], w0: NDArray[np.int64], mask: NDArray[np.uint64],
               extra: NDArray[np.uint64]) -> None:
        """One event in each of rows ``r`` (all of one kind), recorded as the rules define it."""
        pub = self.record
        seat = (w0 >> 4) & 15
        card = ((w0 >> 8) & 255) - 1
        suit = ((w0 >> 16) & 255) - 1
        turn = w0 >> 24
        if kind == E.START:
            sizes = np.stack([(extra >> U64(6 * s)) & U64(63) for s in range(self.n)], axis=1).astype(np.int16)
            pub.start(r, sizes, mask)
            self.deciding[r] = False
            self.draw_turn[r] = -1
        elif kind == E.TURN_OVER:
            pub.turned_over(r, card.astype(np.int8), turn, seat)
        elif kind == E.DRAW:
            new = pub.drew(r, seat, card.astype(np.int8), turn)
            d = self.deciding[r]
            if d.any():  # the card of a DRAW decision (G6 draw_one: it fits exactly when it is played at once)
                rd, sd, cd, acc = r[d], seat[d], card[d], self.acc[r[d]]
                if self.card_proof:
                    fits = (acc & BIT[cd]) != 0
                    nd = new[d]
                    pub.narrow_hand(rd[nd], sd[nd], np.where(fits, acc, ~acc)[nd], last_only=True)
                pub.drew_at_decision[rd] = True
                pub.void_at_draw[rd] = acc
                self.draw_turn[rd] = turn[d]
                self.deciding[rd] = False
        elif kind == E.DECIDE_DRAW:
            acc = np.where(mask == _ALL, pub.full, mask).astype(np.uint64)  # an empty pile takes the whole deck
            if self.void_proof:  # G6/G7: a draw at a decision proves no legal card was held
                pub.narrow_hand(r, seat, ~acc)
            self.deciding[r] = True
            self.acc[r] = acc
        elif kind == E.PASS:
            if self.pass_proof:  # SV4: drew at a decision this turn, then passed: no legal card at all
                sv = pub.drew_at_decision[r] & (self.draw_turn[r] == turn)
                pub.narrow_hand(r[sv], seat[sv], ~pub.void_at_draw[r[sv]])
            pub.passes[r, seat] += 1
            pub.log(r, turn, seat, PASS_EVENT)
        elif kind == E.TAKE:
            pub.takes[r, seat] += 1
            pub.log(r, turn, seat, TAKE_CHAIN)
        elif kind == E.PLAY:
            pub.played(r, seat, card.astype(np.int8), suit, turn)
        elif kind == E.NAME:  # PR2: the dealer names the suit of a Jack lead
            pub.named[r, 0] = suit
            pub.log(r, turn, 0, NAME, suit=suit)
        else:
            raise ValueError(f"unknown kernel event kind {kind}")


def history(reader: EventReader, slots: NDArray[np.int64], seat: NDArray[np.integer], hand: NDArray[np.uint64],
            st: NDArray[np.int64], ring: NDArray[Any], rules: RuleSet) -> BatchHistory:
    """The BatchHistory of paused decisions in ``slots`` (players ``seat`` holding ``hand``): the record's, with
    the pile (bottom first) and a talon of known order (G8 turn_over; top first) read off the slots' rings."""
    d = rules.deck_size
    rows2 = slots[:, None]

    def ordered(start: NDArray[np.int64], count: NDArray[np.int64]) -> NDArray[np.int8]:
        pos = (start[:, None] + np.arange(d)) % d
        return np.where(np.arange(d)[None, :] < count[:, None], ring[rows2, pos], -1).astype(np.int8)

    head, tcount, pcount = st[slots, HEAD], st[slots, TCOUNT], st[slots, PCOUNT]

    def talon() -> NDArray[np.int8]:
        known = (st[slots, TURNOVERS] > 0) & (rules.reshuffle == "turn_over")
        return np.where(known[:, None], ordered(head, tcount), -1).astype(np.int8)

    return batch_history(reader.record, slots, np.asarray(seat, np.int64), hand,
                         pile=lambda: ordered(head + tcount, pcount), pile_size=lambda: pcount.astype(np.int16),
                         talon=talon)
