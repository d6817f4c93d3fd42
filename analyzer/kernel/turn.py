"""The rules of one deal as compiled phase functions (RULES.md G, CZ, PR, SV).

A line-for-line port of analyzer.engine.deal's mechanics.  The engine's
mutual recursion (advance -> begin a turn -> lose it -> advance …) becomes a
phase machine: :func:`advance` only sets ``BEGIN`` and the driver loop calls
:func:`begin_turn` again, so a deal that cycles costs exactly its own turns.

The functions take the deal's scalar fields as the tuple ``s``
(analyzer.kernel.state.load: registers while a deal is played), set them with
:func:`~analyzer.kernel.state.put` and return the new ``s`` first.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.kernel import events as E
from analyzer.kernel import params as P
from analyzer.kernel.bitops import (
    ONE,
    RANK_MASKS,
    ZERO,
    bit,
    card_rank_mask,
    ix,
    lowest,
    popcount,
    rank_of,
    suit_mask,
    suit_of,
    wrap,
)
from analyzer.kernel.jit import inner
from analyzer.kernel.rng import next_bits53, shuffle_segment
from analyzer.kernel.state import (
    ACTIVE,
    BEGIN,
    CUR,
    DONE,
    DRAWN,
    DRAWN_CARD,
    DREW,
    END,
    HANDS,
    HEAD,
    LAST_ACTOR,
    LAST_CARD,
    PCOUNT,
    PDRAW,
    PEND7,
    PHASE,
    PLAY,
    PLAYED,
    PSKIP,
    RNG,
    SEVEN,
    STUCK,
    TCOUNT,
    TOP,
    TURNOVERS,
    TURNS,
    WENT_OUT,
    put,
)


@inner
def legal_mask(hand: np.uint64, top: int, active: int, p: np.ndarray) -> np.uint64:
    """G3/G4/CZ8: the cards of ``hand`` that may go on ``top`` (all of them on an empty pile, SV2)."""
    if top < 0:
        return hand
    top_rank = rank_of(top)
    if p[P.QNK] and top_rank == 12:  # CZ8 queen_needs_king (strict): only the Queen's King
        return hand & bit(top + 4)
    acc = suit_mask(active) | card_rank_mask(top)  # active is a suit whenever the pile has a top
    if p[P.WILD_ANY]:
        acc |= RANK_MASKS[p[P.WILD]]
    return hand & acc


@inner
def can_draw(s: tuple) -> bool:
    """G8: something can be drawn (the talon, or a pile to turn over)."""
    return s[TCOUNT] > 0 or s[PCOUNT] > 1


@inner
def push_pile(s: tuple, m: np.ndarray, ring: np.ndarray, card: int, p: np.ndarray) -> tuple:
    """Lay ``card`` on the pile (it becomes the top)."""
    d = p[P.DECK]
    ring[ix(wrap(s[HEAD] + s[TCOUNT] + s[PCOUNT], d))] = card
    m[PLAYED] |= bit(card)
    s = put(s, PCOUNT, s[PCOUNT] + 1)
    return put(s, TOP, card)


@inner
def draw_one(s: tuple, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> tuple[tuple, int]:
    """G8: the current player takes the talon's top card, turning the pile over if needed; -1 if none."""
    d = p[P.DECK]
    if s[TCOUNT] == 0 and s[PCOUNT] > 1:
        s = put(s, TCOUNT, s[PCOUNT] - 1)  # the pile but its top, oldest first, becomes the talon
        s = put(s, PCOUNT, 1)
        s = put(s, TURNOVERS, s[TURNOVERS] + 1)
        if p[P.SHUFFLE]:
            shuffle_segment(ring, s[HEAD], s[TCOUNT], d, m, RNG)
        if p[P.LOG]:
            E.log_event(m, p, E.TURN_OVER, s[CUR], s[TOP], -1, s[TURNS], ZERO, ZERO)
    if s[TCOUNT] == 0:
        return s, -1
    card = ring[ix(s[HEAD])]
    m[ix(HANDS + s[CUR])] |= bit(card)
    if p[P.LOG]:
        E.log_event(m, p, E.DRAW, s[CUR], card, -1, s[TURNS], ZERO, ZERO)
    s = put(s, HEAD, wrap(s[HEAD] + 1, d))
    return put(s, TCOUNT, s[TCOUNT] - 1), card


@inner
def penalty(s: tuple, m: np.ndarray, ring: np.ndarray, k: int, p: np.ndarray) -> tuple[tuple, int]:
    """Draw ``k`` penalty cards, or what can be had (G8); returns the number drawn."""
    got = 0
    for _ in range(k):
        s, card = draw_one(s, m, ring, p)
        if card < 0:
            break
        got += 1
    return s, got


@inner
def set_pending(s: tuple, card: int, chain: int, p: np.ndarray) -> tuple:
    """G5: the effect of ``card`` waits for the next player; a 7 under CZ8 sevens starts or extends a chain."""
    rank = rank_of(card)
    if p[P.SEVENS] and rank == 7:
        return put(s, PEND7, chain + 1)
    if not p[P.EFFECTS]:  # every entry of both tables is 0: nothing was pending either (no write, no register)
        return s
    s = put(s, PDRAW, p[ix(P.EFF_DRAW + rank)])
    return put(s, PSKIP, p[ix(P.EFF_SKIP + rank)])


