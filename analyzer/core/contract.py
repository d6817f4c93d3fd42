"""The strategy contract, at two speeds (STYLE.md section 4).

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

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol, overload, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, TAKE, card_str, rank_of, suit_of
from analyzer.core.rules import RuleSet

Action = tuple[int, int | None]

#: The kinds of public events in a deal's history (:class:`Event`).
EVENT_KINDS = ("play", "draw", "pass", "take", "name", "turn_over")


class Event(NamedTuple):
    """One public event of a deal: ``seat`` is the offset of the player from the viewer (0 = self, 1 = next).

    ``play``: ``card`` laid (``suit`` named for a wild, else None); ``draw``: one
    card drawn, ``card`` shown only when everyone knows it (drawn from a talon of
    known order, G8), else None; ``pass``; ``take``: a sevens chain taken (CZ8);
    ``name``: the suit named for a Jack lead (PR2); ``turn_over``: the pile
    became the talon (G8).
    """

    turn: int
    seat: int
    kind: str
    card: int | None
    suit: int | None


class EventLog(Sequence[Event]):
    """A deal's events so far, oldest first, decoded on access from the simulator's packed log (read-only)."""

    __slots__ = ("_codes",)
    _codes: tuple[int, ...]

    def __init__(self, codes: Any) -> None:
        object.__setattr__(self, "_codes", tuple(int(c) for c in codes))

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Event]: ...

    def __getitem__(self, i: int | slice) -> Event | Sequence[Event]:
        if isinstance(i, slice):
            return [self._decode(c) for c in self._codes[i]]
        return self._decode(self._codes[i])

    def __iter__(self) -> Iterator[Event]:
        return map(self._decode, self._codes)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an event log is read-only")

    @staticmethod
    def _decode(c: int) -> Event:
        card, suit = c & 63, ((c >> 6) & 7) - 1
        return Event(c >> 16, (c >> 12) & 15, EVENT_KINDS[(c >> 9) & 7], None if card == 63 else card,
                     None if suit < 0 else suit)

    def __repr__(self) -> str:
        return f"<EventLog of {len(self)} events>"


class DecisionView(NamedTuple):
    """One decision of one player (the simple path).

    ``hand_sizes[k]`` is the hand size of the player ``k`` seats to the left
    (0 = self), so "the next player" is always index 1.  A NamedTuple, not a
    dataclass: it is built once per decision, and a tuple builds 4x faster.
    """

    rules: RuleSet
    seat: int
    hand: tuple[int, ...]  # ascending card ids (every engine shows the same order)
    legal: tuple[int, ...]  # legal actions: card ids, DRAW and/or TAKE
    top: int | None  # top card of the pile, None on an empty pile (svinya lead)
    active_suit: int | None
    pending_seven: int  # >0: answering a sevens chain of this many cards (CZ8)
    hand_sizes: tuple[int, ...]
    talon_size: int
    played: frozenset[int]  # cards that have been played to the pile so far
    scores: tuple[int, ...] | None = None  # match totals by seat offset, else None
    #: the public history (what a player with perfect memory knows) when the strategy declares
    #: ``uses_history = True`` and the simulator records it; else None
    history: History | None = None

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


class _LazyReadOnly:
    """Read-only fields, each an array or a zero-argument function computed on first access
    (no attribute can be set, there is no ``__dict__`` to replace, arrays are not writeable)."""

    __slots__ = ("_lazy",)

    def _fill(self, items: Iterable[tuple[str, Any]], eager: tuple[str, ...] = ()) -> None:
        """Set each field, deferring the callables (but those named in ``eager``, kept as they are)."""
        lazy = {}
        for k, v in items:
            if callable(v) and k not in eager:
                lazy[k] = v
            else:
                object.__setattr__(self, k, _read_only(v))
        object.__setattr__(self, "_lazy", lazy)

    def __getattr__(self, name: str) -> Any:  # only reached for a field not computed yet
        lazy = object.__getattribute__(self, "_lazy")
        if name not in lazy:
            raise AttributeError(name)
        value = _read_only(lazy.pop(name)())
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a {type(self).__name__} is read-only (tried to delete {name!r})")


class BatchView(_LazyReadOnly):
    """The same information for B deals at once (the fast path).

    Masks are uint64 bit masks of card ids.  ``hand_sizes`` is (B, P) by seat
    offset (column 0 = self).  ``scores`` is (B, P) by seat offset or None.

    Any field may be given as a zero-argument function instead of an array: it
    is called on first access only.  The simulator passes the costly fields
    (hand sizes, talon, played cards, scores) that way, so a strategy pays only
    for what it reads.  A view is read-only: no attribute can be set, there is
    no ``__dict__`` to replace, and its arrays are not writeable --
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
    history: BatchHistory | None  # the public history (uses_history = True), else None

    #: the field names in order, read off the annotations above
    FIELDS = tuple(__annotations__)
    __slots__ = FIELDS

    def __init__(self, rules: RuleSet, seat: Any, hand: Any, legal: Any, can_draw: Any, can_take: Any,
                 top: Any, active_suit: Any, pending_seven: Any, hand_sizes: Any, talon_size: Any,
                 played: Any, scores: Any = None, history: Any = None) -> None:
        self._fill(zip(self.FIELDS, (rules, seat, hand, legal, can_draw, can_take, top, active_suit,
                                     pending_seven, hand_sizes, talon_size, played, scores, history)),
                   eager=("rules", "history"))

    def __repr__(self) -> str:
        return f"<BatchView of {len(self.seat)} decisions>"


