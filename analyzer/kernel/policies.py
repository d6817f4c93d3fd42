"""Compiled forms of the built-in strategies.

Each is the decision rule of its Python form in strategies/*.py, tie-breaks
included: the scored strategies play the legal card of the highest score, the
lowest card id on a tie, and a wild names the suit most held after the play
(suit-keeper: its long suit); with no legal card they take a sevens penalty if
they may, else draw.  ``random`` draws from the deal's own play stream, so it
equals its Python form statistically, not move for move.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW, TAKE
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, SUIT_MASKS, ZERO, bit, ix, lowest, nth, popcount, rank_of, suit_of
from analyzer.kernel.jit import inner
from analyzer.kernel.rng import _INV53, EDGE51, EDGE53, GOLDEN, MASK51, MASK53, mix, next_bits53
from analyzer.kernel.state import RNG

RANDOM, GREEDY, WILD_KEEPER, WILD_DUMPER, AGGRESSIVE, SUIT_KEEPER, WEIGHTED = range(7)
KIND_NAMES = ("random", "greedy", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper", "weighted")
#: weighted's weights in the order its score adds them (strategies/weighted.py)
WEIGHT_NAMES = ("w_points", "w_wild", "w_effect", "w_suit_len", "w_threat", "w_same_rank")
N_WEIGHTS = len(WEIGHT_NAMES)

_BONUS = 100.0  # wild-keeper/-dumper, aggressive's effect bonus, suit-keeper's tier (beat any greedy key)
_SEVERITY = 1000.0  # aggressive: the harshest effect first when the next player is close to out
THREAT_HAND = 2  # aggressive: "close to going out"
THREAT_FROM = 3  # weighted: the threat feature counts from this hand size down
ANSWER_SEVEN = 0.5  # random: answers a sevens chain half the time
ANSWER_SEVEN_BITS = np.int64(1 << 52)  # u >= ANSWER_SEVEN for u = bits * 2**-53


@inner
def is_wild(card: int, p: np.ndarray) -> bool:
    return rank_of(card) == p[P.WILD]


@inner
def greedy_key(card: int, p: np.ndarray) -> float:
    """Points first, then a non-wild before a wild (strategies.builtin.greedy_key)."""
    return 2.0 * p[ix(P.POINTS + rank_of(card))] + (0.0 if is_wild(card, p) else 1.0)


@inner
def argmax_suit(hand: np.uint64) -> int:
    """The suit with the most cards in ``hand``; ties S, C, H, D."""
    best, best_n = 0, -1
    for s in range(4):
        k = popcount(hand & SUIT_MASKS[s])
        if k > best_n:
            best, best_n = s, k
    return best


@inner
def long_suit(hand: np.uint64, p: np.ndarray) -> int:
    """suit-keeper's long suit: most cards without wilds; ties S, C, H, D."""
    return argmax_suit(hand & ~RANK_MASKS[p[P.WILD]])


@inner
def has_effect(rank: int, p: np.ndarray) -> bool:
    return p[ix(P.EFF_DRAW + rank)] > 0 or p[ix(P.EFF_SKIP + rank)] != 0


@inner
def card_score(kind: int, w: np.ndarray, card: int, hand: np.uint64, active: int, next_hand: int,
               p: np.ndarray) -> float:
    """The score of playing ``card`` under strategy ``kind`` (higher is better)."""
    if kind == GREEDY:
        return greedy_key(card, p)
    if kind == WILD_KEEPER:
        return greedy_key(card, p) - (_BONUS if is_wild(card, p) else 0.0)
    if kind == WILD_DUMPER:
        return greedy_key(card, p) + (_BONUS if is_wild(card, p) else 0.0)
    rank = rank_of(card)
    if kind == AGGRESSIVE:
        eff = has_effect(rank, p)
        score = greedy_key(card, p) + (_BONUS if eff else 0.0)
        if next_hand <= THREAT_HAND:
            score += _SEVERITY * (p[ix(P.EFF_DRAW + rank)] + p[ix(P.EFF_SKIP + rank)])
        return score
    if kind == SUIT_KEEPER:
        if is_wild(card, p):
            tier = 0
        elif suit_of(card) == long_suit(hand, p):
            tier = 1
        elif active >= 0 and suit_of(card) == active:
            tier = 3
        else:
            tier = 2
        return _BONUS * tier + greedy_key(card, p)
    # WEIGHTED: features of the hand as it would be after the play, added in the Python order
    rest = hand & ~bit(card)
    effect = 1 if has_effect(rank, p) else 0
    if is_wild(card, p):
        suit_len = popcount(rest & SUIT_MASKS[argmax_suit(rest)])
    else:
        suit_len = popcount(rest & SUIT_MASKS[suit_of(card)])
    same_rank = popcount(rest & RANK_MASKS[rank])
    threat = effect * max(0, THREAT_FROM - next_hand)
    score = w[0] * p[ix(P.POINTS + rank)]
    score = score + w[1] * (1 if is_wild(card, p) else 0)
    score = score + w[2] * effect
    score = score + w[3] * suit_len
    score = score + w[4] * threat
    score = score + w[5] * same_rank
    return score