@inner
def advance(s: tuple, p: np.ndarray) -> tuple:
    """The turn passes to the left (G2); the next turn starts in the driver loop."""
    cur = s[CUR]
    s = put(s, LAST_ACTOR, cur)
    s = put(s, CUR, wrap(cur + 1, p[P.PLAYERS]))
    return put(s, PHASE, BEGIN)


@inner
def seven_penalty(chain: int, p: np.ndarray) -> int:
    """CZ8: the 7's table entry, once (transfer) or once per 7 of the chain (accumulate)."""
    per_seven = p[P.EFF_DRAW + 7]
    return per_seven * chain if p[P.ACCUMULATE] else per_seven


@inner
def take_seven(s: tuple, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> tuple:
    """CZ8: take the sevens penalty and lose the turn."""
    k = seven_penalty(s[PEND7], p)
    s = put(s, PEND7, 0)
    if p[P.LOG]:
        E.log_event(m, p, E.TAKE, s[CUR], -1, -1, s[TURNS], ZERO, ZERO)
    s, _ = penalty(s, m, ring, k, p)
    return advance(s, p)


@inner
def hand_points(hand: np.uint64, p: np.ndarray) -> int:
    """CZ6/PR6/SV6; svinya's lone Queen scores ``lone_wild_points``."""
    if p[P.LONE_WILD] >= 0 and popcount(hand) == 1 and (hand & RANK_MASKS[p[P.WILD]]) != ZERO:
        return p[P.LONE_WILD]
    total = 0
    while hand != ZERO:  # card by card: a hand at the end holds few cards
        total += p[ix(P.POINTS + rank_of(lowest(hand)))]
        hand &= hand - ONE
    return total


@inner
def pick(values: np.ndarray, allowed: int, after: int, most: bool, n: int) -> int:
    """The seat in bit mask ``allowed`` with the most (fewest) value; ties to the earliest after ``after`` (G10)."""
    best = -1
    for k in range(1, n + 1):
        s = wrap(after + k, n)  # after < n, k <= n
        if (allowed >> s) & 1 and (best < 0 or (values[s] > values[best] if most else values[s] < values[best])):
            best = s
    return best


@inner
def finish(s: tuple, m: np.ndarray, end: int, went_out: int, last_card: int, p: np.ndarray,
           points: np.ndarray, holders: np.ndarray) -> tuple[tuple, int, int, bool]:
    """G9/G10/CZ7/PR7: score the hands into ``points``/``holders`` (by seat); returns (s, winner, loser, by_wild).

    Winner and loser are -1 for a capped deal.
    """
    n = p[P.PLAYERS]
    wild = RANK_MASKS[p[P.WILD]]
    double = p[P.JACK_DOUBLES] and last_card >= 0 and rank_of(last_card) == p[P.WILD]
    held = 0  # the seats holding a wild, as a bit mask
    for seat in range(n):
        h = m[HANDS + seat]
        points[seat] = hand_points(h, p) * (2 if double else 1)  # CZ8 jack_finish_doubles
        holders[seat] = (h & wild) != ZERO
        if holders[seat]:
            held |= 1 << seat
    s = put(s, PHASE, DONE)
    s = put(s, END, end)
    s = put(s, WENT_OUT, went_out)
    s = put(s, LAST_CARD, last_card)
    if end == END_CAPPED:
        return s, -1, -1, False
    after = s[LAST_ACTOR]
    everyone = (1 << n) - 1
    best = -1
    if went_out < 0:  # G10: a blocked deal is won by the fewest points, picked before the loser
        best = pick(points, everyone, after, False, n)
        loser = pick(points, everyone & ~(1 << best), after, True, n)
    else:
        loser = pick(points, everyone & ~(1 << went_out), after, True, n)
    by_wild = False
    if p[P.WILD_RULE] == P.WILD_RULE_DEAL and held:  # PR7: a Jack in hand loses without counting
        wild_loser = pick(points, held, after, True, n)
        by_wild = wild_loser != loser
        loser = wild_loser
    if went_out >= 0:
        winner = went_out
    elif best != loser:
        winner = best
    else:  # PR7 made the blocked deal's best hand the loser: the next best wins
        winner = pick(points, everyone & ~(1 << loser), after, False, n)
    return s, winner, loser, by_wild


@inner
def legal_now(s: tuple, m: np.ndarray, p: np.ndarray) -> np.uint64:
    """Legal cards of the player to act in the PLAY phase."""
    return legal_mask(m[ix(HANDS + s[CUR])], s[TOP], s[ACTIVE], p)


@inner
def settle(s: tuple, m: np.ndarray, p: np.ndarray) -> tuple[tuple, bool]:
    """Stay at the PLAY decision, or pass when nothing can be played or drawn (G8, SV4, G10).

    Returns True when the deal is blocked (the caller scores it).
    """
    if can_draw(s) or legal_now(s, m, p) != ZERO:  # the cheap test first
        return put(s, PHASE, PLAY), False
    stuck = 0 if s[DREW] else s[STUCK] + 1  # G10: a whole round of passes blocks the deal
    s = put(s, STUCK, stuck)
    if p[P.LOG]:
        E.log_event(m, p, E.PASS, s[CUR], -1, -1, s[TURNS], ZERO, ZERO)
    if stuck >= p[P.PLAYERS]:
        return put(s, LAST_ACTOR, s[CUR]), True
    return advance(s, p), False


@inner
def begin_turn(s: tuple, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> tuple[tuple, int]:
    """Start the current player's turn: cap, effects, forced draws (G5, G6, G10, G10a).

    Returns an END_* code when the deal ends here (capped or blocked), else -1.
    """
    if s[TURNS] >= p[P.TURN_CAP]:
        return s, END_CAPPED
    s = put(s, TURNS, s[TURNS] + 1)
    s = put(s, PHASE, PLAY)
    s = put(s, DREW, 0)
    s = put(s, DRAWN_CARD, -1)
    # a pending 7 (a chain) only under CZ8 sevens, a pending draw or skip only where some rank has one (G5):
    # tested on the rules first, so a kernel compiled for rules without them drops these paths
    if p[P.SEVENS] and s[PEND7]:
        if (m[ix(HANDS + s[CUR])] & RANK_MASKS[7]) != ZERO:
            return put(s, PHASE, SEVEN), -1  # CZ8: answer with a 7, or take
        return take_seven(s, m, ring, p), -1
    if p[P.EFFECTS] and (s[PDRAW] or s[PSKIP]):
        k, skip = s[PDRAW], s[PSKIP]
        s = put(s, PDRAW, 0)
        s = put(s, PSKIP, 0)
        s, got = penalty(s, m, ring, k, p)
        if skip:
            return advance(s, p), -1
        s = put(s, DREW, got > 0)
    s, blocked = settle(s, m, p)
    return s, (END_BLOCKED if blocked else -1)


@inner
def draw_decision(s: tuple, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> tuple[tuple, int]:
    """G6 (draw_one) or SV4 (draw_until_play): the player draws at a decision point.

    Returns END_BLOCKED if the deal blocks here, else -1.
    """
    if p[P.LOG]:  # with the cards that would have been legal (what the draw proves, G6/G7/SV4)
        E.log_event(m, p, E.DECIDE_DRAW, s[CUR], -1, -1, s[TURNS], legal_mask(~ZERO, s[TOP], s[ACTIVE], p), ZERO)
    s, card = draw_one(s, m, ring, p)
    s = put(s, DREW, 1)
    s = put(s, STUCK, 0)
    if p[P.UNTIL_PLAY]:
        s, blocked = settle(s, m, p)
        return s, (END_BLOCKED if blocked else -1)
    if legal_mask(bit(card), s[TOP], s[ACTIVE], p) != ZERO:
        s = put(s, PHASE, DRAWN)  # G6: a card that fits is played at once
        return put(s, DRAWN_CARD, card), -1
    return advance(s, p), -1


@inner
def play_card(s: tuple, m: np.ndarray, ring: np.ndarray, card: int, suit: int, p: np.ndarray) -> tuple[tuple, int]:
    """Play ``card`` (naming ``suit`` with a wild, -1 for its own); returns END_OUT if the hand is empty, else -1."""
    seat = s[CUR]
    hand = m[ix(HANDS + seat)] & ~bit(card)
    m[ix(HANDS + seat)] = hand
    if p[P.LOG]:  # a wild names a suit: the one chosen, else its own
        named = (suit if suit >= 0 else suit_of(card)) if rank_of(card) == p[P.WILD] else -1
        E.log_event(m, p, E.PLAY, seat, card, named, s[TURNS], ZERO, ZERO)
    chain = 0
    if p[P.SEVENS]:  # without CZ8 sevens no 7 is ever pending: the field stays 0 untouched
        chain = s[PEND7] if s[PHASE] == SEVEN else 0
        s = put(s, PEND7, 0)
    s = push_pile(s, m, ring, card, p)
    s = put(s, STUCK, 0)
    if rank_of(card) == p[P.WILD] and suit >= 0:
        s = put(s, ACTIVE, suit)
    else:
        s = put(s, ACTIVE, suit_of(card))
    s = set_pending(s, card, chain, p)
    if hand == ZERO:  # G9: the deal ends the moment a player sheds the last card
        s = put(s, LAST_ACTOR, seat)
        if p[P.SERVE_LAST]:  # G9 option: the next player still draws the last card's penalty
            k = s[PDRAW]
            if s[PEND7]:
                k = seven_penalty(s[PEND7], p)
            s = put(s, CUR, (seat + 1) % p[P.PLAYERS])
            s, _ = penalty(s, m, ring, k, p)
        return s, END_OUT
    if p[P.LAST_CALL] and popcount(hand) == 1 and next_bits53(m, RNG) < p[P.FORGET]:
        s, _ = penalty(s, m, ring, 2, p)  # CZ8 last_card_call: forgot to call the last card
    return advance(s, p), -1
