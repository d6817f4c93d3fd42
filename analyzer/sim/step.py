"""One step of the lock-step: each phase of a turn as one array operation over the slots in it.

:class:`TurnSteps` starts turns (cap, effects served), draws and passes the
turn; :class:`PlaySteps` takes one decision in every decision slot (legal
masks, forced moves, strategy calls through :mod:`analyzer.sim.calls`) and
carries it out.  Both are mixins of :class:`analyzer.sim.batch.BatchSim` over
the arrays of :class:`analyzer.sim.state.SlotState`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, RANK_MASK, RANK_OF, SUIT_OF, popcount, single_card
from analyzer.core.cards import DRAW, N_CARDS, TAKE
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.core.public import NAME, PASS, TAKE_CHAIN, PublicRecord, draw_proves_void, drawn_card_proves, pass_proves_void
from analyzer.core.streams import shuffled, uniforms
from analyzer.sim.state import BEGIN, DRAWN, LEAD, PLAY, SEVEN, SlotState

#: An action code inside one step: the drawn card does not fit, the turn passes (G6).
PASSES = -2


class TurnSteps(SlotState):
    """Turn flow: begin (G5, G10a, CZ8), draw (G8), pass (G10), advance."""

    if TYPE_CHECKING:  # provided by the other mixins of BatchSim (scoring, calls, history)
        recording: bool
        public: PublicRecord | None
        last_new: NDArray[np.bool_]

        def _end(self, rows: NDArray[np.int64], end: int) -> None: ...

        def _ask(self, rows, ask, act, suit, legal, can_draw, can_take, view_hand) -> None: ...

        def _record(self, rows, act, suit, ph) -> None: ...

    def _begin(self, rows: NDArray[np.int64]) -> None:
        """Start turns: the turn cap, then effects served (G5, G10a, CZ8)."""
        cap = self.turns[rows] >= self.r.turn_cap
        if cap.any():
            self._end(rows[cap], END_CAPPED)
            rows = rows[~cap]
        self.turns[rows] += 1
        self.drew[rows] = False
        if self.public is not None:
            self.public.drew_at_decision[rows] = False
        self.phase[rows] = PLAY  # (``drawn`` is read only in DRAWN, which sets it: no reset needed)
        if not self.r.sevens and not self.t.any_effect:
            return
        p7 = self.pend7[rows] > 0
        if p7.any():
            r7 = rows[p7]
            has7 = (self.hands[r7, self.cur[r7]] & RANK_MASK[7]) != 0
            self.phase[r7[has7]] = SEVEN
            self._take_seven(r7[~has7])
            rows = rows[~p7]
        eff = (self.pdraw[rows] > 0) | self.pskip[rows]
        if eff.any():
            re = rows[eff]
            k, skip = self.pdraw[re].copy(), self.pskip[re].copy()
            self.pdraw[re] = 0
            self.pskip[re] = False
            got, _ = self._draw(re, k)
            self.drew[re] = got > 0
            self._advance(re[skip])

    def _take_seven(self, rows: NDArray[np.int64]) -> None:
        """CZ8: no 7 to answer with, or TAKE chosen: draw the chain's penalty and lose the turn."""
        k = self.r.seven_penalty(self.pend7[rows])
        self.pend7[rows] = 0
        pub = self.public
        if pub is not None and len(rows):
            cur = self.cur[rows].astype(np.int64)
            pub.takes[rows, cur] += 1
            pub.log(rows, self.turns[rows], cur, TAKE_CHAIN)
        self._draw(rows, k)
        self._advance(rows)

    def _pass(self, rows: NDArray[np.int64]) -> None:
        """No legal card and nothing to draw: pass; a whole round of it blocks the deal (G10)."""
        self.stuck[rows] = np.where(self.drew[rows], 0, self.stuck[rows] + 1)
        pub = self.public
        if pub is not None and len(rows):
            cur = self.cur[rows].astype(np.int64)
            if pass_proves_void(self.r):  # SV4: drew at a decision, then passed: no legal card at all
                sv = pub.drew_at_decision[rows]
                pub.narrow_hand(rows[sv], cur[sv], ~pub.void_at_draw[rows[sv]])
            pub.passes[rows, cur] += 1
            pub.log(rows, self.turns[rows], cur, PASS)
        blocked = self.stuck[rows] >= self.n
        self.last_actor[rows[blocked]] = self.cur[rows[blocked]]
        self._end(rows[blocked], END_BLOCKED)
        self._advance(rows[~blocked])

    def _advance(self, rows: NDArray[np.int64], cur: NDArray[np.int8] | None = None) -> None:
        """The turn passes to the left; ``cur`` is the slots' current seat if already gathered."""
        if cur is None:
            cur = self.cur[rows]
        self.last_actor[rows] = cur
        nxt = cur + 1
        self.cur[rows] = np.where(nxt == self.n, 0, nxt)
        self.phase[rows] = BEGIN

    def _went_out(self, rows: NDArray[np.int64]) -> None:
        """The player who just played went out (the turn has passed on): serve the effect, end the deal."""
        if self.r.serve_last_effect:
            k = np.where(self.pend7[rows] > 0, self.r.seven_penalty(self.pend7[rows]), self.pdraw[rows])
            self._draw(rows, k)
        self._end(rows, END_OUT)

    # ------------------------------------------------------------ drawing
    def _draw(self, rows: NDArray[np.int64],
              k: NDArray[np.integer] | int) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        """Draw up to ``k`` cards into the current player's hand (G8).

        Returns the number drawn and the last card drawn (-1 if none).
        """
        k = np.broadcast_to(np.asarray(k, dtype=np.int16), rows.shape)
        got = np.zeros(len(rows), np.int16)
        last = np.full(len(rows), -1, np.int8)
        kmax = int(k.max()) if len(rows) else 0
        for j in range(kmax):
            sel = np.nonzero(k > j)[0]
            rr = rows[sel]
            can = self._can_draw(rr)
            sel, rr = sel[can], rr[can]
            if not len(rr):
                continue
            last[sel] = self._draw_one(rr)
            got[sel] += 1
        return got, last

    def _can_draw(self, rows: NDArray[np.int64]) -> NDArray[np.bool_]:
        """G8: a card can be drawn: the talon holds one, or the pile has more than its top to turn over."""
        return (self.tcount[rows] > 0) | (self.pcount[rows] > 1)

    def _draw_one(self, rows: NDArray[np.int64]) -> NDArray[np.int8]:
        """Each of ``rows`` (which can draw) draws one card, turning the pile over first if the talon is empty (G8)."""
        over = self.tcount[rows] == 0
        if over.any():
            ro = rows[over]
            self.tcount[ro] = self.pcount[ro] - 1
            self.pcount[ro] = 1
            self.turnovers[ro] += 1
            if self.r.reshuffle == "shuffle":
                self._shuffle_talon(ro)
            if self.public is not None:
                self.public.turned_over(ro, self.top[ro], self.turns[ro], self.cur[ro])
        head = self.head[rows]
        card = self.ring_at[rows * self.d + head]
        head += 1
        self.head[rows] = np.where(head == self.d, 0, head)
        self.tcount[rows] -= 1
        cur = self.cur[rows]
        at = rows * self.n + cur
        self.hand_at[at] |= BIT[card]
        if self.public is not None:
            self.last_new = self.public.drew(rows, cur.astype(np.int64), card, self.turns[rows])
        return card

    def _shuffle_talon(self, rows: NDArray[np.int64]) -> None:
        """G8 option reshuffle=shuffle: shuffle the freshly turned talon from the deal's own stream
        (core.streams, as the rules engine does: rare, so one row at a time)."""
        for row in rows.tolist():
            pos = (int(self.head[row]) + np.arange(int(self.tcount[row]))) % self.d
            cards, self.scount[row] = shuffled(self.ring[row, pos].tolist(), int(self.skey[row]), int(self.scount[row]))
            self.ring[row, pos] = cards


