"""NumPy helpers over uint64 card masks, for the strategies' fast path.

A mask has bit ``c`` set for card id ``c`` (analyzer.core.cards).  Every helper
takes a (B,) uint64 array and works on the whole batch at once, so that a
strategy's ``choose_batch`` never loops over rows in Python.  Card ids stay
below 52, so a mask converts to float64 exactly; ``lowest_card`` and
``highest_card`` rely on that to read a bit index off the float exponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from analyzer.core import bits as _bits
from analyzer.core.bits import nth_set_card
from analyzer.core.cards import DRAW, N_CARDS, TAKE, cards_of_mask
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.rules import RuleSet

U64 = np.uint64
_ONE = np.uint64(1)

#: The bit of each card id, the cards of each suit S C H D, the four cards of each
#: rank value (0 and 1 empty): shared with the simulator (analyzer.core.bits).
CARD_BITS: NDArray[np.uint64] = _bits.BIT
SUIT_MASKS: NDArray[np.uint64] = _bits.SUIT_MASK
RANK_MASKS: NDArray[np.uint64] = _bits.RANK_MASK
#: (52,) suit index and rank value of every card id.
CARD_SUIT: NDArray[np.int64] = np.arange(N_CARDS) % 4
CARD_RANK: NDArray[np.int64] = np.arange(N_CARDS) // 4 + 2


def _as_u64(masks: NDArray[np.uint64] | int) -> NDArray[np.uint64]:
    return np.atleast_1d(np.asarray(masks, dtype=np.uint64))


def popcount(masks: NDArray[np.uint64]) -> NDArray[np.uint8]:
    """Number of cards in each mask, same shape as ``masks`` (analyzer.core.bits.popcount)."""
    return _bits.popcount(np.asarray(masks, dtype=np.uint64))


def card_bits(masks: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """(B, 52) bool: which cards each mask holds (the dense form for scoring)."""
    return (_as_u64(masks)[:, None] & CARD_BITS[None, :]) != 0


def mask_of_cards(cards: NDArray[np.integer]) -> NDArray[np.uint64]:
    """(B,) uint64 mask of one card per row; 0 where the card id is negative or >= 52."""
    c = np.asarray(cards, dtype=np.int64)
    ok = (c >= 0) & (c < N_CARDS)
    return np.where(ok, np.left_shift(_ONE, np.where(ok, c, 0).astype(np.uint64)), U64(0))


def highest_card(masks: NDArray[np.uint64]) -> NDArray[np.int16]:
    """(B,) id of the highest card in each mask, -1 for an empty mask."""
    return _bits.highest_card(_as_u64(masks)).astype(np.int16)


def lowest_card(masks: NDArray[np.uint64]) -> NDArray[np.int16]:
    """(B,) id of the lowest card in each mask, -1 for an empty mask."""
    return _bits.lowest_card(_as_u64(masks)).astype(np.int16)


def nth_card(masks: NDArray[np.uint64], n: NDArray[np.integer]) -> NDArray[np.int16]:
    """(B,) id of the ``n``-th lowest card (0-based) of each mask, -1 where there is none."""
    return nth_set_card(_as_u64(masks), np.atleast_1d(np.asarray(n, dtype=np.int64))).astype(np.int16)


def suit_counts(masks: NDArray[np.uint64]) -> NDArray[np.int64]:
    """(B, 4) number of cards of each suit S C H D."""
    return popcount(_as_u64(masks)[:, None] & SUIT_MASKS[None, :]).astype(np.int64)


def rank_counts(masks: NDArray[np.uint64]) -> NDArray[np.int64]:
    """(B, 15) number of cards of each rank value (columns 0, 1 are always 0)."""
    return popcount(_as_u64(masks)[:, None] & RANK_MASKS[None, :]).astype(np.int64)


def longest_suit(masks: NDArray[np.uint64]) -> NDArray[np.int8]:
    """(B,) suit with the most cards; ties go to the lowest index (S, C, H, D)."""
    return np.argmax(suit_counts(masks), axis=1).astype(np.int8)


@dataclass(frozen=True, eq=False)
class CardTables:
    """Per-card lookup tables of one rule set: the fast path gathers from these.

    Every array is (52,) indexed by card id; ``*_mask`` are the same sets as masks.
    """

    points: NDArray[np.int64]  # rules.points of the card's rank
    wild: NDArray[np.bool_]  # the card is of the wild rank
    effect: NDArray[np.bool_]  # its rank makes the next player draw or lose the turn
    severity: NDArray[np.int64]  # cards drawn + 1 for a lost turn
    wild_mask: np.uint64
    effect_mask: np.uint64


@lru_cache(maxsize=64)
def card_tables(rules: RuleSet) -> CardTables:
    """Build (once per rule set) the per-card tables a strategy scores with."""
    ranks = CARD_RANK
    points = np.array([rules.points[r] for r in ranks], dtype=np.int64)
    wild = ranks == rules.wild_rank
    eff = [rules.effects[r] if r < len(rules.effects) else None for r in ranks]
    effect = np.array([e is not None and (e.draw > 0 or e.skip) for e in eff], dtype=bool)
    severity = np.array([0 if e is None else e.draw + int(e.skip) for e in eff], dtype=np.int64)
    for a in (points, wild, effect, severity):
        a.setflags(write=False)
    return CardTables(
        points=points,
        wild=wild,
        effect=effect,
        severity=severity,
        wild_mask=U64(int(CARD_BITS[wild].sum()) if wild.any() else 0),
        effect_mask=U64(int(CARD_BITS[effect].sum()) if effect.any() else 0),
    )


def row_view(view: BatchView, i: int) -> DecisionView:
    """The simple-path view of row ``i`` of a batch (for adapters, debugging and tests)."""
    hand = tuple(cards_of_mask(int(view.hand[i])))
    legal = tuple(cards_of_mask(int(view.legal[i])))
    if bool(view.can_draw[i]):
        legal += (DRAW,)
    if bool(view.can_take[i]):
        legal += (TAKE,)
    top = int(view.top[i])
    suit = int(view.active_suit[i])
    return DecisionView(
        rules=view.rules,
        seat=int(view.seat[i]),
        hand=hand,
        legal=legal,
        top=None if top < 0 else top,
        active_suit=None if suit < 0 else suit,
        pending_seven=int(view.pending_seven[i]),
        hand_sizes=tuple(int(h) for h in view.hand_sizes[i]),
        talon_size=int(view.talon_size[i]),
        played=frozenset(cards_of_mask(int(view.played[i]))),
        scores=None if view.scores is None else tuple(int(s) for s in view.scores[i]),
    )


__all__ = [
    "CARD_BITS", "SUIT_MASKS", "RANK_MASKS", "CARD_SUIT", "CARD_RANK", "CardTables",
    "card_tables", "popcount", "card_bits", "mask_of_cards", "highest_card", "lowest_card",
    "nth_card", "suit_counts", "rank_counts", "longest_suit", "row_view",
]
