"""The rules of one deal as compiled phase functions (RULES.md G, CZ, PR, SV).

A line-for-line port of analyzer.engine.deal's mechanics.  The engine's
mutual recursion (advance -> begin a turn -> lose it -> advance …) becomes a
phase machine: :func:`advance` only sets ``BEGIN`` and the driver loop calls
:func:`begin_turn` again, so a deal that cycles costs exactly its own turns.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.kernel import params as P
from analyzer.kernel.bitops import ONE, RANK_MASKS, ZERO, bit, card_rank_mask, lowest, popcount, rank_of, suit_mask, suit_of, wrap
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
def can_draw(st: np.ndarray) -> bool:
    """G8: something can be drawn (the talon, or a pile to turn over)."""
    return st[TCOUNT] > 0 or st[PCOUNT] > 1


@inner
def push_pile(st: np.ndarray, m: np.ndarray, ring: np.ndarray, card: int, p: np.ndarray) -> None:
    """Lay ``card`` on the pile (it becomes the top)."""
    d = p[P.DECK]
    ring[wrap(st[HEAD] + st[TCOUNT] + st[PCOUNT], d)] = card
    st[PCOUNT] += 1
    st[TOP] = card
    m[PLAYED] |= bit(card)


@inner
def draw_one(st: np.ndarray, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> int:
    """G8: the current player takes the talon's top card, turning the pile over if needed; -1 if none."""
    d = p[P.DECK]
    if st[TCOUNT] == 0 and st[PCOUNT] > 1:
        st[TCOUNT] = st[PCOUNT] - 1  # the pile but its top, oldest first, becomes the talon
        st[PCOUNT] = 1
        st[TURNOVERS] += 1
        if p[P.SHUFFLE]:
            shuffle_segment(ring, st[HEAD], st[TCOUNT], d, m, RNG)
    if st[TCOUNT] == 0:
        return -1
    card = ring[st[HEAD]]
    st[HEAD] = wrap(st[HEAD] + 1, d)
    st[TCOUNT] -= 1
    m[HANDS + st[CUR]] |= bit(card)
    return card


@inner
def penalty(st: np.ndarray, m: np.ndarray, ring: np.ndarray, k: int, p: np.ndarray) -> int:
    """Draw ``k`` penalty cards, or what can be had (G8); returns the number drawn."""
    got = 0
    for _ in range(k):
        if draw_one(st, m, ring, p) < 0:
            break
        got += 1
    return got


@inner
def set_pending(st: np.ndarray, card: int, chain: int, p: np.ndarray) -> None:
    """G5: the effect of ``card`` waits for the next player; a 7 under CZ8 sevens starts or extends a chain."""
    rank = rank_of(card)
    if p[P.SEVENS] and rank == 7:
        st[PEND7] = chain + 1
        return
    st[PDRAW] = p[P.EFF_DRAW + rank]
    st[PSKIP] = p[P.EFF_SKIP + rank]


@inner
def advance(st: np.ndarray, p: np.ndarray) -> None:
    """The turn passes to the left (G2); the next turn starts in the driver loop."""
    st[LAST_ACTOR] = st[CUR]
    st[CUR] = wrap(st[CUR] + 1, p[P.PLAYERS])
    st[PHASE] = BEGIN


@inner
def seven_penalty(chain: int, p: np.ndarray) -> int:
    """CZ8: the 7's table entry, once (transfer) or once per 7 of the chain (accumulate)."""
    per_seven = p[P.EFF_DRAW + 7]
    return per_seven * chain if p[P.ACCUMULATE] else per_seven