@inner
def random_card(bits: np.int64, legal: np.uint64, p: np.ndarray) -> tuple[int, int]:
    """As strategies/random_legal.py: with ``x = u * k`` (u = bits * 2**-53, k legal cards) the card is the
    floor(x)-th, and the fraction names a wild's suit, floor(4 (x - floor(x))).

    In integers (rng.scaled): ``bits * k`` holds floor(x) above bit 53 and the
    fraction below; the float form is computed only where rounding the product
    could change either (within 64 of a multiple of 2**51).
    """
    k = popcount(legal)
    prod = bits * k
    low = prod & MASK53
    if low > EDGE53 or (low & MASK51) > EDGE51:
        x = float(bits) * _INV53 * k
        i = int(x)
        card = nth(legal, i)
        return card, (int((x - i) * 4) if is_wild(card, p) else -1)
    card = nth(legal, prod >> np.int64(53))
    return card, (low >> np.int64(51) if is_wild(card, p) else -1)


@inner
def random_play(legal: np.uint64, forced: bool, p: np.ndarray, m: np.ndarray) -> tuple[int, int]:
    """random's card from ``legal`` (not empty) at a PLAY decision: the forced one (``forced``: the only
    legal card, no suit to name), else :func:`random_card` of the next draw.

    One path for both, without a branch on ``forced`` (a coin toss for the branch predictor: about half
    of random's plays are forced): the draw is computed either way and the stream steps only when it is
    used, so the numbers are those of the branching form (a forced card is legal's only one, nth 0).
    """
    c = m[RNG] + GOLDEN
    bits = np.int64(mix(c) >> np.uint64(11))
    m[RNG] = c - (GOLDEN & (ZERO - np.uint64(forced)))  # unchanged when forced
    card, suit = random_card(bits, legal, p)
    return card, suit | -np.int64(forced)  # -1 when forced


@inner
def choose(kind: int, w: np.ndarray, hand: np.uint64, legal: np.uint64, can_take: bool, active: int,
           next_hand: int, seven_phase: bool, p: np.ndarray, m: np.ndarray) -> tuple[int, int]:
    """(action, suit) of strategy ``kind`` at a real decision; suit -1 = none.

    ``hand`` is the view's hand, ``legal`` its legal cards; DRAW is the answer
    only when no card is legal (none of the built-ins draws voluntarily, G7).
    """
    if legal == ZERO:
        return (TAKE if can_take else DRAW), -1
    if kind == RANDOM:
        # u >= 1/2 exactly when the 53-bit draw is >= 2**52
        if seven_phase and can_take and next_bits53(m, RNG) >= ANSWER_SEVEN_BITS:
            return TAKE, -1
        return random_card(next_bits53(m, RNG), legal, p)
    rest = legal
    best = lowest(rest)
    best_score = card_score(kind, w, best, hand, active, next_hand, p)
    rest &= rest - np.uint64(1)
    while rest != ZERO:
        c = lowest(rest)
        s = card_score(kind, w, c, hand, active, next_hand, p)
        if s > best_score:
            best, best_score = c, s
        rest &= rest - np.uint64(1)
    if not is_wild(best, p):
        return best, -1
    if kind == SUIT_KEEPER:
        return best, long_suit(hand, p)
    return best, argmax_suit(hand & ~bit(best))
