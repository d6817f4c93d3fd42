"""What a Python strategy sees at a paused decision: the kernel writes it, Python hands it over as a BatchView.

At each decision where the kernel stops for a Python strategy
(analyzer.kernel.pause), it writes the fields of that decision into row ``k``
of :class:`Paused`'s arrays, ``k`` counting the pauses of the call.  The
fields are those a BatchView holds (analyzer.core.calls), in the
same dtypes: the hand (a Jack lead's starter included, PR2), the legal cards,
whether the player may draw or take a sevens penalty, the top card (-1 on an
empty pile and while the dealer names a Jack lead's suit), the active suit,
the sevens chain being answered, hand sizes by seat offset, the talon size and
the cards played.  :func:`batch_view` gives a strategy fresh read-only copies;
:class:`SimplePath` builds the simple path's
DecisionViews from them.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Iterator
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import CHUNK_TABLES
from analyzer.core.calls import answer_arrays
from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import BatchView, DecisionView, is_action_int
from analyzer.core.rules import RuleSet
from analyzer.core.timelimit import bounded
from analyzer.kernel import params as P
from analyzer.kernel.bitops import RANK_MASKS, bit, popcount, wrap
from analyzer.kernel.jit import inner
from analyzer.kernel.state import ACTIVE, CUR, DRAWN, DRAWN_CARD, HANDS, LEAD, PEND7, PHASE, PLAYED, SEVEN, TCOUNT, TOP, TURNS
from analyzer.kernel.turn import can_draw, legal_mask

#: Paused's arrays in the order the kernel takes them (a tuple)
FIELDS = ("seat", "hand", "legal", "can_draw", "can_take", "top", "active_suit", "pending_seven", "hand_sizes",
          "talon_size", "played", "turn", "job", "slot")


@dataclasses.dataclass
class Paused:
    """Row ``k``: the ``k``-th decision the kernel paused at in one call (``slot``: its slot, ``job``: its deal)."""

    seat: NDArray[np.int8]
    hand: NDArray[np.uint64]
    legal: NDArray[np.uint64]
    can_draw: NDArray[np.bool_]
    can_take: NDArray[np.bool_]
    top: NDArray[np.int8]
    active_suit: NDArray[np.int8]
    pending_seven: NDArray[np.int16]
    hand_sizes: NDArray[np.int16]  # (B, P) by seat offset
    talon_size: NDArray[np.int16]
    played: NDArray[np.uint64]
    turn: NDArray[np.int32]
    job: NDArray[np.int64]
    slot: NDArray[np.int64]
    #: matches only (written by pause.advance_matches): match totals by seat offset, the player deciding
    scores: NDArray[np.int32]
    player: NDArray[np.int64]

    @classmethod
    def allocate(cls, slots: int, players: int) -> Paused:
        z = np.zeros
        return cls(z(slots, np.int8), z(slots, np.uint64), z(slots, np.uint64), z(slots, np.bool_),
                   z(slots, np.bool_), z(slots, np.int8), z(slots, np.int8), z(slots, np.int16),
                   z((slots, players), np.int16), z(slots, np.int16), z(slots, np.uint64), z(slots, np.int32),
                   z(slots, np.int64), z(slots, np.int64), z((slots, players), np.int32), z(slots, np.int64))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in :data:`FIELDS` order (what the kernel fills)."""
        return tuple(getattr(self, f) for f in FIELDS)


@inner
def write_view(k: int, slot: int, job: int, st: np.ndarray, m: np.ndarray, p: np.ndarray, view: tuple) -> None:
    """Row ``k`` of the paused decisions: the decision in ``st``/``m`` as a BatchView shows it."""
    seat, hand, legal, can_draw_v, can_take, top, active, pending, sizes, talon, played, turn, jobs, slots = view
    n = p[P.PLAYERS]
    cur, phase = st[CUR], st[PHASE]
    h = m[HANDS + cur]
    t = st[TOP]
    draw, take = False, False
    if phase == LEAD:  # PR2: the dealer names the suit of his Jack lead, held in hand for the view
        g = bit(t)
        h |= g
        t = -1
    elif phase == DRAWN:  # G6: a drawn wild that fits, played at once; its suit is the choice
        g = bit(st[DRAWN_CARD])
    elif phase == SEVEN:  # CZ8: a 7 or TAKE
        g = h & RANK_MASKS[7]
        take = True
    else:
        g = legal_mask(h, t, st[ACTIVE], p)
        draw = can_draw(st) and (popcount(g) == 0 or p[P.VOLUNTARY] != 0)
    seat[k] = cur
    hand[k] = h
    legal[k] = g
    can_draw_v[k] = draw
    can_take[k] = take
    top[k] = t
    active[k] = st[ACTIVE]
    pending[k] = st[PEND7] if phase == SEVEN else 0
    s = cur
    for j in range(n):
        sizes[k, j] = popcount(m[HANDS + s])
        s = wrap(s + 1, n)
    talon[k] = st[TCOUNT]
    played[k] = m[PLAYED]
    turn[k] = st[TURNS]
    jobs[k] = job
    slots[k] = slot


