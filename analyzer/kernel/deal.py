"""One deal in the compiled kernel: dealing from a deck, and the loop to its end.

The loop is the engine's ``play_deal``: forced moves (a single legal action
without a suit to name) are played directly, a real choice goes to the seat's
compiled strategy (analyzer.kernel.policies).  A seat whose strategy is
:data:`PYTHON` (a user's strategy) has no compiled form: at
its real decisions :func:`run_deal` stops and returns :data:`PAUSED`, and
:func:`resume` carries out the answer Python gives (analyzer.kernel.pause).
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW
from analyzer.core.outcomes import END_BLOCKED, END_OUT
from analyzer.kernel import events as E
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, ZERO, bit, ix, lowest, popcount, rank_of, suit_of, wrap
from analyzer.kernel.jit import helper, inner
from analyzer.kernel.policies import RANDOM, choose, random_play
from analyzer.kernel.state import (
    ACTIVE,
    BEGIN,
    CUR,
    DRAWN,
    DRAWN_CARD,
    END,
    HANDS,
    HEAD,
    LAST_ACTOR,
    LAST_CARD,
    LEAD,
    NI,
    PCOUNT,
    PHASE,
    PLAY,
    RING,
    SEVEN,
    TCOUNT,
    TOP,
    TURNOVERS,
    TURNS,
    WENT_OUT,
    load,
    put,
    store,
)
from analyzer.kernel.turn import (
    begin_turn,
    can_draw,
    draw_decision,
    finish,
    legal_mask,
    play_card,
    push_pile,
    set_pending,
    take_seven,
)

#: the kind of a seat played by a Python strategy: the kernel pauses at its real decisions
PYTHON = -1
#: :func:`decide`'s action at a Python seat's real decision (no card, DRAW or TAKE)
PAUSE = -3
#: :func:`run_deal`'s winner when the deal is not over: it goes on (GOING), waits for Python (PAUSED), or waits
#: for its public-event log to be read (DRAIN; analyzer.kernel.events)
GOING, PAUSED, DRAIN = -2, -3, -5
#: :func:`run_deal`'s ``uniform`` when the seats' kinds are read from ``kinds`` (a line-up not compiled in)
BY_SEAT = -9


@inner
def reset(st: np.ndarray, m: np.ndarray) -> None:
    """Clear a state for a new deal (the play stream's counter in ``m`` is set by the caller)."""
    st[:] = 0
    st[TOP] = st[ACTIVE] = st[DRAWN_CARD] = st[LAST_CARD] = st[WENT_OUT] = -1
    for i in range(HANDS, m.shape[0]):
        m[i] = ZERO
    m[0] = ZERO


@inner
def start_from_deck(st: np.ndarray, m: np.ndarray, ring: np.ndarray, deck: np.ndarray, p: np.ndarray) -> None:
    """:func:`start_from_ring` with the deck order ``deck``."""
    for i in range(p[P.DECK]):
        ring[i] = deck[i]
    start_from_ring(st, m, ring, p)


@inner
def start_from_ring(st: np.ndarray, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> None:
    """G10a/CZ2/CZ3/PR2/SV2: deal the deck order in ``ring`` one card at a time from the dealer's left,
    dealer last; the rest is the talon; lay the starter.

    A deck shuffled in place in the ring (driver.deal_deck) is dealt without a copy.
    """
    n, h, d = p[P.PLAYERS], p[P.HAND], p[P.DECK]
    reset(st, m)
    seat = 0
    for i in range(n * h):  # card i goes to seat (i + 1) mod n
        seat = wrap(seat + 1, n)
        m[ix(HANDS + seat)] |= bit(ring[i])
    st[HEAD], st[TCOUNT] = n * h, d - n * h
    starter = -1
    if p[P.STARTER_KIND] == P.STARTER_TURNED:  # CZ3: the top of the rest is turned up
        starter = ring[st[HEAD]]
        st[HEAD] += 1
        st[TCOUNT] -= 1
    elif p[P.STARTER_KIND] == P.STARTER_LEAD:  # PR2: the dealer's last card is his lead
        starter = ring[n * h - 1]
        m[HANDS] &= ~bit(starter)
    lay_starter(st, m, ring, starter, -1, p)


@inner
def lay_starter(st: np.ndarray, m: np.ndarray, ring: np.ndarray, starter: int, starter_suit: int,
                p: np.ndarray) -> None:
    """Deal.start: lay the starter (CZ3/PR2) and let seat 1 begin, or ask the dealer to name a suit (PR2)."""
    n = p[P.PLAYERS]
    st[CUR] = 1 % n
    st[PHASE] = BEGIN
    if starter < 0:  # SV2: no card is turned up
        return
    store(st, push_pile(load(st), m, ring, starter, p))
    st[ACTIVE] = suit_of(starter)  # CZ3: a Jack starter names no suit
    if p[P.STARTER_EFFECTS]:
        store(st, set_pending(load(st), starter, 0, p))
        if p[P.STARTER_KIND] == P.STARTER_LEAD and rank_of(starter) == p[P.WILD]:
            if starter_suit < 0:
                st[CUR], st[PHASE] = 0, LEAD  # PR2: the dealer names the suit
                return
            st[ACTIVE] = starter_suit


@inner
def ask(kind: int, w: np.ndarray, hand: np.uint64, legal: np.uint64, can_take: bool, active: int, cur: int,
        seven_phase: bool, p: np.ndarray, m: np.ndarray) -> tuple[int, int]:
    """The compiled strategy's choice, or PAUSE for a Python strategy."""
    if kind == PYTHON:
        return PAUSE, -1
    # the next player's hand size, read by aggressive and weighted: not loaded for random (the common case)
    next_hand = 0 if kind == RANDOM else popcount(m[ix(HANDS + wrap(cur + 1, p[P.PLAYERS]))])
    return choose(kind, w, hand, legal, can_take, active, next_hand, seven_phase, p, m)


@inner
def decide(s: tuple, m: np.ndarray, kinds: np.ndarray, weights: np.ndarray, p: np.ndarray,
           uniform: int) -> tuple[int, int]:
    """The action at the current decision point of ``s`` (fields as ``st``): the forced one, or the seat's
    strategy's choice (``uniform``: every seat's kind, or BY_SEAT: ``kinds``).

    One call of :func:`ask` for every phase: the compiled strategies are inlined once in the play loop, not
    once per phase (a smaller loop keeps more of the deal's fields in registers).
    """
    cur, phase = s[CUR], s[PHASE]
    kind = kinds[ix(cur)] if uniform == BY_SEAT else uniform  # a constant in a kernel compiled for its line-up
    hand = m[ix(HANDS + cur)]
    wild = RANK_MASKS[p[P.WILD]]
    view, can_take, seven_phase = hand, False, False
    if phase == PLAY:  # the common decision first: one test on the path of most turns
        legal = legal_mask(hand, s[TOP], s[ACTIVE], p)
        k = popcount(legal)
        drawable = can_draw(s) and (k == 0 or p[P.VOLUNTARY])
        # a single action, forced unless a wild's suit is to be named (no legal card: DRAW)
        forced = k + drawable == 1 and ((legal & wild) == ZERO or popcount(hand) <= 1)
        if k > 0 and kind == RANDOM:  # random plays a legal card, forced or its choice
            return random_play(legal, forced, p, m)
        if forced:
            return (DRAW if k == 0 else lowest(legal)), -1
    # without CZ8 sevens and PR2's lead DRAWN is the only other decision: the rules alone decide it
    elif phase == DRAWN or not (p[P.SEVENS] or p[P.STARTER_KIND] == P.STARTER_LEAD):
        card = s[DRAWN_CARD]
        if (bit(card) & wild) == ZERO or popcount(hand) <= 1:
            return card, -1
        legal = bit(card)
    elif p[P.SEVENS] and phase == SEVEN:  # CZ8: a 7 or TAKE, always a choice (no such phase without sevens)
        legal, can_take, seven_phase = hand & RANK_MASKS[7], True, True
    else:  # LEAD: the dealer names the suit of a Jack lead, always a choice
        starter = s[TOP]
        view, legal = hand | bit(starter), bit(starter)
    return ask(kind, weights[ix(cur)], view, legal, can_take, s[ACTIVE], cur, seven_phase, p, m)


@inner
def act(s: tuple, m: np.ndarray, ring: np.ndarray, phase: int, action: int, suit: int,
        p: np.ndarray) -> tuple[tuple, int, int, int]:
    """Carry out ``action`` (naming ``suit``) decided in ``phase``: (s, end, went_out, last_card), end -1 if
    the deal goes on, else the END_* code that :func:`~analyzer.kernel.turn.finish` scores with the other two."""
    lead = p[P.STARTER_KIND] == P.STARTER_LEAD and phase == LEAD  # PR2's phase: none under other rules
    if action < DRAW and not lead:  # a card played (most actions): the first test
        s, e = play_card(s, m, ring, action, suit, p)
        if e == END_OUT:
            return s, END_OUT, s[LAST_ACTOR], action
    elif lead:
        s = put(s, ACTIVE, suit_of(action) if suit < 0 else suit)
        if p[P.LOG]:  # PR2: the dealer named the suit of his Jack lead
            E.log_event(m, p, E.NAME, 0, -1, s[ACTIVE], s[TURNS], ZERO, ZERO)
        s = put(s, CUR, 1 % p[P.PLAYERS])
        s = put(s, PHASE, BEGIN)
    elif action == DRAW:
        s, e = draw_decision(s, m, ring, p)
        if e == END_BLOCKED:
            return s, END_BLOCKED, -1, -1
    elif p[P.SEVENS]:  # TAKE (CZ8: only answering a sevens chain)
        s = take_seven(s, m, ring, p)
    return s, -1, -1, -1


@inner
def carry_out(s: tuple, m: np.ndarray, ring: np.ndarray, phase: int, action: int, suit: int, p: np.ndarray,
              points: np.ndarray, holders: np.ndarray) -> tuple[tuple, int, int, bool]:
    """Carry out ``action`` (naming ``suit``) decided in ``phase``: (s, and as :func:`run_deal` returns if the
    deal ends here, else GOING, -1, False)."""
    s, end, went_out, last_card = act(s, m, ring, phase, action, suit, p)
    if end >= 0:
        return finish(s, m, end, went_out, last_card, p, points, holders)
    return s, GOING, -1, False


@inner
def resume(st: np.ndarray, m: np.ndarray, ring: np.ndarray, phase: int, action: int, suit: int, p: np.ndarray,
           points: np.ndarray, holders: np.ndarray) -> tuple[int, int, bool]:
    """:func:`carry_out` on a paused deal's ``st``: as :func:`run_deal` if the deal ends here, else
    (GOING, -1, False)."""
    s, win, lose, by_wild = carry_out(load(st), m, ring, phase, action, suit, p, points, holders)
    store(st, s)
    return win, lose, by_wild


@inner
def record(moves: np.ndarray, nm: np.ndarray, phase: int, action: int, suit: int) -> None:
    """One decision of a traced deal: its phase, action and suit (a full record keeps its first moves)."""
    i = nm[0]
    if i < moves.shape[0]:
        moves[i, 0], moves[i, 1], moves[i, 2] = phase, action, suit
        nm[0] = i + 1


@inner
def run_deal(st: np.ndarray, m: np.ndarray, ring: np.ndarray, kinds: np.ndarray, weights: np.ndarray,
             p: np.ndarray, points: np.ndarray, holders: np.ndarray, moves: np.ndarray | None = None,
             nm: np.ndarray | None = None, uniform: int = BY_SEAT) -> tuple[int, int, bool]:
    """Play the deal in ``st``/``m``/``ring`` to its end; ``kinds``/``weights`` by seat.

    Fills ``points``/``holders`` by seat and returns (winner, loser, by_wild) as
    seats; end, went_out, last card, turns and turnovers are left in ``st``.
    At a real decision of a :data:`PYTHON` seat it stops and returns
    (PAUSED, -1, False), the state at that decision: :func:`resume` carries
    out the answer, and a further call plays on.  With the public-event log on
    (``p[P.LOG]``) it also stops, returning (DRAIN, -1, False), when the log is
    nearly full: a further call plays on once it has been read.
    ``uniform``: the kind of every seat, a constant folded into a kernel compiled for its line-up (the
    other strategies' code drops out of the loop), or BY_SEAT (omitted): each seat's kind from ``kinds``.
    ``moves``/``nm`` given: every decision (forced ones and the compiled
    strategies' choices) is recorded by :func:`record`, the replay tokens of a
    faulty deal; omitted, the branch is compiled away.
    The scalar fields are played in a tuple (registers) and written back to
    ``st`` when the deal pauses or ends (analyzer.kernel.state.load).
    """
    s = load(st)
    end, went_out, last_card = -1, -1, -1
    stop = PAUSED
    while True:
        if p[P.LOG] and E.log_full(m, p):  # the public-event log is read before the deal goes on
            stop = DRAIN
            break
        if s[PHASE] == BEGIN:  # a turn starts; most go on to a decision in this same pass
            s, end = begin_turn(s, m, ring, p)
            if end >= 0:
                break
            if s[PHASE] == BEGIN:  # the turn was lost as it began (an effect, a sevens penalty, a pass)
                continue
        phase = s[PHASE]
        action, suit = decide(s, m, kinds, weights, p, uniform)
        if action == PAUSE:
            break
        if moves is not None:
            record(moves, nm, phase, action, suit)
        s, end, went_out, last_card = act(s, m, ring, phase, action, suit, p)
        if end >= 0:
            break
    win, lose, by_wild = stop, -1, False
    if end >= 0:  # one place scores the deal, however it ended (the loop stays small)
        s, win, lose, by_wild = finish(s, m, end, went_out, last_card, p, points, holders)
    store(st, s)
    return win, lose, by_wild


@helper
def scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One thread's working arrays for deals of ``n`` players: (st, m, ring, deck, points, holders, dealt)."""
    return (np.zeros(NI, np.int64), np.zeros(HANDS + n, np.uint64), np.zeros(RING, np.int64),
            np.zeros(RING, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_), np.zeros(n, np.int64))


@inner
def conserved(st: np.ndarray, m: np.ndarray, ring: np.ndarray, deck_mask: np.uint64, p: np.ndarray) -> bool:
    """--check: every card of the deck exactly once in the hands, the talon and the pile (G1, G8)."""
    d = p[P.DECK]
    seen = ZERO
    count = 0
    for s in range(p[P.PLAYERS]):
        h = m[HANDS + s]
        if (seen & h) != ZERO:
            return False
        seen |= h
        count += popcount(h)
    k = st[HEAD]
    for _ in range(st[TCOUNT] + st[PCOUNT]):
        c = bit(ring[k])
        if (seen & c) != ZERO:
            return False
        seen |= c
        count += 1
        k = wrap(k + 1, d)
    return count == d and seen == deck_mask


@inner
def count_dealt(m: np.ndarray, p: np.ndarray, dealt: np.ndarray) -> None:
    """``dealt[seat]``: the wilds (G4) in each hand as dealt (the prague lead, PR2, is already on the pile)."""
    wild = RANK_MASKS[p[P.WILD]]
    for s in range(dealt.shape[0]):
        dealt[s] = popcount(m[HANDS + s] & wild)


@inner
def position(seat: int, n: int) -> int:
    """The position of ``seat`` (seat 1 acts first: position 0; the dealer, seat 0, is last); -1 stays -1."""
    if seat < 0:
        return -1
    return n - 1 if seat == 0 else seat - 1


@inner
def store_deal(i: int, st: np.ndarray, m: np.ndarray, win: int, lose: int, by_wild: bool, pts: np.ndarray,
               held: np.ndarray, n: int, out: tuple) -> None:
    """Row ``i`` of the results ``out`` (DealResults' arrays in field order but ``wilds_dealt``), by position:
    position q is seat q + 1; ``m``'s hands give the cards left."""
    points, went_out, winner, loser, loser_by_wild, wild_held, end, turns, last_card, turnovers, cards_left = out
    for q in range(n):
        s = q + 1 if q + 1 < n else 0
        points[i, q] = pts[s]
        wild_held[i, q] = held[s]
        cards_left[i, q] = popcount(m[HANDS + s])
    went_out[i] = position(st[WENT_OUT], n)
    winner[i] = position(win, n)
    loser[i] = position(lose, n)
    loser_by_wild[i] = by_wild
    end[i] = st[END]
    turns[i] = st[TURNS]
    last_card[i] = st[LAST_CARD]
    turnovers[i] = st[TURNOVERS]
