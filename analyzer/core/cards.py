"""Cards, decks and the text notation `10S JH QD AC 7C` (RULES.md G1).

A card is an int id ``rank_index * 4 + suit``: rank index 0..12 stands for the
ranks 2..A, suit 0..3 for S C H D.  Ids fit a uint64 bit mask, which is how the
batch simulator holds hands; the rules engine uses plain tuples of ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

SUITS = "SCHD"
SUIT_SYMBOLS = "♠♣♥♦"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
N_CARDS = 52

#: Action ids beyond the 52 cards: draw a card, or take a sevens penalty (CZ8).
DRAW = 52
TAKE = 53
NO_SUIT = -1

# rank *values* (2..14) for readability in rules code
JACK, QUEEN, KING, ACE = 11, 12, 13, 14

#: G1: the lowest rank of each deck size.
DECK_LOW_RANK = {32: 7, 36: 6, 48: 3, 52: 2}


class CardError(ValueError):
    """A card token that is not in the notation."""


def card_id(rank: int, suit: int) -> int:
    """Id of the card of rank value ``rank`` (2..14) and suit index."""
    return (rank - 2) * 4 + suit


def rank_of(card: int) -> int:
    """Rank value 2..14 of a card id."""
    return card // 4 + 2


def suit_of(card: int) -> int:
    return card % 4


def deck(size: int) -> tuple[int, ...]:
    """The cards of a ``size``-card deck (G1), in id order."""
    low = DECK_LOW_RANK[size]
    return tuple(c for c in range(N_CARDS) if rank_of(c) >= low)


def parse_card(token: str) -> int:
    """Parse ``10S``/``jh``/``AC`` into a card id; raises CardError naming the token."""
    t = token.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS or t[:-1] not in RANKS:
        raise CardError(f"bad card {token!r}: expected rank 2-10/J/Q/K/A and suit S/C/H/D, e.g. 10S")
    return card_id(RANKS.index(t[:-1]) + 2, SUITS.index(t[-1]))


def parse_suit(token: str) -> int:
    t = token.strip().upper()
    if t not in tuple(SUITS):
        raise CardError(f"bad suit {token!r}: expected one of S C H D")
    return SUITS.index(t)


def card_str(card: int) -> str:
    """Notation text of a card id: ``10S``."""
    return RANKS[card // 4] + SUITS[card % 4]


def action_token(action: int, suit: int | None) -> str:
    """The replay token of an action: ``8C``, ``JH>S``, ``draw`` (52) or ``take`` (53)."""
    if action == DRAW:
        return "draw"
    if action == TAKE:
        return "take"
    return card_str(action) + ("" if suit is None else ">" + SUITS[suit])


def card_pretty(card: int) -> str:
    """Human text with a suit symbol: ``10♠``."""
    return RANKS[card // 4] + SUIT_SYMBOLS[card % 4]


def cards_str(cards: Iterable[int], pretty: bool = False) -> str:
    f = card_pretty if pretty else card_str
    return " ".join(f(c) for c in cards)


def parse_cards(tokens: Sequence[str] | str) -> list[int]:
    if isinstance(tokens, str):
        tokens = tokens.split()
    return [parse_card(t) for t in tokens]


def mask_of(cards: Iterable[int]) -> int:
    """Bit mask (python int, fits uint64) of a set of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of_mask(mask: int) -> list[int]:
    return [c for c in range(N_CARDS) if (mask >> c) & 1]


def shuffled_decks(size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent shuffles of a ``size``-card deck: (n, size) int8."""
    base = np.asarray(deck(size), dtype=np.int8)
    return rng.permuted(np.tile(base, (n, 1)), axis=1)


def rotated_hands(decks: np.ndarray, players: int, hand_size: int, rotations: int) -> np.ndarray:
    """Each deck ``rotations`` times, its hands passed one seat on each time: (n * rotations, D), deck by deck.

    The deal goes one card at a time from the dealer's left, dealer last (G10a: card ``i`` of the first
    ``players * hand_size`` to seat ``(i + 1) % players``); in rotation ``r`` seat ``s`` is dealt the cards
    seat ``s - r`` was, the talon (and the turned-up or lead card) unchanged.  A fixed reordering of a
    uniformly shuffled deck is itself uniformly shuffled, so every rotation is a deal like any other; within a
    deck the same hands meet every seat, so a seat's luck of the deal cancels out of its rate (the duplicate
    design of the first player's advantage, analyzer.stats.tables.first_player_advantage).
    """
    decks = np.asarray(decks)
    n, dealt = decks.shape[0], players * hand_size
    out = np.repeat(decks, rotations, axis=0)
    pos = np.arange(dealt)
    seat, rnd = (pos + 1) % players, pos // players
    for r in range(1, rotations):
        src = rnd * players + (seat - r - 1) % players  # where seat - r's card of this round lies in the deck
        out[r::rotations, :dealt] = decks[:, src]
    assert out.shape == (n * rotations, decks.shape[1])
    return out