def _take(a: NDArray[Any], rows: slice | NDArray[np.int64]) -> NDArray[Any]:
    """A fresh copy of ``a``'s rows (a strategy never holds the kernel's own buffers)."""
    return a[rows].copy() if isinstance(rows, slice) else a[rows]


def _lazy(a: NDArray[Any], rows: slice | NDArray[np.int64]) -> Callable[[], NDArray[Any]]:
    return lambda: _take(a, rows)


def batch_view(rules: RuleSet, v: Paused, rows: slice | NDArray[np.int64], matches: bool = False,
               history: Any = None) -> BatchView:
    """The BatchView of paused decisions ``rows`` (``slice(0, k)`` or indices): fresh read-only copies; hand
    sizes, talon, played cards and (in matches) scores are copied when first read; ``history`` the deals'
    public history (analyzer.kernel.history) for a strategy that reads it."""
    return BatchView(rules=rules, seat=_take(v.seat, rows), hand=_take(v.hand, rows), legal=_take(v.legal, rows),
                     can_draw=_take(v.can_draw, rows), can_take=_take(v.can_take, rows), top=_take(v.top, rows),
                     active_suit=_take(v.active_suit, rows), pending_seven=_take(v.pending_seven, rows),
                     hand_sizes=_lazy(v.hand_sizes, rows), talon_size=_lazy(v.talon_size, rows),
                     played=_lazy(v.played, rows), scores=_lazy(v.scores, rows) if matches else None,
                     history=history)


#: DecisionView's fields after ``played``, None in deals without a recorded history
_AFTER_PLAYED = ("scores", "history")
#: the bits of card ids in a mask (52 and 53 carry DRAW and TAKE in :class:`SimplePath`'s keys of the legal actions)
_CARDS = (1 << DRAW) - 1
#: decoded masks kept at most (a bound on memory; the tables start again when full)
_DECODED = 1 << 16


class _Cards(dict[int, tuple[int, ...]]):
    """Card mask -> its card ids, lowest first (``bits.cards_tuple``), kept once decoded."""

    __slots__ = ()

    def __missing__(self, m: int) -> tuple[int, ...]:
        if len(self) >= _DECODED:
            self.clear()
        t0, t1, t2, t3 = CHUNK_TABLES
        c = self[m] = t0[m & 0x1FFF] + t1[(m >> 13) & 0x1FFF] + t2[(m >> 26) & 0x1FFF] + t3[(m >> 39) & 0x1FFF]
        return c


class _Legal(dict[int, tuple[int, ...]]):
    """Key (legal card mask, bit 52 may draw, bit 53 may take) -> DecisionView.legal: the cards, then DRAW and/or
    TAKE."""

    __slots__ = ()

    def __missing__(self, key: int) -> tuple[int, ...]:
        if len(self) >= _DECODED:
            self.clear()
        c = self[key] = _HANDS[key & _CARDS] + (DRAW,) * (key >> DRAW & 1) + (TAKE,) * (key >> TAKE & 1)
        return c


class _Played(dict[int, frozenset[int]]):
    """Card mask -> the frozenset of its cards (DecisionView.played), kept once built (a few: a set of 40 cards
    takes 2 KiB, and a deal's sets seldom recur beyond the reads of one decision)."""

    __slots__ = ()

    def __missing__(self, m: int) -> frozenset[int]:
        if len(self) >= _DECODED >> 4:
            self.clear()
        c = self[m] = frozenset(_HANDS[m])
        return c