class PlaySteps(TurnSteps):
    """Decisions: legal masks and forced moves (G3-G7, CZ8, PR2, SV4), then the moves carried out."""

    def _decide(self, rows: NDArray[np.int64]) -> None:
        """One decision in every decision slot: forced steps, strategy calls, checks, moves."""
        ph = self.phase[rows]
        cur = self.cur[rows]
        hand = self.hand_at[rows * self.n + cur]
        # every slot as if in PLAY, then patch the few DRAWN / SEVEN / LEAD slots by index
        acc = self.acc[rows]
        legal = hand & acc
        drawable = self._can_draw(rows)
        can_draw = drawable & ((legal == 0) | self.r.voluntary_draw)
        can_take = np.zeros(len(rows), bool)
        lead = can_take
        view_hand = hand
        sp = np.nonzero(ph != PLAY)[0]
        special = len(sp) > 0
        if special:
            lead = can_take.copy()
            sph = ph[sp]
            can_draw[sp] = False
            d = sp[sph == DRAWN]
            legal[d] = BIT[self.drawn[rows[d]]]
            t = sp[sph == SEVEN]
            can_take[t] = True
            legal[t] = hand[t] & RANK_MASK[7]
            ld = sp[sph == LEAD]
            lead[ld] = True
            legal[ld] = BIT[self.top[rows[ld]]]
            if len(ld):
                view_hand = hand.copy()
                view_hand[ld] |= legal[ld]
        stuck = (legal == 0) & ~can_draw & ~can_take
        any_stuck = bool(stuck.any())
        if any_stuck:
            self._pass(rows[stuck])
        suit = np.full(len(rows), -1, np.int8)
        forced_draw = (legal == 0) & can_draw
        wild_single = (legal & self.t.wild_mask) != 0
        single = (popcount(legal) == 1) & ~can_draw & ~(wild_single & (popcount(hand) > 1))
        if special:
            single &= ~can_take & ~lead
        # full-width selects: cheaper than boolean-indexed writes when most slots take part
        act = np.where(single, single_card(legal), np.where(forced_draw, DRAW, -1)).astype(np.int16)
        ask = ~forced_draw & ~single
        if any_stuck:
            ask &= ~stuck
        if ask.any():
            self._ask(rows, ask, act, suit, legal, can_draw, can_take, view_hand)
        if any_stuck:
            go = ~stuck
            rows, act, suit, ph, cur, hand, acc = rows[go], act[go], suit[go], ph[go], cur[go], hand[go], acc[go]
        if self.recording:
            self._record(rows, act, suit, ph)
        self._apply(rows, act, suit, ph, cur, hand, acc, special)

    def _apply(self, rows, act, suit, ph, cur, hand, acc, special: bool = True) -> None:
        """Carry out one decided action per slot: take, Jack lead, draw, or play.

        ``cur``, ``hand`` and ``acc`` (the accept mask) are the slots' values
        gathered by :meth:`_decide`; they are reused rather than gathered again.
        A drawn card that fits is played in the same step as the other plays.
        """
        if special:
            take = act == TAKE
            if take.any():
                self._take_seven(rows[take])
            lead = ph == LEAD
            if lead.any():
                rl = rows[lead]
                top = self.top[rl]
                active = np.where(suit[lead] >= 0, suit[lead], SUIT_OF[np.maximum(top, 0)]).astype(np.int8)
                self.active[rl] = active
                if self.public is not None:  # PR2: the dealer names the suit of a Jack lead
                    self.public.named[rl, 0] = active
                    self.public.log(rl, self.turns[rl], 0, NAME, suit=active)
                self.acc[rl] = self._accept_of(top, active)
                self.cur[rl] = 1 % self.n
                self.phase[rl] = BEGIN
                act = np.where(lead, -1, act)
        di = np.nonzero(act == DRAW)[0]
        if len(di):
            act, hand = self._draw_decision(rows, di, act, cur, hand, acc)
        play = (act >= 0) & (act < N_CARDS)
        pi = np.nonzero(play)[0]
        out = None
        if len(pi):
            out = self._play(rows[pi], act[pi].astype(np.int8), suit[pi], ph[pi], cur[pi], hand[pi])
        # one turn change for every play and every drawn card that does not fit
        ai = np.nonzero(play | (act == PASSES))[0]
        self._advance(rows[ai], cur[ai])
        if out is not None and len(out):
            self._went_out(out)

    def _draw_decision(self, rows, di, act, cur, hand, acc):
        """G6 draw_one / SV4 draw_until_play for the slots ``rows[di]`` that chose DRAW.

        Returns ``act`` with the drawn card where it fits and must be played at
        once, PASSES where it does not fit (the turn passes), else -1; and
        ``hand`` with the drawn cards added.
        """
        dr = rows[di]
        pub = self.public
        if pub is not None and draw_proves_void(self.r):  # G6/G7: no legal card was held
            pub.narrow_hand(dr, cur[di], ~acc[di])
        card = self._draw_one(dr)  # a DRAW decision is offered only when a card can be drawn
        if pub is not None:
            new = self.last_new
            if drawn_card_proves(self.r):  # G6: the drawn card fits exactly when it is played at once
                fits_new = (acc[di] & BIT[card]) != 0
                pub.narrow_hand(dr[new], cur[di][new], np.where(fits_new, acc[di], ~acc[di])[new], last_only=True)
            pub.drew_at_decision[dr] = True
            pub.void_at_draw[dr] = acc[di]
        self.drew[dr] = True
        self.stuck[dr] = 0
        act = act.copy()
        hand = hand.copy()
        had = popcount(hand[di])
        hand[di] |= BIT[card]
        if self.r.no_card == "draw_until_play":  # the same player decides again
            act[di] = -1
            return act, hand
        fits = (acc[di] & BIT[card]) != 0
        # a drawn card that fits is played at once (G6); only a wild's suit is a choice
        choice = fits & (RANK_OF[card] == self.r.wild_rank) & (had >= 1)
        if choice.any():
            self.phase[dr[choice]] = DRAWN
            self.drawn[dr[choice]] = card[choice]
        now = fits & ~choice
        act[di] = np.where(now, card, np.where(fits, -1, PASSES))
        if self.recording and now.any():  # the engine's 'drawn' decision point
            k = int(now.sum())
            self._record(dr[now], card[now].astype(np.int16), np.full(k, -1, np.int8), np.full(k, PLAY, np.int8))
        return act, hand

    def _play(self, rows, card, suit, ph, cur, hand) -> NDArray[np.int64]:
        """Lay ``card`` on the pile for each slot (G3-G5); return the slots whose player went out.

        The caller passes the turn on (:meth:`_advance`), then ends the deals
        of the returned slots (:meth:`_went_out`).
        """
        if self.public is not None:
            named = np.where(RANK_OF[card] == self.r.wild_rank, np.where(suit >= 0, suit, SUIT_OF[card]), -1)
            self.public.played(rows, cur.astype(np.int64), card, named, self.turns[rows])
        hand = hand & ~BIT[card]
        self.hand_at[rows * self.n + cur] = hand
        pos = self.tail[rows]
        self.ring_at[rows * self.d + pos] = card
        pos += 1
        self.tail[rows] = np.where(pos == self.d, 0, pos)
        self.pcount[rows] += 1
        self.top[rows] = card
        self.played[rows] |= BIT[card]
        self.stuck[rows] = 0
        # only a wild names a suit (every answer is checked for it), so suit >= 0 means a named suit
        active = np.where(suit >= 0, suit, SUIT_OF[card]).astype(np.int8)
        self.active[rows] = active
        self.acc[rows] = self._accept_on(card, active)
        chain = np.where(ph == SEVEN, self.pend7[rows], 0).astype(np.int8) if self.r.sevens else None
        self._set_pending(rows, card, chain)
        left = popcount(hand)
        out = left == 0
        ro = rows[out]
        self.last_card[ro] = card[out]
        if self.r.last_card_call:  # CZ8: one card left, the call forgotten at forget_rate: draw 2
            one = rows[left == 1]
            if len(one):
                u = uniforms(self.skey[one], self.scount[one])
                self.scount[one] += np.uint64(1)
                self._draw(one[u < self.r.forget_rate], 2)
        return ro
