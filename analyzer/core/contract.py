"""The strategy contract, at two speeds (issue 3, STYLE.md section 4).

A strategy sees only what its player may know.  The *simple path* is one
Python call per decision, ``choose(view, rng) -> (action, suit)``; the *fast
path* is ``choose_batch(bview, rng) -> (actions, suits)`` over every deal of a
batch in which the strategy's player is to act.  The engine and the simulator
check every returned action against the legal moves.

Actions: a card id 0..51 (analyzer.core.cards), ``DRAW`` (52) or ``TAKE`` (53,
accept a sevens penalty, CZ8).  The suit is named only with a wild; ``-1`` (or
``None`` on the simple path) means "no suit" — for a wild, its own suit.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, TAKE, card_str, rank_of, suit_of
from analyzer.core.rules import RuleSet

Action = tuple[int, int | None]


class DecisionView(NamedTuple):
    """One decision of one player (the simple path).

    ``hand_sizes[k]`` is the hand size of the player ``k`` seats to the left
    (0 = self), so "the next player" is always index 1.  A NamedTuple, not a
    dataclass: it is built once per decision, and a tuple builds 4x faster.
    """

    rules: RuleSet
    seat: int
    hand: tuple[int, ...]
    legal: tuple[int, ...]  # legal actions: card ids, DRAW and/or TAKE
    top: int | None  # top card of the pile, None on an empty pile (svinya lead)
    active_suit: int | None
    pending_seven: int  # >0: answering a sevens chain of this many cards (CZ8)
    hand_sizes: tuple[int, ...]
    talon_size: int
    played: frozenset[int]  # cards that have been played to the pile so far
    scores: tuple[int, ...] | None = None  # match totals by seat offset, else None

    @property
    def legal_cards(self) -> tuple[int, ...]:
        """The legal cards: ``legal`` lists cards first (by id), then DRAW and/or TAKE."""
        legal = self.legal
        n = len(legal)
        while n and legal[n - 1] >= DRAW:
            n -= 1
        return legal[:n]

    @property
    def can_draw(self) -> bool:
        return DRAW in self.legal

    @property
    def can_take(self) -> bool:
        return TAKE in self.legal

    def is_wild(self, card: int) -> bool:
        return rank_of(card) == self.rules.wild_rank

    def suit_counts(self, exclude: int | None = None) -> list[int]:
        """Cards per suit in hand, optionally leaving one card out (the one played)."""
        counts = [0, 0, 0, 0]
        for c in self.hand:
            if c != exclude:
                counts[suit_of(c)] += 1
        return counts


class BatchView:
    """The same information for B deals at once (the fast path).

    Masks are uint64 bit masks of card ids.  ``hand_sizes`` is (B, P) by seat
    offset (column 0 = self).  ``scores`` is (B, P) by seat offset or None.

    Any field may be given as a zero-argument function instead of an array: it
    is called on first access only.  The simulator passes the costly fields
    (hand sizes, talon, played cards, scores) that way, so a strategy pays only
    for what it reads.  A view is read-only: no attribute can be set, there is
    no ``__dict__`` to replace, and its arrays are not writeable (issue 11) --
    the simulator's legality check never reads them anyway.
    """

    rules: RuleSet
    seat: NDArray[np.int8]  # (B,)
    hand: NDArray[np.uint64]  # (B,)
    legal: NDArray[np.uint64]  # (B,) legal cards
    can_draw: NDArray[np.bool_]  # (B,)
    can_take: NDArray[np.bool_]  # (B,)
    top: NDArray[np.int8]  # (B,) -1 on an empty pile
    active_suit: NDArray[np.int8]  # (B,) -1 on an empty pile
    pending_seven: NDArray[np.int16]  # (B,)
    hand_sizes: NDArray[np.int16]  # (B, P)
    talon_size: NDArray[np.int16]  # (B,)
    played: NDArray[np.uint64]  # (B,)
    scores: NDArray[np.int32] | None

    #: the field names in order, read off the annotations above
    FIELDS = tuple(__annotations__)
    __slots__ = FIELDS + ("_lazy",)

    def __init__(self, rules: RuleSet, seat: Any, hand: Any, legal: Any, can_draw: Any, can_take: Any,
                 top: Any, active_suit: Any, pending_seven: Any, hand_sizes: Any, talon_size: Any,
                 played: Any, scores: Any = None) -> None:
        lazy = {}
        put = object.__setattr__
        for k, v in zip(self.FIELDS, (rules, seat, hand, legal, can_draw, can_take, top, active_suit,
                                      pending_seven, hand_sizes, talon_size, played, scores)):
            if callable(v) and k != "rules":
                lazy[k] = v
            else:
                put(self, k, _read_only(v))
        put(self, "_lazy", lazy)

    def __getattr__(self, name: str) -> Any:  # only reached for a field not computed yet
        lazy = object.__getattribute__(self, "_lazy")
        if name not in lazy:
            raise AttributeError(name)
        value = _read_only(lazy.pop(name)())
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a BatchView is read-only (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a BatchView is read-only (tried to delete {name!r})")

    def __repr__(self) -> str:
        return f"<BatchView of {len(self.seat)} decisions>"


def _read_only(value: Any) -> Any:
    """An array that cannot be written through this reference (a strategy's copy)."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value


@runtime_checkable
class Strategy(Protocol):
    """What the engine and the simulator call.  ``name`` identifies it in errors."""

    name: str

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action: ...


@runtime_checkable
class BatchStrategy(Strategy, Protocol):
    def choose_batch(
        self, view: BatchView, rng: np.random.Generator
    ) -> tuple[NDArray[np.int16], NDArray[np.int8]]: ...


class StrategyError(RuntimeError):
    """A strategy raised or returned something that is not a legal move."""


def is_action_int(kind: type) -> bool:
    """An exact action type: a Python int or a numpy integer (not bool, float or text, issue 11)."""
    return kind is int or (isinstance(kind, type) and issubclass(kind, np.integer))


def describe_action(action: Any, suit: Any = None) -> str:
    """An answer as a player would say it (``8C``, ``JH>S``, ``draw``), else its repr."""
    if not is_action_int(type(action)):
        return repr(action)
    try:
        a = int(action)
    except (TypeError, ValueError):
        return repr(action)
    if a == DRAW:
        return "draw"
    if a == TAKE:
        return "take"
    if 0 <= a < DRAW:
        s = "" if suit is None or int(suit) < 0 else ">" + "SCHD"[int(suit)]
        return card_str(a) + s
    return repr(action)
