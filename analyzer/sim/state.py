"""The simulator's state as arrays: one row per *slot*, allocated once, refilled by dealing.

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

``hands`` and ``ring`` are also read and written through flat views
(``hand_at[slot * P + seat]``), which numpy serves faster than 2-D fancy indexing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, RANK_MASK, RANK_OF, SUIT_MASK, SUIT_OF, U64, chunk_table, popcount
from analyzer.core.cards import KING, N_CARDS, QUEEN, card_id, deck
from analyzer.core.faults import SimulationError
from analyzer.core.rules import RuleSet
from analyzer.core.streams import deal_keys
from analyzer.engine.match import arrange_deck

BEGIN, PLAY, DRAWN, SEVEN, LEAD, IDLE, DONE = 0, 1, 2, 3, 4, 5, 6
PHASE_NAMES = ("begin", "play", "drawn", "seven", "lead_suit", "idle", "done")


@dataclass
class Tables:
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


def make_tables(r: RuleSet) -> Tables:
    """G5/CZ6/CZ8/PR6/SV6 as per-card arrays, built once per simulator."""
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
    return Tables(eff_draw, eff_skip, is_seven, pts, RANK_MASK[r.wild_rank],
                  np.uint64(sum(1 << c for c in deck(r.deck_size))), king_bit, qnk, chunk_table(pts),
                  bool(eff_draw.any() or eff_skip.any()),
                  RANK_MASK[RANK_OF] | (RANK_MASK[r.wild_rank] if r.wild_on_anything else U64(0)))


class SlotState:
    """The per-slot arrays, dealing into them (G10a), and the --check invariants over them."""

    def __init__(self, rules: RuleSet, slots: int, matches: bool, stream_base: int = 0) -> None:
        self.r = rules
        self.t = make_tables(rules)
        self.matches = matches
        n, d, b = rules.players, rules.deck_size, slots
        self.n, self.d, self.b = n, d, b
        #: offsets[seat] = the seats in play order from ``seat`` (column k = k seats to the left)
        self.offsets = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
        z = np.zeros
        self.hands = z((b, n), np.uint64)
        self.wilds_dealt = z((b, n), np.int8)  # wilds (G4) in each seat's hand as dealt
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
        self.acc = z(b, np.uint64)  # the cards that may go on the top card (accept_of(top, active))
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
        #: each deal's counter-based random stream (core.streams) for reshuffle=shuffle and forget_rate
        self.random_options = rules.reshuffle == "shuffle" or rules.last_card_call
        self.stream_base = stream_base
        self.skey = z(b, np.uint64)
        self.scount = z(b, np.uint64)
        #: matches only: ``deal_hands[p]`` is the canonical hand player ``p`` receives from every deck, whoever
        #: deals (analyzer.engine.match.arrange_deck); None deals by seat (G10a).  A duplicate design sets
        #: it where the dealer follows play (SV2), so a pair's two seatings swap the hands of every deck.
        self.deal_hands: NDArray[np.int64] | None = None

    # ------------------------------------------------------------ dealing
    def _seat_player(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        """(R, P) player id sitting at each seat: seat s is player (dealer + s) mod n."""
        return (self.dealer[rows, None].astype(np.int64) + np.arange(self.n)) % self.n

    def _deal(self, rows: NDArray[np.int64], decks: NDArray[np.int8]) -> None:
        """G10a/CZ2/CZ3/PR2/SV2: deal ``decks`` (R, D) into ``rows`` and lay the starter."""
        r, n, h, d = self.r, self.n, self.r.hand_size, self.d
        if self.deal_hands is not None and self.matches:  # hands by player, not by seat (a duplicate design's hook)
            decks = arrange_deck(decks, self.dealer[rows], self.deal_hands, players=n, hand_size=h)
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
        self.wilds_dealt[rows] = popcount(hands & self.t.wild_mask)  # the prague lead is off the hand (PR2)
        self.slot_deck[rows] = decks
        if self.random_options:
            self.skey[rows] = deal_keys(self.stream_base, self.job[rows], self.deal_k[rows])
            self.scount[rows] = 0
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
        self._dealt(rows)

    def _dealt(self, rows: NDArray[np.int64]) -> None:
        """Hook: new deals were dealt into ``rows`` (the move recorder starts their histories)."""

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

    # ------------------------------------------------------------ invariants
    def _check_invariants(self) -> None:
        """--check: card conservation in every live slot."""
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
                raise SimulationError(f"invariant broken: {what} in {self.r.variant} {self._unit_at(row)} "
                                      f"at turn {int(self.turns[row])}")

    def _unit_at(self, row: int) -> str:
        """'deal 12' / 'match 3' for the slot ``row``; the driver adds cell and chunk."""
        return f"{'match' if self.matches else 'deal'} {int(self.job[row])}"