class _Sizes(dict[int, tuple[int, ...]]):
    """Hand sizes packed 6 bits a seat offset (offset 0 lowest, 10 players at most) -> DecisionView.hand_sizes;
    the ``players`` of a key are its length plus one bit above them (:func:`pack_sizes`)."""

    __slots__ = ()

    def __missing__(self, key: int) -> tuple[int, ...]:
        if len(self) >= _DECODED:
            self.clear()
        n = (key.bit_length() - 1) // 6
        c = self[key] = tuple(key >> (6 * j) & 63 for j in range(n))
        return c


def pack_sizes(sizes: NDArray[np.int16]) -> NDArray[np.int64]:
    """Rows of hand sizes (B, P), each below 64, as :class:`_Sizes`' keys."""
    n = sizes.shape[1]
    key = np.full(len(sizes), 1 << (6 * n), np.int64)
    for j in range(n):
        key |= sizes[:, j].astype(np.int64) << (6 * j)
    return key


class _Table:
    """A column of views' values from a column of keys: the values of the keys seen so far, sorted by key
    (``keys`` and the object array ``values`` beside it), looked up in C (``searchsorted`` and a take) instead of
    one dict look-up per decision (a third of a view's making); ``decode`` gives a new key's value, once.
    Bounded as the dict tables are (it starts again when full).

    The tables are shared by every thread that serves paused decisions, so the keys and their values are one
    tuple, replaced whole: a reader takes both from one version (two attributes, replaced one after the other,
    let a reader between them take the new keys' positions in the old values -- another decision's legal
    actions)."""

    def __init__(self, decode: Callable[[int], Any], dtype: type, room: int = _DECODED) -> None:
        self.decode, self.dtype, self.room = decode, dtype, room
        self.table: tuple[NDArray[Any], NDArray[np.object_]] = (np.zeros(0, dtype), np.zeros(0, object))

    @property
    def keys(self) -> NDArray[Any]:
        return self.table[0]

    def column(self, keys: NDArray[Any]) -> list[Any]:
        """The values of ``keys`` in order, as a list."""
        known, values = self.table
        at = np.searchsorted(known, keys)
        if len(known) == 0 or not np.array_equal(known[np.minimum(at, len(known) - 1)], keys):
            new = np.setdiff1d(keys, known)
            if len(known) + len(new) > self.room:  # start again: only this column's keys
                known, values, new = np.zeros(0, self.dtype), np.zeros(0, object), np.unique(keys)
            # fromiter: each value one object (an array built from tuples would spread them over a second axis)
            decoded = np.fromiter(map(self.decode, new.tolist()), object, len(new))
            where = np.searchsorted(known, new)
            known, values = np.insert(known, where, new), np.insert(values, where, decoded)
            self.table = (known, values)
            at = np.searchsorted(known, keys)
        return values[at].tolist()


_HANDS, _LEGAL, _PLAYED_SETS, _SIZES = _Cards(), _Legal(), _Played(), _Sizes()
#: the columns of DecisionView.legal and .hand_sizes (from :class:`_Legal` and :class:`_Sizes`' keys)
_LEGAL_COLUMN, _SIZES_COLUMN = _Table(_LEGAL.__getitem__, np.uint64), _Table(_SIZES.__getitem__, np.int64)
_item: Callable[..., Any] = tuple.__getitem__  # a field as stored (for hand and played: the batch's masks, the row)
_HAND_AT, _PLAYED_AT = DecisionView._fields.index("hand"), DecisionView._fields.index("played")


class Masks:
    """The hand and played card masks of a batch of views, fresh copies (the kernel writes its rows again on its
    next call): a :class:`PausedView` holds this object where its hand is and its row where its cards played are,
    so a view costs no Python int for either mask (two objects made and freed per decision)."""

    __slots__ = ("hand", "played")

    def __init__(self, hand: NDArray[np.uint64], played: NDArray[np.uint64]) -> None:
        self.hand, self.played = hand, played

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "played"):
            raise AttributeError("a batch's masks are read-only")
        object.__setattr__(self, name, value)


#: row numbers as Python ints, made once (rows from 257 on would be new ints per view)
_ROWS: list[int] = []


def _rows(k: int) -> list[int]:
    """A list of at least the ``k`` first row numbers."""
    if len(_ROWS) < k:
        _ROWS.extend(range(len(_ROWS), k))
    return _ROWS