class History(_LazyReadOnly):
    """The public history of a deal as one player with perfect memory knows it.

    Per-player tuples are by seat offset (0 = self, 1 = the next player), as
    ``DecisionView.hand_sizes``.  ``cannot_hold[k]``: cards player ``k`` certainly
    does not hold, inferred from forced draws (G6/G7) and passes after drawing
    (SV4) under the variant's legal-move rules, from the cards seen and from
    the talon's known order (G8); for self, every card not in hand.
    ``voids[k]``: the suits of which player ``k`` holds no card as far as
    anyone can tell.  ``hidden``: the cards whose place this player cannot
    tell (not in hand, not on the pile, not in a known talon or a known hand).
    ``slots[k]``: one set per unknown card of player ``k`` (the cards it may
    be, as the batch history's ``slots`` row; self: none) and ``talon_may``
    what an unknown talon card may be: what a sampler of worlds needs.

    Read-only and lazy as :class:`BatchHistory` (built by keywords; a field
    given as a zero-argument function is computed on first access).
    """

    pile: tuple[int, ...]  # the pile, bottom first (top last)
    seen: frozenset[int]  # every card ever made public (played or turned up)
    known: tuple[frozenset[int], ...]  # by offset: cards of that hand everyone knows (drawn from a known talon)
    cannot_hold: tuple[frozenset[int], ...]  # by offset
    voids: tuple[frozenset[int], ...]  # by offset: suits
    hidden: frozenset[int]
    talon: tuple[int, ...] | None  # the talon top first when its order is known (G8 turn_over), else None
    drawn: tuple[int, ...]  # by offset: cards drawn this deal
    passes: tuple[int, ...]  # by offset
    takes: tuple[int, ...]  # by offset: sevens chains taken (CZ8)
    named: tuple[int | None, ...]  # by offset: the last suit named with a wild, None if none yet
    events: Sequence[Event]  # the event log, oldest first
    #: by offset: each unknown card's possible cards, older slots narrower (voids proved before a draw); self: ()
    slots: tuple[tuple[frozenset[int], ...], ...]
    talon_may: frozenset[int]  # what an unknown talon card may be; empty where the talon's order is known

    FIELDS = tuple(__annotations__)
    __slots__ = FIELDS

    def __init__(self, **fields: Any) -> None:  # built once per decision: one pass, no generic _fill
        if fields.keys() - _HISTORY_FIELDS:
            raise TypeError(f"unknown history fields: {', '.join(sorted(fields.keys() - _HISTORY_FIELDS))}")
        lazy = {}
        put = object.__setattr__
        for k, v in fields.items():
            if callable(v):
                lazy[k] = v
            else:
                put(self, k, _read_only(v) if isinstance(v, np.ndarray) else v)
        put(self, "_lazy", lazy)

    def __repr__(self) -> str:
        return "<History>"


