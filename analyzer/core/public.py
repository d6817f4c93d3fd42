"""The public history of deals, vectorised over deals: what every player at the table has seen.

One place for the inference a player with perfect memory makes from public
moves, used by the batch simulator (:class:`PublicRecord`, one row per deal)
and by the scalar observer (:class:`analyzer.knowledge.observer.Knowledge`,
which calls the same rule functions and the same slot choice on a play).

Every player's hand is modelled from the table's point of view: cards everyone
knows (drawn from a talon of known order, G8 ``reshuffle=turn_over``) and one
*slot* per unknown card, each a uint64 mask of the cards it may be; a slot
whose card was never public carries :data:`NEVER_SEEN` and excludes every
card seen so far.  The model of a seat is the same for every other player,
so one record per deal serves every observer; a player's own slots are
simply not shown to it.

What a move proves (the legal cards on a top card come from the simulator's
accept mask or :func:`analyzer.engine.deal.legal_cards`, never rewritten here):

* G6/G7 **forced draw** -- voluntary drawing off, a draw at a play decision
  proves that no card of the hand was legal (:func:`draw_proves_void`);
* under ``draw_one`` the drawn card is legal exactly when it is played at once,
  so its slot is narrowed to the legal cards or to the others
  (:func:`drawn_card_proves`);
* SV4 **pass after drawing** -- under ``draw_until_play`` a player who drew at
  a decision and then passed holds no legal card at all (:func:`pass_proves_void`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, SUIT_MASK, U64, cards_tuple, popcount
from analyzer.core.cards import deck
from analyzer.core.contract import BatchHistory, EventLog, History
from analyzer.core.rules import RuleSet

#: Marks a slot whose card was never public (dealt, or drawn from the original talon):
#: it can be no card that has ever been seen, however many become seen later.
NEVER_SEEN = 1 << 60
NS = U64(NEVER_SEEN)

# ------------------------------------------------------------------ event log
#: Event kinds of the log (:func:`pack_events` / :func:`unpack_events`).
PLAY, DRAW_CARD, PASS, TAKE_CHAIN, NAME, TURN_OVER = 0, 1, 2, 3, 4, 5
EVENT_NAMES = ("play", "draw", "pass", "take", "name", "turn_over")
#: The card field of an event whose card is hidden (an unknown draw) or absent (a pass).
NO_CARD = 63


def pack_events(turn: Any, seat: Any, kind: Any, card: Any, suit: Any) -> NDArray[np.int64]:
    """One int64 per event: turn << 16 | seat << 12 | kind << 9 | (suit + 1) << 6 | card (card 63: none or hidden)."""
    t = np.asarray(turn, np.int64)
    return ((t << 16) | (np.asarray(seat, np.int64) << 12) | (np.asarray(kind, np.int64) << 9)
            | ((np.asarray(suit, np.int64) + 1) << 6) | np.asarray(card, np.int64))


def unpack_events(codes: Any) -> tuple[NDArray[np.int64], ...]:
    """(turn, seat, kind, card, suit) arrays of packed events; card is -1 when hidden or absent, suit -1 when none."""
    c = np.asarray(codes, np.int64)
    card = c & 63
    return c >> 16, (c >> 12) & 15, (c >> 9) & 7, np.where(card == NO_CARD, -1, card), ((c >> 6) & 7) - 1


def events_from_seat(codes: Any, seat: Any, players: int) -> NDArray[np.int64]:
    """Packed events with each event's seat replaced by its offset from ``seat`` (0 = that player, 1 = the next)."""
    c = np.asarray(codes, np.int64)
    off = (((c >> 12) & 15) - np.asarray(seat, np.int64)[..., None]) % players
    return (c & ~np.int64(15 << 12)) | (off << 12)


def turn_now(last: Any, n_events: Any, seat: Any, players: int) -> NDArray[np.int64]:
    """The turn at a decision of ``seat`` whose log's last event is ``last`` (packed, absolute seats) of
    ``n_events``: that event's turn, one on when another seat made it; 1 before any event."""
    turn, by, _, _, _ = unpack_events(last)
    other = (by - np.asarray(seat, np.int64)) % players != 0
    return np.where(np.asarray(n_events) > 0, turn + other, 1).astype(np.int64)