#: -1 (no top card, no active suit) as None: ``_OR_NONE[x + 1]``, an array of Python objects
_OR_NONE = np.array([None, *range(DRAW)], dtype=object)
_NO_SUIT = {None: -1}


class PausedView(DecisionView):
    """A DecisionView of a paused decision whose hand and cards played are decoded when first read.

    The tuple holds those two fields as card masks; the fields (``view.hand``,
    ``view.played``), indexing, iteration, unpacking, comparison, ``repr``,
    ``_asdict``, ``_replace``, copies and pickles all give the decoded values,
    equal to the rules engine's DecisionView of that decision.  Read-only
    as any NamedTuple (no ``__dict__``).  Building it costs a third of a
    DecisionView's (a set of 20 played cards costs more than the rest of a view),
    and a strategy that reads neither field never pays for them.
    """

    __slots__ = ()

    @property
    def hand(self) -> tuple[int, ...]:  # a NamedTuple field, read-only as before
        return _HANDS[_item(self, _HAND_AT).hand.item(_item(self, _PLAYED_AT))]

    @property
    def played(self) -> frozenset[int]:
        return _PLAYED_SETS[_item(self, _HAND_AT).played.item(_item(self, _PLAYED_AT))]

    def plain(self) -> DecisionView:
        """The same view as a DecisionView (fields decoded)."""
        raw = list(_item(self, slice(None)))
        masks, row = raw[_HAND_AT], raw[_PLAYED_AT]
        raw[_HAND_AT] = _HANDS[masks.hand.item(row)]
        raw[_PLAYED_AT] = _PLAYED_SETS[masks.played.item(row)]
        return tuple.__new__(DecisionView, raw)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.plain())

    def __getitem__(self, i: Any) -> Any:
        return self.plain()[i]

    def __contains__(self, x: object) -> bool:
        return x in self.plain()

    def __eq__(self, other: object) -> bool:
        return self.plain() == other

    def __ne__(self, other: object) -> bool:
        return self.plain() != other

    def __lt__(self, other: Any) -> bool:
        return self.plain() < other

    def __le__(self, other: Any) -> bool:
        return self.plain() <= other

    def __gt__(self, other: Any) -> bool:
        return self.plain() > other

    def __ge__(self, other: Any) -> bool:
        return self.plain() >= other

    def __hash__(self) -> int:
        return hash(self.plain())

    def __add__(self, other: Any) -> Any:
        return self.plain() + other

    def __radd__(self, other: Any) -> Any:
        return other + tuple(self.plain())

    def __mul__(self, k: Any) -> Any:
        return self.plain() * k

    __rmul__ = __mul__

    def count(self, x: Any) -> int:
        return self.plain().count(x)

    def index(self, x: Any, *args: Any) -> int:
        return self.plain().index(x, *args)

    def __repr__(self) -> str:
        return repr(self.plain())

    def _asdict(self) -> dict[str, Any]:
        return self.plain()._asdict()

    def _replace(self, **fields: Any) -> DecisionView:  # type: ignore[override]  # a DecisionView, not a PausedView
        return self.plain()._replace(**fields)

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self.plain())

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple.__new__, (DecisionView, tuple(self.plain()))


