"""The vectorized batch simulator: many deals (or matches) in lock-step with numpy.

It plays exactly the game of :mod:`analyzer.engine.deal` (tests hold the two equal
deal by deal) but over arrays with a leading *slot* axis.  A fixed number of
slots run at once; a slot whose deal (or match) ends is refilled at once with
the next one, so the batch never runs a long tail of nearly empty steps.

Layout per slot (seat 0 = dealer, seat 1 acts first):

* ``hands`` (B, P) uint64 card masks;
* ``ring`` (B, D) int8 — talon and pile as one circular queue: the talon is
  ``ring[head : head+tcount]`` (top first), the pile follows it oldest first,
  so turning the pile over (G8) is ``tcount = pcount - 1; pcount = 1`` with no
  card moved; ``tail`` is where the next card played goes;
* ``acc`` (B,) uint64 — the cards that may go on the top card (G3/G4), kept
  up to date where the top card or the active suit changes, so a decision
  reads one mask instead of recomputing it;
* ``phase`` (B,) — BEGIN (a turn starts: cap, effects), PLAY, DRAWN, SEVEN,
  LEAD (the decision points of the engine's phases of the same names), DONE
  (the deal is over, its slot waits to be scored), IDLE (free).

Every iteration runs the BEGIN slots, then every decision slot once: legal
masks and forced moves for all of them, one strategy call per strategy
object, then draws, plays and turn changes, each as one array operation over
the slots concerned.  The hot path gathers each slot's values once per step
and hands them on; ``hands`` and ``ring`` are indexed through flat views,
which numpy serves faster than 2-D fancy indexing.  Finished deals are
scored together when their slots are refilled.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import (BIT, CHUNK_TABLES, RANK_MASK, RANK_OF, SUIT_MASK, SUIT_OF, U64, cards_tuple, chunk_table,
                   mask_points, popcount, single_card)
from analyzer.core.cards import DRAW, KING, QUEEN, TAKE, N_CARDS, card_str, shuffled_decks
from analyzer.engine.match import MAX_DEALS, first_dealer, match_outcome
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT, DealResults, MatchResults
from analyzer.core.rules import RuleSet

BEGIN, PLAY, DRAWN, SEVEN, LEAD, IDLE, DONE = 0, 1, 2, 3, 4, 5, 6
PHASE_NAMES = ("begin", "play", "drawn", "seven", "lead_suit", "idle", "done")
DEFAULT_SLOTS = 16384


#: An action code inside one step: the drawn card does not fit, the turn passes (G6).
_PASSES = -2


class SimulationError(RuntimeError):
    """A strategy fault or a broken invariant; the message names the culprit."""


class StrategyFault(SimulationError):
    """A strategy raised or returned an illegal move at slot ``row``."""

    def __init__(self, message: str, row: int) -> None:
        super().__init__(message)
        self.row = row
        self.job = -1
        self.seat_strategies: list[object] = []
        self.deck: list[int] = []


def fault_dir() -> Path:
    """Where fault scenarios go: $DURAK_FAULT_DIR, else ./faults."""
    return Path(os.environ.get("DURAK_FAULT_DIR", "faults"))


@dataclass
class _Tables:
    """Per-rule-set lookup tables (rules as data for the hot path)."""

    eff_draw: NDArray[np.int8]  # (52,) penalty cards per card played
    eff_skip: NDArray[np.bool_]  # (52,)
    is_seven: NDArray[np.bool_]  # (52,) a 7 that starts a sevens chain (CZ8)
    card_points: NDArray[np.int16]  # (52,)
    wild_mask: np.uint64
    deck_mask: np.uint64
    king_bit: NDArray[np.uint64]  # (52,) for a Queen top: the bit of its King (else 0)
    qnk: NDArray[np.bool_]  # (53,) top card index+1 -> queen_needs_king applies
    points_table: NDArray[np.int16]  # (4, 8192) points of each 13-bit chunk of a card mask
    any_effect: bool  # some card makes the next player draw or lose a turn
    rank_accept: NDArray[np.uint64]  # (52,) what goes on a card by rank: its rank, plus wilds if they go on anything


def _tables(r: RuleSet) -> _Tables:
    from analyzer.core.cards import card_id, deck

    eff_draw = np.zeros(N_CARDS, np.int8)
    eff_skip = np.zeros(N_CARDS, bool)
    is_seven = np.zeros(N_CARDS, bool)
    pts = np.zeros(N_CARDS, np.int16)
    king_bit = np.zeros(N_CARDS, np.uint64)
    qnk = np.zeros(N_CARDS + 1, bool)
    for c in range(N_CARDS):
        rank = c // 4 + 2
        e = r.effects[rank]
        eff_draw[c], eff_skip[c] = e.draw, e.skip
        is_seven[c] = r.sevens and rank == 7
        pts[c] = r.points[rank]
        if rank == QUEEN:
            king_bit[c] = BIT[card_id(KING, c % 4)]
            qnk[c + 1] = r.queen_needs_king and r.wild_rank != QUEEN
    return _Tables(eff_draw, eff_skip, is_seven, pts, RANK_MASK[r.wild_rank],
                   np.uint64(sum(1 << c for c in deck(r.deck_size))), king_bit, qnk, chunk_table(pts),
                   bool(eff_draw.any() or eff_skip.any()),
                   RANK_MASK[RANK_OF] | (RANK_MASK[r.wild_rank] if r.wild_on_anything else U64(0)))


class BatchSim:
    """Slots of deals or matches under one rule set, driven by :meth:`run`."""

    def __init__(self, rules: RuleSet, strategies: Sequence[object], *, slots: int,
                 rng: np.random.Generator, matches: bool = False, check: bool = False,
                 deck_rng: np.random.Generator | None = None, trace_job: int | None = None) -> None:
        from analyzer.core.contract import BatchStrategy

        self.r = rules
        self.t = _tables(rules)
        self.strats = list(strategies)
        self.fast = [bool(isinstance(s, BatchStrategy) and hasattr(s, "choose_batch")) for s in self.strats]
        first = {id(s): i for i, s in reversed(list(enumerate(self.strats)))}
        self.strat_group = np.array([first[id(s)] for s in self.strats], np.int64)
        self.one_strategy = len(first) == 1
        #: offsets[seat] = the seats in play order from ``seat`` (column k = k seats to the left)
        self.offsets = (np.arange(rules.players)[:, None] + np.arange(rules.players)[None, :]) % rules.players
        self.rng = rng
        #: decks come from their own stream, so deal j's deck depends on the seed and j alone
        #: (not on the strategies' draws): the same seed deals the same cards to any line-up
        self.deck_rng = deck_rng if deck_rng is not None else rng
        #: the moves of one deal (or the current deal of one match) as replay tokens, to
        #: reproduce a strategy fault as a scenario file (issue 6)
        self.trace_job = trace_job
        self.trace_slot = -1
        self.trace: list[str] = []
        self.trace_lead: int | None = None
        self.matches = matches
        self.check = check
        n, d, b = rules.players, rules.deck_size, slots
        self.n, self.d, self.b = n, d, b
        z = np.zeros
        self.hands = z((b, n), np.uint64)
        #: the same memory flat: hand_at[slot * n + seat] (one flat index is cheaper than a 2-D one)
        self.hand_at = self.hands.reshape(-1)
        self.ring = z((b, d), np.int8)
        self.ring_at = self.ring.reshape(-1)  # flat view: ring_at[slot * d + position]
        self.slot_deck = z((b, d), np.int8)  # the deal's deck order, to reproduce a fault
        self.head = z(b, np.int16)
        self.tcount = z(b, np.int16)
        self.pcount = z(b, np.int16)
        self.tail = z(b, np.int16)  # ring position of the next card played: (head + tcount + pcount) mod D
        self.top = np.full(b, -1, np.int8)
        self.active = np.full(b, -1, np.int8)
        self.acc = z(b, np.uint64)  # the cards that may go on the top card (_accept_of(top, active))
        self.cur = z(b, np.int8)
        self.phase = np.full(b, IDLE, np.int8)
        self.end = z(b, np.int8)  # how a DONE slot's deal ended
        self.pdraw = z(b, np.int8)
        self.pskip = z(b, bool)
        self.pend7 = z(b, np.int8)
        self.drawn = np.full(b, -1, np.int8)
        self.drew = z(b, bool)
        self.turns = z(b, np.int32)
        self.stuck = z(b, np.int8)
        self.turnovers = z(b, np.int16)
        self.played = z(b, np.uint64)
        self.last_actor = z(b, np.int8)
        self.last_card = np.full(b, -1, np.int8)
        self.job = np.full(b, -1, np.int64)  # deal (or match) index in the output
        self.dealer = z(b, np.int8)  # player id of the dealer (matches)
        # match bookkeeping
        self.totals = z((b, n), np.int32)
        self.deals_done = z(b, np.int32)
        self.capped_deals = z(b, np.int32)
        self.deal_k = z(b, np.int32)
        self.done_rows = 0

    # ------------------------------------------------------------ dealing
    def _seat_player(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        """(R, P) player id sitting at each seat: seat s is player (dealer + s) mod n."""
        return (self.dealer[rows, None].astype(np.int64) + np.arange(self.n)) % self.n

    def _deal(self, rows: NDArray[np.int64], decks: NDArray[np.int8]) -> None:
        """G10a/CZ2/CZ3/PR2/SV2: deal ``decks`` (R, D) into ``rows`` and lay the starter."""
        r, n, h, d = self.r, self.n, self.r.hand_size, self.d
        # card i goes to seat (i + 1) mod n, one at a time from the dealer's left: as a
        # (R, h, n) block, column j holds the cards of seat j + 1
        dealt = np.bitwise_or.reduce(BIT[decks[:, : n * h]].reshape(len(rows), h, n), axis=1)
        hands = np.roll(dealt, 1, axis=1)
        used = n * h
        starter = np.full(len(rows), -1, np.int8)
        if r.starter_kind == "turned":
            starter = decks[:, used].copy()
            used += 1
        elif r.starter_kind == "dealer_lead":
            starter = decks[:, used - 1].copy()
            hands[:, 0] &= ~BIT[starter]
        self.hands[rows] = hands
        self.slot_deck[rows] = decks
        if self.trace_job is not None:
            hit = self.job[rows] == self.trace_job
            if hit.any():
                self.trace_slot, self.trace, self.trace_lead = int(rows[hit][0]), [], None
        rest = d - used
        ring = np.zeros((len(rows), d), np.int8)
        ring[:, :rest] = decks[:, used:]
        has_starter = starter >= 0
        if has_starter.any():
            ring[:, rest] = np.where(has_starter, starter, 0)
        self.ring[rows] = ring
        self.head[rows] = 0
        self.tcount[rows] = rest
        self.pcount[rows] = has_starter.astype(np.int16)
        self.tail[rows] = rest + has_starter
        self.top[rows] = starter
        active = np.where(has_starter, SUIT_OF[np.maximum(starter, 0)], -1).astype(np.int8)
        self.active[rows] = active
        self.acc[rows] = self._accept_of(starter, active)
        self.played[rows] = np.where(has_starter, BIT[np.maximum(starter, 0)], U64(0))
        self.cur[rows] = 1 % n
        self.phase[rows] = BEGIN
        self.pdraw[rows] = 0
        self.pskip[rows] = False
        self.pend7[rows] = 0
        self.drawn[rows] = -1
        self.drew[rows] = False
        self.turns[rows] = 0
        self.stuck[rows] = 0
        self.turnovers[rows] = 0
        self.last_actor[rows] = 0
        self.last_card[rows] = -1
        if r.starter_effects and has_starter.any():
            sr = rows[has_starter]
            self._set_pending(sr, starter[has_starter], np.zeros(len(sr), np.int8))
            if r.starter_kind == "dealer_lead":
                jack = RANK_OF[starter[has_starter]] == r.wild_rank
                self.cur[sr[jack]] = 0
                self.phase[sr[jack]] = LEAD  # PR2: the dealer names the suit

    def _set_pending(self, rows: NDArray[np.int64], cards: NDArray[np.int8], chain: NDArray[np.int8] | None) -> None:
        """G5/CZ8: the effect of the card just laid waits for the next player."""
        t = self.t
        if not self.r.sevens:
            if not t.any_effect:  # nothing to set: pdraw and pskip stay 0 for the whole run
                return
            self.pdraw[rows] = t.eff_draw[cards]
            self.pskip[rows] = t.eff_skip[cards]
            return
        seven = t.is_seven[cards]
        self.pend7[rows] = np.where(seven, (0 if chain is None else chain) + 1, 0)
        self.pdraw[rows] = np.where(seven, 0, t.eff_draw[cards])
        self.pskip[rows] = np.where(seven, False, t.eff_skip[cards])

    # ------------------------------------------------------------ drawing
    def _draw(self, rows: NDArray[np.int64], k: NDArray[np.integer] | int) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
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
        head = self.head[rows]
        card = self.ring_at[rows * self.d + head]
        head += 1
        self.head[rows] = np.where(head == self.d, 0, head)
        self.tcount[rows] -= 1
        at = rows * self.n + self.cur[rows]
        self.hand_at[at] |= BIT[card]
        return card

    def _shuffle_talon(self, rows: NDArray[np.int64]) -> None:
        """G8 option reshuffle=shuffle: shuffle the freshly turned talon (rare; per row)."""
        for row in rows:
            pos = (int(self.head[row]) + np.arange(int(self.tcount[row]))) % self.d
            self.ring[row, pos] = self.rng.permutation(self.ring[row, pos])

    # ------------------------------------------------------------ turn flow
    def _advance(self, rows: NDArray[np.int64], cur: NDArray[np.int8] | None = None) -> None:
        """The turn passes to the left; ``cur`` is the slots' current seat if already gathered."""
        if cur is None:
            cur = self.cur[rows]
        self.last_actor[rows] = cur
        nxt = cur + 1
        self.cur[rows] = np.where(nxt == self.n, 0, nxt)
        self.phase[rows] = BEGIN

    def _begin(self, rows: NDArray[np.int64]) -> None:
        """Start turns: the turn cap, then effects served (G5, G10a, CZ8)."""
        cap = self.turns[rows] >= self.r.turn_cap
        if cap.any():
            self._end(rows[cap], END_CAPPED)
            rows = rows[~cap]
        self.turns[rows] += 1
        self.drew[rows] = False
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
        k = self.r.seven_penalty(self.pend7[rows])
        self.pend7[rows] = 0
        self._draw(rows, k)
        self._advance(rows)

    def _pass(self, rows: NDArray[np.int64]) -> None:
        """No legal card and nothing to draw: pass; a whole round of it blocks the deal (G10)."""
        self.stuck[rows] = np.where(self.drew[rows], 0, self.stuck[rows] + 1)
        blocked = self.stuck[rows] >= self.n
        self.last_actor[rows[blocked]] = self.cur[rows[blocked]]
        self._end(rows[blocked], END_BLOCKED)
        self._advance(rows[~blocked])

    def _accept_of(self, top: NDArray[np.int8], active: NDArray[np.int8]) -> NDArray[np.uint64]:
        """G3/G4/CZ8: the mask of cards that may go on a top card under an active suit (all on an empty pile).

        Kept per slot in ``self.acc`` and recomputed only where the top card or
        the active suit changes (a deal, a play, a Jack lead's named suit).
        """
        return np.where(top >= 0, self._accept_on(np.maximum(top, 0), np.maximum(active, 0)), self.t.deck_mask)

    def _accept_on(self, card: NDArray[np.int8], suit: NDArray[np.int8]) -> NDArray[np.uint64]:
        """:meth:`_accept_of` for a pile that is not empty (``card`` >= 0): the case of every play."""
        ok = SUIT_MASK[suit] | self.t.rank_accept[card]
        if self.r.queen_needs_king:
            ok = np.where(self.t.qnk[card + 1], self.t.king_bit[card], ok)
        return ok

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
        if self.trace_slot >= 0:
            self._record(rows, act, suit, ph)
        self._apply(rows, act, suit, ph, cur, hand, acc, special)

    def _record(self, rows, act, suit, ph) -> None:
        """Append the traced slot's decision as a replay token (a Jack lead's suit goes to the starter)."""
        at = np.nonzero(rows == self.trace_slot)[0]
        if not len(at):
            return
        i = int(at[0])
        if ph[i] == LEAD:
            self.trace_lead = int(suit[i])
            return
        from analyzer.engine.faults import token

        self.trace.append(token(int(act[i]), None if suit[i] < 0 else int(suit[i])))

    def _ask(self, rows, ask, act, suit, legal, can_draw, can_take, view_hand) -> None:
        """Call each seat's strategy on the slots where it must choose, and check the answers."""
        where_all = np.nonzero(ask)[0]
        ar = rows[where_all]
        # one call per distinct strategy object, however many seats it plays
        if self.one_strategy:
            groups = [(0, ar, where_all)]
        else:
            sidx = self.strat_group[self._strategy_index(ar)]
            groups = [(int(k), ar[m], where_all[m]) for k in np.unique(sidx) for m in [sidx == k]]
        for k, rr, where in groups:
            view = self._view(rr, where, legal, can_draw, can_take, view_hand)
            strat = self.strats[k]
            try:
                a, s = self._call(strat, self.fast[k], view, rr)
                self._check_answers(strat, view, a, s, rr)
            except StrategyFault as fault:
                fault.job = int(self.job[fault.row])
                fault.seat_strategies = [self.strats[int(p)] for p in self._seat_player(np.array([fault.row]))[0]]
                fault.deck = self.slot_deck[fault.row].tolist()
                raise
            act[where] = a
            suit[where] = s

    def _view(self, rr, where, legal, can_draw, can_take, view_hand):
        """The BatchView of slots ``rr``; what few strategies read is computed only when read."""
        from analyzer.core.contract import BatchView

        ph = self.phase[rr]
        cur = self.cur[rr]

        def hand_sizes():
            seats = self.offsets[cur]
            return popcount(self.hands[rr[:, None], seats]).astype(np.int16)

        def scores():
            players = self._seat_player(rr)
            return self.totals[rr[:, None], players[np.arange(len(rr))[:, None], self.offsets[cur]]]

        return BatchView(
            rules=self.r, seat=cur, hand=view_hand[where], legal=legal[where],
            can_draw=can_draw[where], can_take=can_take[where],
            top=np.where(ph == LEAD, -1, self.top[rr]).astype(np.int8),
            active_suit=self.active[rr],
            pending_seven=np.where(ph == SEVEN, self.pend7[rr], 0).astype(np.int16),
            hand_sizes=hand_sizes, talon_size=lambda: self.tcount[rr], played=lambda: self.played[rr],
            scores=scores if self.matches else None)

    def _strategy_index(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        return (self.dealer[rows].astype(np.int64) + self.cur[rows]) % self.n

    def _call(self, strat, fast: bool, view, rows) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
        name = getattr(strat, "name", repr(strat))
        try:
            if fast:
                a, s = strat.choose_batch(view, self.rng)
            else:
                a, s = _choose_rows(strat, view, self.rng)
        except SimulationError:
            raise
        except _BadAnswer as bad:
            raise StrategyFault(self._where(name, rows[bad.i]) + f": choose returned {bad.value!r}, not an action "
                                "(a card id, DRAW or TAKE, with a suit or None)", int(rows[bad.i])) from None
        except Exception as exc:
            raise StrategyFault(self._where(name, rows[0]) + f": the strategy raised {type(exc).__name__}: {exc}",
                                int(rows[0])) from exc
        a, s = np.asarray(a), np.asarray(s)
        if a.shape != (len(rows),) or s.shape != (len(rows),) or a.dtype.kind not in "iu" or s.dtype.kind not in "iu":
            raise StrategyFault(self._where(name, rows[0]) + f": choose_batch must return two integer arrays of shape "
                                f"({len(rows)},), got {a.dtype}{a.shape} and {s.dtype}{s.shape}", int(rows[0]))
        return a.astype(np.int16), s.astype(np.int8)

    def _where(self, name: str, row: int) -> str:
        unit = "match" if self.matches else "deal"
        return (f"strategy {name!r} ({self.r.variant}, {unit} {int(self.job[row])}, turn {int(self.turns[row])}, "
                f"seat {int(self.cur[row])})")

    def _check_answers(self, strat, view, a, s, rows) -> None:
        """Every returned action must be legal, and only a wild names a suit (STYLE.md 3)."""
        card = (a >= 0) & (a < N_CARDS)
        ac = np.clip(a, 0, N_CARDS - 1)
        ok_card = card & ((view.legal & BIT[ac]) != 0)
        ok = ok_card | ((a == DRAW) & view.can_draw) | ((a == TAKE) & view.can_take)
        wild = card & (RANK_OF[ac] == self.r.wild_rank)
        ok &= (s == -1) | (wild & (s >= 0) & (s < 4))
        if not ok.all():
            i = int(np.nonzero(~ok)[0][0])
            from analyzer.core.contract import describe_action

            legal = [card_str(c) for c in cards_tuple(int(view.legal[i]))]
            legal += ["draw"] * bool(view.can_draw[i]) + ["take"] * bool(view.can_take[i])
            what = "names a suit without playing a wild" if ok_card[i] else "is not legal"
            raise StrategyFault(self._where(getattr(strat, "name", repr(strat)), rows[i])
                                + f": move {describe_action(int(a[i]), int(s[i]))} {what} "
                                + f"(legal: {' '.join(legal)})", int(rows[i]))

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
        ai = np.nonzero(play | (act == _PASSES))[0]
        self._advance(rows[ai], cur[ai])
        if out is not None and len(out):
            self._went_out(out)

    def _draw_decision(self, rows, di, act, cur, hand, acc):
        """G6 draw_one / SV4 draw_until_play for the slots ``rows[di]`` that chose DRAW.

        Returns ``act`` with the drawn card where it fits and must be played at
        once, _PASSES where it does not fit (the turn passes), else -1; and
        ``hand`` with the drawn cards added.
        """
        dr = rows[di]
        card = self._draw_one(dr)  # a DRAW decision is offered only when a card can be drawn
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
        act[di] = np.where(now, card, np.where(fits, -1, _PASSES))
        if self.trace_slot >= 0 and now.any():  # the engine's 'drawn' decision point
            k = int(now.sum())
            self._record(dr[now], card[now].astype(np.int16), np.full(k, -1, np.int8), np.full(k, PLAY, np.int8))
        return act, hand

    def _play(self, rows, card, suit, ph, cur, hand) -> NDArray[np.int64]:
        """Lay ``card`` on the pile for each slot (G3-G5); return the slots whose player went out.

        The caller passes the turn on (:meth:`_advance`), then ends the deals
        of the returned slots (:meth:`_went_out`).
        """
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
        if self.r.last_card_call:
            stay = ~out
            forgot = (left[stay] == 1) & (self.rng.random(int(stay.sum())) < self.r.forget_rate)
            self._draw(rows[stay][forgot], 2)  # CZ8 last_card_call
        return ro

    def _went_out(self, rows: NDArray[np.int64]) -> None:
        """The player who just played went out (the turn has passed on): serve the effect, end the deal."""
        if self.r.serve_last_effect:
            k = np.where(self.pend7[rows] > 0, self.r.seven_penalty(self.pend7[rows]), self.pdraw[rows])
            self._draw(rows, k)
        self._end(rows, END_OUT)

    # ------------------------------------------------------------ results
    def _end(self, rows: NDArray[np.int64], end: int) -> None:
        """The deals of ``rows`` are over (``end``: out, blocked, capped).

        Deals are scored later, all that ended since the last refill in one
        call (scoring a few hundred rows costs mostly fixed overhead); a match
        scores at once, since its next deal must be dealt.
        """
        self.end[rows] = end
        self.phase[rows] = DONE
        if self.matches:
            self._score(rows)

    def _score(self, rows: NDArray[np.int64]) -> None:
        """G9/G10/PR7: score finished deals and hand them to the deal (or match) collector."""
        if not len(rows):
            return
        r, t, n = self.r, self.t, self.n
        hands = self.hands[rows]
        end = self.end[rows]
        pts = mask_points(hands, t.points_table)
        if r.lone_wild_points is not None:
            lone = (popcount(hands) == 1) & ((hands & t.wild_mask) != 0)
            pts = np.where(lone, r.lone_wild_points, pts)
        if r.jack_finish_doubles:
            lc = self.last_card[rows]
            dbl = (lc >= 0) & (RANK_OF[np.maximum(lc, 0)] == r.wild_rank)
            pts = np.where(dbl[:, None], 2 * pts, pts)
        holders = (hands & t.wild_mask) != 0
        went = np.where(end == END_OUT, self.last_actor[rows], -1).astype(np.int8)
        order = (np.arange(n)[None, :] - self.last_actor[rows, None].astype(np.int64) - 1) % n
        seat_idx = np.arange(n)[None, :]
        key_max = pts.astype(np.int64) * 16 + (15 - order)
        key_min = pts.astype(np.int64) * 16 + order
        # G10: a blocked deal is won by the fewest points, picked before the loser
        best = np.where(went >= 0, -1, key_min.argmin(axis=1))
        excluded = (seat_idx == went[:, None]) | (seat_idx == best[:, None])
        loser = np.where(excluded, -1, key_max).argmax(axis=1)
        by_wild = np.zeros(len(rows), bool)
        if r.wild_rule == "deal":  # PR7
            any_h = holders.any(axis=1)
            wl = np.where(holders, key_max, -1).argmax(axis=1)
            by_wild = any_h & (wl != loser)
            loser = np.where(any_h, wl, loser)
        next_best = np.where(seat_idx == loser[:, None], 1 << 40, key_min).argmin(axis=1)
        winner = np.where(went >= 0, went, np.where(best != loser, best, next_best))
        capped = end == END_CAPPED
        winner = np.where(capped, -1, winner)
        loser = np.where(capped, -1, loser)
        by_wild &= ~capped
        self.phase[rows] = IDLE
        self._collect(rows, end, pts, went, winner, loser, by_wild, holders)

    def _collect(self, rows, end, pts, went, winner, loser, by_wild, holders) -> None:
        """Store a finished deal by player id (deal mode) or fold it into its match."""
        seat_player = self._seat_player(rows)
        ar = np.arange(len(rows))[:, None]
        by_player = np.zeros_like(pts)
        by_player[ar, seat_player] = pts
        wild_p = np.zeros_like(holders)
        wild_p[ar, seat_player] = holders

        def to_player(seat):
            seat = np.asarray(seat)
            return np.where(seat >= 0, seat_player[np.arange(len(rows)), np.maximum(seat, 0)], -1)

        if not self.matches:
            j = self.job[rows]
            o = self.out
            o["points"][j] = by_player
            o["went_out"][j] = to_player(went)
            o["winner"][j] = to_player(winner)
            o["loser"][j] = to_player(loser)
            o["loser_by_wild"][j] = by_wild
            o["wild_held"][j] = wild_p
            o["end"][j] = end
            o["turns"][j] = self.turns[rows]
            o["last_card"][j] = self.last_card[rows]
            o["turnovers"][j] = self.turnovers[rows]
            self.job[rows] = -1
            return
        self.totals[rows] += by_player
        self.deals_done[rows] += 1
        self.capped_deals[rows] += end == END_CAPPED
        over = (self.totals[rows].max(axis=1) >= self.r.target) | (self.deals_done[rows] >= MAX_DEALS)
        fin = rows[over]
        if len(fin):
            win, loss, bw = match_outcome(self.r, self.totals[fin], wild_p[over])
            j = self.job[fin]
            o = self.out
            o["totals"][j] = self.totals[fin]
            o["win_share"][j] = win
            o["loss_share"][j] = loss
            o["loser_by_wild"][j] = bw
            o["wild_held"][j] = wild_p[over]
            o["deals"][j] = self.deals_done[fin]
            o["capped_deals"][j] = self.capped_deals[fin]
            self.job[fin] = -1
        cont = rows[~over]
        if len(cont):
            w = to_player(winner)[~over]
            if self.r.variant == "svinya":  # SV2: the deal's winner leads the next
                nd = np.where(w >= 0, (w - 1) % self.n, (self.dealer[cont] + 1) % self.n)
            else:  # CZ2: the deal passes to the left
                nd = (self.dealer[cont] + 1) % self.n
            self.dealer[cont] = nd
            self.pending_redeal.append(cont)

    # ------------------------------------------------------------ driver
    def run(self, n_jobs: int, decks: NDArray[np.int8] | None) -> DealResults | MatchResults:
        """Play ``n_jobs`` deals (or matches) and return their results in job order.

        ``decks``: (N, D) deck orders for deals, (N, K, D) for matches (deal k of
        match i uses ``decks[i, k]``); None draws seeded shuffles.
        """
        n = self.n
        self.out = _alloc(n_jobs, n, self.matches)
        self.pending_redeal: list[NDArray[np.int64]] = []
        next_job = 0

        def get_decks(rows: NDArray[np.int64]) -> NDArray[np.int8]:
            if decks is None:
                return shuffled_decks(self.r.deck_size, len(rows), self.deck_rng)
            if self.matches:
                k = self.deal_k[rows]
                if (k >= decks.shape[1]).any():
                    raise SimulationError(f"given decks hold {decks.shape[1]} deals per match; a match needs more")
                return decks[self.job[rows], k]
            return decks[self.job[rows]]

        while True:
            done = np.nonzero(self.phase == DONE)[0]
            n_free = int(np.count_nonzero(self.job < 0)) + len(done)
            # refill in batches: dealing a few slots every step costs more than it gains
            if n_free and next_job < n_jobs and (n_free * 16 >= self.b or n_free == self.b):
                self._score(done)
                free = np.nonzero(self.job < 0)[0]
                take = free[: n_jobs - next_job]
                self.job[take] = np.arange(next_job, next_job + len(take))
                next_job += len(take)
                self.dealer[take] = first_dealer(n)
                self.totals[take] = 0
                self.deals_done[take] = 0
                self.capped_deals[take] = 0
                self.deal_k[take] = 0
                self._deal(take, get_decks(take))
            if self.pending_redeal:
                rows = np.concatenate(self.pending_redeal)
                self.pending_redeal = []
                self.deal_k[rows] += 1
                self._deal(rows, get_decks(rows))
            ph = self.phase
            begin = np.nonzero(ph == BEGIN)[0]
            while len(begin):  # lost turns pass at once to the next player's turn
                self._begin(begin)
                begin = begin[self.phase[begin] == BEGIN]
            dec = np.nonzero((self.phase >= PLAY) & (self.phase <= LEAD))[0]
            if len(dec):
                self._decide(dec)
            if self.check:
                self._check_invariants()
            if next_job >= n_jobs and not self.pending_redeal:
                self._score(np.nonzero(self.phase == DONE)[0])
                if not (self.job >= 0).any():
                    break
        return (MatchResults if self.matches else DealResults)(**self.out)

    def _check_invariants(self) -> None:
        """--check: card conservation in every live slot (issue 6, point 4)."""
        live = np.nonzero(self.phase != IDLE)[0]
        if not len(live):
            return
        hands = self.hands[live]
        union = np.bitwise_or.reduce(hands, axis=1)
        overlap = popcount(union).astype(np.int64) != popcount(hands).astype(np.int64).sum(axis=1)
        ring_n = self.tcount[live].astype(np.int64) + self.pcount[live]
        pos = (self.head[live, None].astype(np.int64) + np.arange(self.d)) % self.d
        ring_cards = self.ring[live[:, None], pos]
        in_ring = np.arange(self.d)[None, :] < ring_n[:, None]
        ring_mask = np.bitwise_or.reduce(np.where(in_ring, BIT[np.maximum(ring_cards, 0)], U64(0)), axis=1)
        lost = overlap | ((union & ring_mask) != 0) | ((union | ring_mask) != self.t.deck_mask) \
            | (popcount(union).astype(np.int64) + ring_n != self.d)
        stale = ((self.head[live].astype(np.int64) + ring_n) % self.d != self.tail[live]) \
            | (self.acc[live] != self._accept_of(self.top[live], self.active[live]))
        for bad, what in ((lost, "cards not conserved"), (stale, "pile position or accept mask out of date")):
            if bad.any():
                row = int(live[np.nonzero(bad)[0][0]])
                unit = "match" if self.matches else "deal"
                raise SimulationError(f"invariant broken: {what} in {self.r.variant} {unit} {int(self.job[row])} "
                                      f"at turn {int(self.turns[row])}")


def _alloc(n: int, p: int, matches: bool) -> dict[str, np.ndarray]:
    z = np.zeros
    if matches:
        return {"totals": z((n, p), np.int32), "win_share": z((n, p), np.float32),
                "loss_share": z((n, p), np.float32), "loser_by_wild": z(n, bool),
                "wild_held": z((n, p), bool), "deals": z(n, np.int32), "capped_deals": z(n, np.int32)}
    return {"points": z((n, p), np.int16), "went_out": z(n, np.int8), "winner": z(n, np.int8),
            "loser": z(n, np.int8), "loser_by_wild": z(n, bool), "wild_held": z((n, p), bool),
            "end": z(n, np.int8), "turns": z(n, np.int32), "last_card": z(n, np.int8),
            "turnovers": z(n, np.int16)}


def _choose_rows(strat, view, rng) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
    """The simple-path adapter: one ``choose`` call per row of a BatchView.

    This loop is the simple path's whole overhead, so it is written for speed:
    arrays become Python lists once (numpy scalars are slow to convert one by
    one), card tuples come from four 13-bit table look-ups written out
    (``bits.cards_tuple``), views are built positionally (``tuple.__new__``, the
    cheapest way to make a NamedTuple) and answers are collected in lists.
    """
    from analyzer.core.contract import DecisionView

    new = tuple.__new__
    choose = strat.choose
    rules = view.rules
    t0, t1, t2, t3 = CHUNK_TABLES
    extra = ((), (DRAW,), (TAKE,), (DRAW, TAKE))
    kinds = (view.can_draw.astype(np.int8) + 2 * view.can_take.astype(np.int8)).tolist()
    tops = [None if t < 0 else t for t in view.top.tolist()]
    suits_in = [None if a < 0 else a for a in view.active_suit.tolist()]
    sizes = list(map(tuple, view.hand_sizes.tolist()))
    scores = [None] * len(kinds) if view.scores is None else list(map(tuple, view.scores.tolist()))
    acts: list[int] = []
    suits: list[int] = []
    for seat, h, g, kind, top, a_s, p7, hs, talon, p, sc in zip(
            view.seat.tolist(), view.hand.tolist(), view.legal.tolist(), kinds, tops, suits_in,
            view.pending_seven.tolist(), sizes, view.talon_size.tolist(), view.played.tolist(), scores):
        a, s = choose(new(DecisionView, (
            rules, seat,
            t0[h & 0x1FFF] + t1[(h >> 13) & 0x1FFF] + t2[(h >> 26) & 0x1FFF] + t3[h >> 39],
            t0[g & 0x1FFF] + t1[(g >> 13) & 0x1FFF] + t2[(g >> 26) & 0x1FFF] + t3[g >> 39] + extra[kind],
            top, a_s, p7, hs, talon,
            frozenset(t0[p & 0x1FFF] + t1[(p >> 13) & 0x1FFF] + t2[(p >> 26) & 0x1FFF] + t3[p >> 39]),
            sc)), rng)
        acts.append(a)
        suits.append(-1 if s is None else s)
    try:
        return np.array(acts, np.int16), np.array(suits, np.int8)
    except (TypeError, ValueError, OverflowError):
        return _answers_one_by_one(acts, suits)


class _BadAnswer(Exception):
    """A simple-path answer that is not an action at all (row ``i`` of the batch)."""

    def __init__(self, i: int, value: object) -> None:
        super().__init__(i, value)
        self.i, self.value = i, value


def _answers_one_by_one(acts: list, suits: list) -> tuple[NDArray[np.int16], NDArray[np.int8]]:
    """Convert answers that did not convert in bulk; raise _BadAnswer at the first that is no action."""
    out_a, out_s = np.empty(len(acts), np.int16), np.empty(len(acts), np.int8)
    for i, (a, s) in enumerate(zip(acts, suits)):
        try:
            out_a[i], out_s[i] = int(a), int(s)
        except (TypeError, ValueError, OverflowError):
            raise _BadAnswer(i, (a, None if s == -1 else s)) from None
    return out_a, out_s


def _reproduce(fault: StrategyFault, rules: RuleSet, strategies: Sequence[object], n: int,
               ss: np.random.SeedSequence, decks, slots: int, matches: bool) -> str:
    """Play the same run again, tracing the faulty deal, and write it as a scenario file.

    The run is deterministic given its seed, so the fault recurs at the same
    decision; the tokens recorded up to it replay the deal to that point.  A
    strategy that is not deterministic may not fault again: then the deal is
    reproduced in the rules engine instead (faults.write_fault_scenario).
    """
    from analyzer.engine.faults import write_fault_scenario, write_trace_scenario

    unit = "match" if matches else "deal"
    label = f"{rules.variant}-{unit}{fault.job}"
    play_rng, deck_rng = _streams(ss)
    again = BatchSim(rules, strategies, slots=slots, rng=play_rng, matches=matches, deck_rng=deck_rng,
                     trace_job=fault.job)
    try:
        again.run(n, decks)
    except StrategyFault as second:
        if second.job == fault.job and str(second) == str(fault):
            try:
                path = write_trace_scenario(rules, second.seat_strategies, second.deck, again.trace,
                                            again.trace_lead, fault_dir(), label)
            except OSError as exc:
                return f"could not write the fault scenario: {exc}"
            return f"scenario {path} replays to the faulty decision: durak replay {path}"
    except Exception:  # noqa: BLE001 — a strategy that misbehaves differently the second time
        pass
    try:
        path, met = write_fault_scenario(rules, fault.seat_strategies, fault.deck, fault_dir(), label)
    except OSError as exc:
        return f"could not write the fault scenario: {exc}"
    how = "replays to the faulty decision" if met else "holds the deal (the strategy did not fault the same way again)"
    return f"scenario {path} {how}: durak replay {path}"


def _streams(seed: int | np.random.SeedSequence | None) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent generators from one seed: play (strategies, options) and decks."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    child = [np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (k,)) for k in (0, 1)]
    return np.random.default_rng(child[0]), np.random.default_rng(child[1])


def simulate_deals(rules: RuleSet, strategies: Sequence[object], n: int,
                   seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                   check: bool = False, slots: int = DEFAULT_SLOTS) -> DealResults:
    """Play ``n`` deals; ``strategies[p]`` plays position p (p = 0 acts first, G2).

    Deals come from seeded shuffles (``seed``) or from ``decks`` (N, D).
    """
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} players")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    play_rng, deck_rng = _streams(ss)
    # a slot count that does not depend on n would make results depend only on the seed;
    # fewer slots than deals is pointless, so clamp (results then depend on the seed and n)
    sim = BatchSim(rules, strategies, slots=max(1, min(slots, n)), rng=play_rng, check=check, deck_rng=deck_rng)
    try:
        return sim.run(n, decks)  # type: ignore[return-value]
    except StrategyFault as fault:
        raise SimulationError(f"{fault}; {_reproduce(fault, rules, strategies, n, ss, decks, sim.b, False)}") from None


def simulate_matches(rules: RuleSet, strategies: Sequence[object], n: int,
                     seed: int | np.random.SeedSequence | None = None, *, decks: NDArray[np.int8] | None = None,
                     check: bool = False, slots: int = 2048) -> MatchResults:
    """Play ``n`` matches to ``rules.target`` (G11); ``strategies[i]`` is player i (0 leads deal 1)."""
    if rules.target is None:
        raise ValueError(f"{rules.variant} has no match target; set the rule target=POINTS")
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} players")
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    play_rng, deck_rng = _streams(ss)
    sim = BatchSim(rules, strategies, slots=max(1, min(slots, n)), rng=play_rng, matches=True, check=check,
                   deck_rng=deck_rng)
    try:
        return sim.run(n, decks)  # type: ignore[return-value]
    except StrategyFault as fault:
        raise SimulationError(f"{fault}; {_reproduce(fault, rules, strategies, n, ss, decks, sim.b, True)}") from None