def mask(cards: Iterable[int]) -> int:
    """Bit mask (Python int) of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# ------------------------------------------------------------------ what a move proves (shared rules)
def narrow(m: Any, allowed: Any) -> Any:
    """``m`` limited to ``allowed``, keeping its never-seen mark (Python ints or uint64 arrays)."""
    ns = NS if isinstance(m, np.ndarray) else NEVER_SEEN
    return (m & allowed) | (m & ns)


def draw_proves_void(rules: RuleSet) -> bool:
    """G6/G7: with voluntary drawing off, a draw at a play decision proves the hand held no legal card."""
    return not rules.voluntary_draw


def drawn_card_proves(rules: RuleSet) -> bool:
    """G6 ``draw_one``: the drawn card is legal exactly when it is played at once (so its slot can be narrowed).

    Under ``draw_until_play`` (SV4) the drawer stays to decide again whatever the
    card, so the draw alone proves nothing about it.
    """
    return rules.no_card == "draw_one"


def pass_proves_void(rules: RuleSet) -> bool:
    """SV4: under ``draw_until_play`` a player who drew at a decision and then passed holds no legal card."""
    return rules.no_card == "draw_until_play"


# ------------------------------------------------------------------ slots
def effective(raw: NDArray[np.uint64], full: Any, seen: Any) -> NDArray[np.uint64]:
    """The masks slots allow: a never-seen slot excludes every seen card (``seen`` broadcasts over the slots)."""
    return np.where((raw & NS) != 0, raw & U64(full) & ~np.asarray(seen, np.uint64), raw)


def drop_slot(raw: NDArray[np.uint64], n: NDArray[np.integer], card: NDArray[np.integer], full: Any,
              seen: NDArray[np.uint64]) -> tuple[NDArray[np.uint64], NDArray[np.bool_]]:
    """The slots of R hands after each plays ``card`` from an unknown slot: (R, H) raw masks, ``n`` slots used.

    Which slot held the card is unknown.  The narrowest slot that allows it goes
    (ties: the oldest) -- exact when the candidates form a chain, as slots do
    (older slots are narrower); every other candidate the dropped slot is not
    a subset of takes the dropped slot's cards too, which keeps every hand any
    choice of slot allows (sound, slightly wider).  ``seen`` (R,) is read
    before the card counts as seen.  Returns the new slots and, per row,
    whether some slot allowed the card (False: the inference was unsound).
    """
    r, h = raw.shape
    idx = np.arange(h)
    eff = effective(raw, full, seen[:, None])
    cb = BIT[np.asarray(card, np.int64)][:, None]
    fits = (idx[None, :] < np.asarray(n)[:, None]) & ((eff & cb) != 0)
    key = np.where(fits, popcount(eff).astype(np.int64) * h + idx[None, :], np.iinfo(np.int64).max)
    j = np.argmin(key, axis=1)
    ok = fits.any(axis=1)
    rows = np.arange(r)
    d_raw, d_eff = raw[rows, j][:, None], eff[rows, j][:, None]
    widen = fits & (idx[None, :] != j[:, None]) & ((d_eff & ~eff) != 0)
    out = raw
    if widen.any():
        keep = raw & d_raw & NS
        wide = np.where(keep != 0, ((raw | d_raw) & ~NS) | keep, eff | d_eff)
        out = np.where(widen, wide, raw)
    shifted = np.concatenate([out[:, 1:], np.zeros((r, 1), np.uint64)], axis=1)
    out = np.where(idx[None, :] >= j[:, None], shifted, out)
    out = np.where(ok[:, None], out, raw)
    return out, ok


class UnsoundInference(AssertionError):
    """A card was played that no slot of its player allowed: the inference is wrong somewhere."""


# ------------------------------------------------------------------ the record of a batch of deals
class PublicRecord:
    """The public history of ``b`` deals (rows) of ``n`` seats, updated by the simulator move by move.

    Arrays (row first; seats absolute, seat 0 = dealer):

    * ``slots`` (b, n, H) uint64 and ``nslots`` (b, n): each seat's unknown cards;
    * ``known`` (b, n) uint64: cards of each hand everyone knows;
    * ``seen`` (b,): every card ever public (played or turned up); ``pile`` (b,): the pile now;
    * ``talon_known`` (b,) uint64: the talon's cards when its order is known (G8 turn_over), else 0;
      ``talon_set`` (b,) and ``shuffled`` (b,): the content of a shuffled turned-over talon (G8 shuffle);
    * counters by seat: ``drawn`` (cards drawn), ``passes``, ``takes``, ``named`` (last suit named, -1);
    * ``events`` (b, E) int64 packed (:func:`pack_events`), ``n_events`` (b,); ``turnovers`` (b,) the
      TURN_OVER events among them.
    """

    def __init__(self, rules: RuleSet, rows: int) -> None:
        self.rules = rules
        n, h = rules.players, rules.deck_size
        self.n, self.h = n, h
        self.full = U64(sum(1 << c for c in deck(rules.deck_size)))
        z = np.zeros
        self.slots = z((rows, n, h), np.uint64)
        self.nslots = z((rows, n), np.int16)
        self.known = z((rows, n), np.uint64)
        self.seen = z(rows, np.uint64)
        self.pile = z(rows, np.uint64)
        self.talon_known = z(rows, np.uint64)
        self.talon_set = z(rows, np.uint64)
        self.shuffled = z(rows, bool)
        self.drawn = z((rows, n), np.int16)
        self.passes = z((rows, n), np.int16)
        self.takes = z((rows, n), np.int16)
        self.named = np.full((rows, n), -1, np.int8)
        self.events = z((rows, 64), np.int64)
        self.n_events = z(rows, np.int32)
        self.turnovers = z(rows, np.int32)  # G8 turn-overs so far (TURN_OVER events)
        #: a DRAW decision this turn (SV4: a pass after it proves a void), and the legal cards at it
        self.drew_at_decision = z(rows, bool)
        self.void_at_draw = z(rows, np.uint64)

    # -------------------------------------------------------------- log
    def log(self, rows: NDArray[np.int64], turn: Any, seat: Any, kind: int, card: Any = NO_CARD,
            suit: Any = -1) -> None:
        """Append one event to each of ``rows`` (the log grows when a row's is full)."""
        if not len(rows):
            return
        k = self.n_events[rows]
        if int(k.max()) >= self.events.shape[1]:
            grown = np.zeros((self.events.shape[0], 2 * self.events.shape[1]), np.int64)
            grown[:, : self.events.shape[1]] = self.events
            self.events = grown
        self.events[rows, k] = pack_events(turn, seat, kind, card, suit)
        self.n_events[rows] = k + 1

    # -------------------------------------------------------------- updates
    def start(self, rows: NDArray[np.int64], hand_sizes: NDArray[np.integer], seen: NDArray[np.uint64]) -> None:
        """New deals in ``rows``: every hand unknown (never-seen slots), the turned-up or lead card seen."""
        k = np.asarray(hand_sizes)
        self.slots[rows] = np.where(np.arange(self.h)[None, None, :] < k[:, :, None], self.full | NS, U64(0))
        self.nslots[rows] = k
        for a in (self.known, self.talon_known, self.talon_set, self.drawn, self.passes, self.takes,
                  self.n_events, self.turnovers, self.void_at_draw):
            a[rows] = 0
        self.shuffled[rows] = False
        self.drew_at_decision[rows] = False
        self.named[rows] = -1
        self.seen[rows] = seen
        self.pile[rows] = seen

    def turned_over(self, rows: NDArray[np.int64], top: NDArray[np.int8], turn: Any, seat: Any) -> None:
        """G8: the pile but its top becomes the talon -- of known order (turn_over) or known content (shuffle)."""
        old = self.pile[rows] & ~BIT[top]
        if self.rules.reshuffle == "turn_over":
            self.talon_known[rows] = old
        else:
            self.talon_set[rows] = old
            self.shuffled[rows] = True
        self.pile[rows] = BIT[top]
        self.turnovers[rows] += 1
        self.log(rows, turn, seat, TURN_OVER)

    def drew(self, rows: NDArray[np.int64], seat: NDArray[np.integer], card: NDArray[np.int8],
             turn: Any) -> NDArray[np.bool_]:
        """Each row's ``seat`` drew ``card``: a known card when the talon's order is known, else a new slot.

        Returns where a new (unknown) slot was opened.
        """
        bit = BIT[card]
        known = (self.talon_known[rows] & bit) != 0
        self.talon_known[rows] &= ~bit
        self.known[rows, seat] |= np.where(known, bit, U64(0))
        new = ~known
        rn, sn = rows[new], np.asarray(seat)[new]
        if len(rn):
            base = np.where(self.shuffled[rn], self.talon_set[rn], self.full | NS)
            self.slots[rn, sn, self.nslots[rn, sn]] = base
            self.nslots[rn, sn] += 1
        self.drawn[rows, seat] += 1
        self.log(rows, turn, seat, DRAW_CARD, np.where(known, card, NO_CARD))
        return new

    def narrow_hand(self, rows: NDArray[np.int64], seat: NDArray[np.integer], allowed: NDArray[np.uint64],
                    last_only: bool = False) -> None:
        """Every unknown slot (or only the newest) of ``seat`` limited to ``allowed`` (R,)."""
        if not len(rows):
            return
        seat = np.asarray(seat, np.int64)
        if last_only:
            j = self.nslots[rows, seat].astype(np.int64) - 1
            self.slots[rows, seat, j] = narrow(self.slots[rows, seat, j], allowed)
        else:
            self.slots[rows, seat] = narrow(self.slots[rows, seat], allowed[:, None])

    def played(self, rows: NDArray[np.int64], seat: NDArray[np.integer], card: NDArray[np.int8],
               suit: NDArray[np.integer], turn: Any) -> None:
        """Each row's ``seat`` played ``card`` (naming ``suit`` for a wild, -1 if none): out of its hand, seen."""
        seat = np.asarray(seat, np.int64)
        bit = BIT[card]
        was_known = (self.known[rows, seat] & bit) != 0
        self.known[rows, seat] &= ~bit
        u = ~was_known
        if u.any():
            ru, su = rows[u], seat[u]
            out, ok = drop_slot(self.slots[ru, su], self.nslots[ru, su], card[u], self.full, self.seen[ru])
            if not ok.all():
                raise UnsoundInference(f"seat {int(su[~ok][0])} played card {int(card[u][~ok][0])}, "
                                       "which no slot allows: inference is unsound")
            self.slots[ru, su] = out
            self.nslots[ru, su] -= 1
        self.seen[rows] |= bit
        self.pile[rows] |= bit
        suit = np.asarray(suit, np.int64)
        self.named[rows, seat] = np.where(suit >= 0, suit, self.named[rows, seat])
        self.log(rows, turn, seat, PLAY, card, suit)

    # -------------------------------------------------------------- queries
    def may_hold(self, rows: NDArray[np.int64], seat: NDArray[np.integer]) -> NDArray[np.uint64]:
        """(R,) the cards ``seat`` may hold as far as anyone at the table knows: its known cards and slots."""
        seat = np.asarray(seat, np.int64)
        raw = self.slots[rows, seat]
        used = np.arange(self.h)[None, :] < self.nslots[rows, seat][:, None]
        eff = np.where(used, effective(raw, self.full, self.seen[rows][:, None]), U64(0))
        return np.bitwise_or.reduce(eff, axis=1) | self.known[rows, seat]

    def hidden(self, rows: NDArray[np.int64], seat: NDArray[np.integer],
               hand: NDArray[np.uint64]) -> NDArray[np.uint64]:
        """(R,) cards whose place ``seat`` (holding ``hand``) cannot tell: not its own, the pile's,
        a known talon's or a known card of another hand."""
        seat = np.asarray(seat, np.int64)
        others = np.bitwise_or.reduce(self.known[rows], axis=1) & ~self.known[rows, seat]
        return self.full & ~hand & ~self.pile[rows] & ~self.talon_known[rows] & ~others


def void_suits(may_hold: NDArray[np.uint64]) -> NDArray[np.uint8]:
    """Suit bits (bit s = suit s, S C H D) of which a player may hold no card."""
    m = np.asarray(may_hold, np.uint64)
    out = np.zeros(m.shape, np.uint8)
    for s in range(4):
        out |= np.where((m & SUIT_MASK[s]) == 0, np.uint8(1 << s), np.uint8(0))
    return out


# ------------------------------------------------------------------ what a player is shown
def batch_history(pub: PublicRecord, rows: NDArray[np.int64], cur: NDArray[np.integer], hand: NDArray[np.uint64],
                  pile: Any, pile_size: Any, talon: Any) -> BatchHistory:
    """The :class:`BatchHistory` of the decisions in ``rows`` (players ``cur`` holding ``hand``), read
    from the record; per-player columns by seat offset.  ``pile`` (R, D) bottom first, ``pile_size`` (R,)
    and ``talon`` (R, D) top first where its order is known, -1 elsewhere, come from the game's own state
    (the simulator's ring, the engine's lists) and may be zero-argument functions (read when asked)."""
    n = pub.n
    cur = np.asarray(cur, np.int64)
    seats = (cur[:, None] + np.arange(n)[None, :]) % n  # (R, P) absolute seat of each offset
    rows2 = rows[:, None]

    def may_hold() -> NDArray[np.uint64]:
        out = np.empty((len(rows), n), np.uint64)
        out[:, 0] = hand
        for k in range(1, n):
            out[:, k] = pub.may_hold(rows, seats[:, k])
        return out

    def events() -> NDArray[np.int64]:
        e = events_from_seat(pub.events[rows], cur, n)
        return np.where(np.arange(e.shape[1])[None, :] < pub.n_events[rows][:, None], e, -1)

    def cannot_hold() -> NDArray[np.uint64]:
        return pub.full & ~hist.may_hold

    def turn() -> NDArray[np.int64]:
        ne = pub.n_events[rows].astype(np.int64)
        return turn_now(pub.events[rows, np.maximum(ne - 1, 0)], ne, cur, n)

    def slots() -> NDArray[np.uint64]:  # each unknown card's mask (pimc's sampler reads them; self: none)
        used = np.arange(pub.h)[None, None, :] < pub.nslots[rows2, seats][:, :, None]
        used[:, 0] = False
        return np.where(used, effective(pub.slots[rows2, seats], pub.full, pub.seen[rows][:, None, None]), U64(0))

    def talon_may() -> NDArray[np.uint64]:  # an unknown talon card: a shuffled turned-over pile, else never seen
        unknown = np.where(pub.shuffled[rows], pub.talon_set[rows], pub.full & ~pub.seen[rows])
        return np.where(pub.talon_known[rows] != 0, U64(0), unknown)

    hist: BatchHistory = BatchHistory(
        pile=pile, pile_size=pile_size, seen=lambda: pub.seen[rows], known=lambda: pub.known[rows2, seats],
        may_hold=may_hold, cannot_hold=cannot_hold, voids=lambda: void_suits(hist.may_hold),
        hidden=lambda: pub.hidden(rows, cur, hand), talon=talon, drawn=lambda: pub.drawn[rows2, seats],
        passes=lambda: pub.passes[rows2, seats], takes=lambda: pub.takes[rows2, seats],
        named=lambda: pub.named[rows2, seats], events=events, n_events=lambda: pub.n_events[rows],
        turn=turn, turnovers=lambda: pub.turnovers[rows], slots=slots, talon_may=talon_may)
    return hist


def row_histories(h: BatchHistory) -> list[History]:
    """The simple path's :class:`History` of each row of a :class:`BatchHistory` (arrays become lists once;
    ``slots`` and ``talon_may`` only when a row's are read, from the batch's: a slot's mask is never 0)."""
    def cards(m: int) -> frozenset[int]:
        return frozenset(cards_tuple(m))

    def suits(v: int) -> frozenset[int]:
        return frozenset(s for s in range(4) if v >> s & 1)

    def slots(i: int) -> Callable[[], tuple[tuple[frozenset[int], ...], ...]]:  # lazy: the batch's row i
        return lambda: tuple(tuple(cards(m) for m in seat if m) for seat in h.slots[i].tolist())

    def talon_may(i: int) -> Callable[[], frozenset[int]]:
        return lambda: cards(int(h.talon_may[i]))

    out = []
    for i, (pile, ps, seen, known, cannot, voids, hidden, talon, drawn, passes, takes, named, ev, ne) in enumerate(zip(
            h.pile.tolist(), h.pile_size.tolist(), h.seen.tolist(), h.known.tolist(), h.cannot_hold.tolist(),
            h.voids.tolist(), h.hidden.tolist(), h.talon.tolist(), h.drawn.tolist(), h.passes.tolist(),
            h.takes.tolist(), h.named.tolist(), h.events.tolist(), h.n_events.tolist())):
        out.append(History(
            pile=tuple(pile[:ps]), seen=cards(seen), known=tuple(map(cards, known)),
            cannot_hold=tuple(map(cards, cannot)), voids=tuple(map(suits, voids)), hidden=cards(hidden),
            talon=None if talon[0] < 0 else tuple(c for c in talon if c >= 0), drawn=tuple(drawn),
            passes=tuple(passes), takes=tuple(takes), named=tuple(None if s < 0 else s for s in named),
            events=EventLog(ev[:ne]), slots=slots(i), talon_may=talon_may(i)))
    return out


def reads_history(strategies: Sequence[object]) -> bool:
    """Does some strategy of a line-up read the public history from its views (``uses_history = True``)?"""
    return any(getattr(s, "uses_history", False) is True for s in strategies)


def needs_table(strategies: Sequence[object]) -> bool:
    """Does some player remember only through the engine's table runner (``choose_known`` without
    ``uses_history = True``: a plugin's)?  Line-ups whose players who remember all read the views'
    history (``tracker``) play on the batch simulator instead."""
    return any(callable(getattr(s, "choose_known", None)) and getattr(s, "uses_history", False) is not True
               for s in strategies)