class SimplePath:
    """The simple path on paused decisions: one ``choose`` per decision, with the views the simple path's
    adapter (analyzer.core.calls.choose_rows) builds, as :class:`PausedView` (hand and played decoded when read),
    and the answers checked the same way (calls.answer_arrays).

    Every step but ``choose`` itself runs in C: the fields become lists once,
    the legal actions and hand sizes come as columns from tables of the
    kernel's masks (:class:`_Table`), the views are made by ``map`` over the
    columns, the answers split by ``zip`` (:func:`_answer_arrays`).
    """

    def __init__(self, rules: RuleSet, paused: Paused, slots: int, matches: bool = False) -> None:
        self.rules = rules
        self.v = paused
        self.matches = matches
        if DecisionView._fields[_PLAYED_AT + 1:] != _AFTER_PLAYED or len(DecisionView._fields) != 12:
            raise RuntimeError("DecisionView's fields changed: update analyzer.kernel.views.SimplePath")

    def strategy(self, strat: Any) -> _Simple:
        """``strat`` as a fast-path strategy over paused rows (what the calls and checks of analyzer.core.calls take)."""
        return _Simple(self, strat)

    def answers(self, strat: Any, rows: slice | NDArray[np.int64], rng: np.random.Generator
                ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``strat.choose`` on each paused decision of ``rows``; the answers as arrays (suit -1 for None)."""
        # the views hold no reference cycles and go with their reference counts; the cyclic collector, set off by
        # their allocations, would walk the process's long-lived objects again and again (40% of the time here)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._answers(strat, rows, rng)
        finally:
            if collecting:
                gc.enable()

    def views(self, rows: slice | NDArray[np.int64]) -> Iterator[PausedView]:
        """The DecisionViews of paused decisions ``rows``, one by one."""
        v = self.v
        keys = v.legal[rows] | (v.can_draw[rows].astype(np.uint64) << np.uint64(DRAW)) \
            | (v.can_take[rows].astype(np.uint64) << np.uint64(TAKE))
        tops = _OR_NONE[v.top[rows] + 1].tolist()
        suits = _OR_NONE[v.active_suit[rows] + 1].tolist()
        k = len(tops)
        masks = Masks(_take(v.hand, rows), _take(v.played, rows))
        fields = zip(repeat(self.rules), v.seat[rows].tolist(), repeat(masks),
                     _LEGAL_COLUMN.column(keys), tops, suits, v.pending_seven[rows].tolist(),
                     _SIZES_COLUMN.column(pack_sizes(v.hand_sizes[rows])), v.talon_size[rows].tolist(),
                     iter(_rows(k)), map(tuple, v.scores[rows].tolist()) if self.matches else repeat(None),
                     repeat(None))
        return map(tuple.__new__, repeat(PausedView), fields)

    def _answers(self, strat: Any, rows: slice | NDArray[np.int64], rng: np.random.Generator
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        answers: list[Any] = []
        with bounded(answers):  # each decision within the time limit: every answer appended starts a clock afresh
            answers.extend(map(strat.choose, self.views(rows), repeat(rng)))
        return _answer_arrays(answers)


def _answer_arrays(answers: list[Any]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``choose``'s answers as arrays, as ``answer_arrays(*_split(answers))`` gives them: the common case (every
    answer of length two, every suit None, every action an int) in a few passes in C, any other by those two.

    The passes take each answer's items as :func:`_split` does (``len`` and indexing), not by unpacking, which
    builds an iterator per answer: a third of the work per decision of collecting the answers."""
    n = len(answers)
    try:
        if set(map(len, answers)) == {2}:
            suits = list(map(_second, answers))
            if suits.count(None) == n:
                acts = list(map(_first, answers))
                kinds = set(map(type, acts))
                if kinds == {int}:  # fromiter: a third cheaper than np.array on a list of ints
                    return np.fromiter(acts, np.int64, n), np.full(n, -1, np.int64)
                if all(map(is_action_int, kinds)):
                    return np.array(acts, np.int64), np.full(n, -1, np.int64)
    except Exception:  # noqa: BLE001 — beyond int64, no length, no index: _split and answer_arrays name it
        pass
    return answer_arrays(*_split(answers))


def _split(answers: list[Any]) -> tuple[list[Any], list[Any]]:
    """The actions and suits (None as -1) of ``choose``'s answers; an answer that is no pair raises as
    ``a, s = answer`` would."""
    try:
        if set(map(len, answers)) <= {2}:
            acts = list(map(_first, answers))
            s = list(map(_second, answers))
            return acts, list(map(_NO_SUIT.get, s, s))
    except TypeError:  # no len, no index or an unhashable suit: one by one
        pass
    acts, suits = [], []
    for a, s in answers:
        acts.append(a)
        suits.append(-1 if s is None else s)
    return acts, suits


_first, _second = itemgetter(0), itemgetter(1)


class _Simple:
    """A simple-path strategy as the calls of analyzer.core.calls take a fast one: ``choose_batch(rows, rng)``."""

    def __init__(self, path: SimplePath, strat: Any) -> None:
        self.path = path
        self.strat = strat
        self.name = getattr(strat, "name", repr(strat))

    def choose_batch(self, rows: slice | NDArray[np.int64], rng: np.random.Generator
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return self.path.answers(self.strat, rows, rng)