_HISTORY_FIELDS = frozenset(History.FIELDS)


class BatchHistory(_LazyReadOnly):
    """The public history of B deals (the fast path's :class:`History`): arrays by row, per-player
    columns by seat offset (column 0 = self).

    Read-only and lazy as :class:`BatchView`: a field given as a zero-argument
    function is computed on first access; arrays are not writeable.
    """

    pile: NDArray[np.int8]  # (B, D) the pile bottom first, -1 after its last card
    pile_size: NDArray[np.int16]  # (B,)
    seen: NDArray[np.uint64]  # (B,) every card ever public
    known: NDArray[np.uint64]  # (B, P) cards of each hand everyone knows
    may_hold: NDArray[np.uint64]  # (B, P) cards each player may hold as far as anyone knows (self: the hand)
    cannot_hold: NDArray[np.uint64]  # (B, P) the deck's other cards
    voids: NDArray[np.uint8]  # (B, P) bit s set: no card of suit s (S C H D)
    hidden: NDArray[np.uint64]  # (B,) cards whose place this player cannot tell
    talon: NDArray[np.int8]  # (B, D) the talon top first where its order is known, else -1
    drawn: NDArray[np.int16]  # (B, P) cards drawn this deal
    passes: NDArray[np.int16]  # (B, P)
    takes: NDArray[np.int16]  # (B, P) sevens chains taken
    named: NDArray[np.int8]  # (B, P) last suit named with a wild, -1 if none
    events: NDArray[np.int64]  # (B, E) packed events, seats as offsets, -1 after the last (core.contract.EventLog)
    n_events: NDArray[np.int32]  # (B,)
    #: (B,) the turn now, as the events count turns (1 before any event): the last event's, one on when
    #: another player made it.  And (B,) the times the pile was turned over into the talon (G8).  Both read
    #: off the log's last entry and a counter, where a search reading them off ``events`` scanned the whole
    #: log at every decision (a 2,000-turn deal: 4,000 events a row, a step)
    turn: NDArray[np.int64]
    turnovers: NDArray[np.int32]
    #: (B, P, D) each player's unknown cards, one mask per card (what each may be; 0 past them; self: 0):
    #: older slots narrower (voids proved before a draw), as the observer's Knowledge keeps them
    slots: NDArray[np.uint64]
    talon_may: NDArray[np.uint64]  # (B,) what an unknown talon card may be; 0 where the talon's order is known

    FIELDS = tuple(__annotations__)
    __slots__ = FIELDS

    def __init__(self, **fields: Any) -> None:
        unknown = set(fields) - set(self.FIELDS)
        if unknown:
            raise TypeError(f"unknown history fields: {', '.join(sorted(unknown))}")
        self._fill(fields.items())

    def __repr__(self) -> str:
        return "<BatchHistory>"


def _read_only(value: Any) -> Any:
    """An array that cannot be written through this reference (a strategy's copy).

    An array that views another's memory is copied first: a strategy may set ``writeable`` back on its view
    and write through it, and then must reach nothing but its own copy.
    """
    if isinstance(value, np.ndarray):
        value = (value if value.base is None else value.copy()).view()
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
    """An exact action type: a Python int or a numpy integer (not bool, float or text)."""
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
        s = "" if suit is None or int(suit) < 0 else ">" + ("SCHD"[int(suit)] if int(suit) < 4 else str(int(suit)))
        return card_str(a) + s
    return repr(action)