@inner
def take_seven(st: np.ndarray, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> None:
    """CZ8: take the sevens penalty and lose the turn."""
    k = seven_penalty(st[PEND7], p)
    st[PEND7] = 0
    penalty(st, m, ring, k, p)
    advance(st, p)


@inner
def hand_points(hand: np.uint64, p: np.ndarray) -> int:
    """CZ6/PR6/SV6; svinya's lone Queen scores ``lone_wild_points``."""
    if p[P.LONE_WILD] >= 0 and popcount(hand) == 1 and (hand & RANK_MASKS[p[P.WILD]]) != ZERO:
        return p[P.LONE_WILD]
    total = 0
    while hand != ZERO:  # card by card: a hand at the end holds few cards
        total += p[P.POINTS + rank_of(lowest(hand))]
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
def finish(st: np.ndarray, m: np.ndarray, end: int, went_out: int, last_card: int, p: np.ndarray,
           points: np.ndarray, holders: np.ndarray) -> tuple[int, int, bool]:
    """G9/G10/CZ7/PR7: score the hands into ``points``/``holders`` (by seat); returns (winner, loser, by_wild).

    Winner and loser are -1 for a capped deal.
    """
    n = p[P.PLAYERS]
    wild = RANK_MASKS[p[P.WILD]]
    double = p[P.JACK_DOUBLES] and last_card >= 0 and rank_of(last_card) == p[P.WILD]
    held = 0  # the seats holding a wild, as a bit mask
    for s in range(n):
        h = m[HANDS + s]
        points[s] = hand_points(h, p) * (2 if double else 1)  # CZ8 jack_finish_doubles
        holders[s] = (h & wild) != ZERO
        if holders[s]:
            held |= 1 << s
    st[PHASE], st[END], st[WENT_OUT], st[LAST_CARD] = DONE, end, went_out, last_card
    if end == END_CAPPED:
        return -1, -1, False
    after = st[LAST_ACTOR]
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
    return winner, loser, by_wild


@inner
def legal_now(st: np.ndarray, m: np.ndarray, p: np.ndarray) -> np.uint64:
    """Legal cards of the player to act in the PLAY phase."""
    return legal_mask(m[HANDS + st[CUR]], st[TOP], st[ACTIVE], p)


@inner
def settle(st: np.ndarray, m: np.ndarray, p: np.ndarray) -> bool:
    """Stay at the PLAY decision, or pass when nothing can be played or drawn (G8, SV4, G10).

    Returns True when the deal is blocked (the caller scores it).
    """
    if can_draw(st) or legal_now(st, m, p) != ZERO:  # the cheap test first
        st[PHASE] = PLAY
        return False
    if st[DREW]:
        st[STUCK] = 0
    else:
        st[STUCK] += 1  # G10: a whole round of this blocks the deal
    if st[STUCK] >= p[P.PLAYERS]:
        st[LAST_ACTOR] = st[CUR]
        return True
    advance(st, p)
    return False


@inner
def begin_turn(st: np.ndarray, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> int:
    """Start the current player's turn: cap, effects, forced draws (G5, G6, G10, G10a).

    Returns an END_* code when the deal ends here (capped or blocked), else -1.
    """
    if st[TURNS] >= p[P.TURN_CAP]:
        return END_CAPPED
    st[TURNS] += 1
    st[PHASE], st[DREW], st[DRAWN_CARD] = PLAY, 0, -1
    if st[PEND7]:
        if (m[HANDS + st[CUR]] & RANK_MASKS[7]) != ZERO:
            st[PHASE] = SEVEN  # CZ8: answer with a 7, or take
            return -1
        take_seven(st, m, ring, p)
        return -1
    if st[PDRAW] or st[PSKIP]:
        k, skip = st[PDRAW], st[PSKIP]
        st[PDRAW], st[PSKIP] = 0, 0
        got = penalty(st, m, ring, k, p)
        if skip:
            advance(st, p)
            return -1
        st[DREW] = got > 0
    return END_BLOCKED if settle(st, m, p) else -1


@inner
def draw_decision(st: np.ndarray, m: np.ndarray, ring: np.ndarray, p: np.ndarray) -> int:
    """G6 (draw_one) or SV4 (draw_until_play): the player draws at a decision point.

    Returns END_BLOCKED if the deal blocks here, else -1.
    """
    card = draw_one(st, m, ring, p)
    st[DREW] = 1
    st[STUCK] = 0
    if p[P.UNTIL_PLAY]:
        return END_BLOCKED if settle(st, m, p) else -1
    if legal_mask(bit(card), st[TOP], st[ACTIVE], p) != ZERO:
        st[PHASE], st[DRAWN_CARD] = DRAWN, card  # G6: a card that fits is played at once
        return -1
    advance(st, p)
    return -1


@inner
def play_card(st: np.ndarray, m: np.ndarray, ring: np.ndarray, card: int, suit: int, p: np.ndarray) -> int:
    """Play ``card`` (naming ``suit`` with a wild, -1 for its own); returns END_OUT if the hand is empty, else -1."""
    seat = st[CUR]
    m[HANDS + seat] &= ~bit(card)
    chain = st[PEND7] if st[PHASE] == SEVEN else 0
    st[PEND7] = 0
    push_pile(st, m, ring, card, p)
    st[STUCK] = 0
    if rank_of(card) == p[P.WILD] and suit >= 0:
        st[ACTIVE] = suit
    else:
        st[ACTIVE] = suit_of(card)
    set_pending(st, card, chain, p)
    hand = m[HANDS + seat]
    if hand == ZERO:  # G9: the deal ends the moment a player sheds the last card
        st[LAST_ACTOR] = seat
        if p[P.SERVE_LAST]:  # G9 option: the next player still draws the last card's penalty
            k = st[PDRAW]
            if st[PEND7]:
                k = seven_penalty(st[PEND7], p)
            st[CUR] = (seat + 1) % p[P.PLAYERS]
            penalty(st, m, ring, k, p)
        return END_OUT
    if p[P.LAST_CALL] and popcount(hand) == 1 and next_bits53(m, RNG) < p[P.FORGET]:
        penalty(st, m, ring, 2, p)  # CZ8 last_card_call: forgot to call the last card
    advance(st, p)
    return -1
