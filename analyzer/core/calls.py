"""The strategy-calling boundary of every engine: views out, answers in, every answer checked.

A strategy sees read-only copies (:class:`analyzer.core.contract.BatchView`,
or one :class:`~analyzer.core.contract.DecisionView` per row through the
simple-path adapter) and a private copy of the rules; the legality check reads
the engine's own arrays, never the view, so nothing a strategy does to what
it is handed can switch the check off.  Only exact action
types pass: Python or numpy integers, and ``None`` for no suit on the simple
path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from analyzer.core.bits import BIT, CHUNK_TABLES, RANK_OF, cards_tuple
from analyzer.core.cards import DRAW, N_CARDS, TAKE, card_str
from analyzer.core.contract import BatchView, DecisionView, describe_action, is_action_int
from analyzer.core.faults import SimulationError, StrategyFault
from analyzer.core.public import row_histories
from analyzer.core.rules import RuleSet
from analyzer.core.timelimit import DecisionTimeout, bounded, decision_limit, describe_limit


class StrategyCalls:
    """Calling one strategy on a batch of decisions and checking its answers, for an engine whose rows are
    decisions: ``cur`` and ``turns`` are each row's seat and turn, ``_unit_at`` names its deal or match."""

    r: RuleSet
    n: int
    cur: NDArray[Any]
    turns: NDArray[Any]
    rng: np.random.Generator

    def _unit_at(self, row: int) -> str:
        raise NotImplementedError

    def _call(self, strat, fast: bool, view, rows) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The strategy's answers as int64 arrays (range checked by :meth:`_check_answers`); a decision that takes
        longer than the time limit (analyzer.core.timelimit) is a fault of the strategy."""
        limit = decision_limit()
        try:
            if fast:
                with bounded(decisions=len(rows), limit=limit):
                    a, s = strat.choose_batch(view, self.rng)
            else:
                a, s = choose_rows(strat, view, self.rng, limit)
        except SimulationError:
            raise
        except DecisionTimeout as late:
            row = rows[min(late.answered, len(rows) - 1)]  # the decision that took too long
            raise StrategyFault(self._where(_name(strat), row) + ": " + describe_limit(limit), int(row)) from None
        except BadAnswer as bad:
            raise StrategyFault(self._where(_name(strat), rows[bad.i]) + f": choose returned {bad.value!r}, not an action "
                                "(a card id, DRAW or TAKE as an int, with a suit int or None)",
                                int(rows[bad.i])) from None
        except Exception as exc:
            raise StrategyFault(self._where(_name(strat), rows[0]) + f": the strategy raised {type(exc).__name__}: {exc}",
                                int(rows[0])) from exc
        a, s = np.asarray(a), np.asarray(s)
        if a.shape != (len(rows),) or s.shape != (len(rows),) or a.dtype.kind not in "iu" or s.dtype.kind not in "iu":
            raise StrategyFault(self._where(_name(strat), rows[0]) + f": choose_batch must return two integer arrays of shape "
                                f"({len(rows)},), got {a.dtype}{a.shape} and {s.dtype}{s.shape}", int(rows[0]))
        # uint64 beyond int64 wraps to negative: still no action, caught by the check
        return a.astype(np.int64), s.astype(np.int64)

    def _where(self, name: str, row: int) -> str:
        """Who failed where: strategy, variant, deal (with cell and chunk), turn and position."""
        position = (int(self.cur[row]) - 1) % self.n  # position 0 acts first (G2)
        return (f"strategy {name!r} ({self.r.variant}, {self._unit_at(row)}, turn {int(self.turns[row])}, "
                f"position {position})")

    def _check_answers(self, strat, a, s, rows, legal, can_draw, can_take) -> None:
        """Every returned action must be legal, and only a wild names a suit (STYLE.md 3)."""
        card = (a >= 0) & (a < N_CARDS)
        ac = np.clip(a, 0, N_CARDS - 1)
        ok_card = card & ((legal & BIT[ac]) != 0)
        ok = ok_card | ((a == DRAW) & can_draw) | ((a == TAKE) & can_take)
        wild = card & (RANK_OF[ac] == self.r.wild_rank)
        ok &= (s == -1) | (wild & (s >= 0) & (s < 4))
        if not ok.all():
            i = int(np.nonzero(~ok)[0][0])
            shown = [card_str(c) for c in cards_tuple(int(legal[i]))]
            shown += ["draw"] * bool(can_draw[i]) + ["take"] * bool(can_take[i])
            what = "names a suit without playing a wild" if ok_card[i] else "is not legal"
            raise StrategyFault(self._where(_name(strat), rows[i])
                                + f": move {describe_action(int(a[i]), int(s[i]))} {what} "
                                + f"(legal: {' '.join(shown)})", int(rows[i]))


def _name(strat: Any) -> Any:
    """``getattr(strat, "name", repr(strat))``, the strategy in messages, with the repr made only when needed."""
    try:
        return strat.name
    except AttributeError:
        return repr(strat)


# ---------------------------------------------------------------- the simple-path adapter
def choose_rows(strat, view: BatchView, rng, limit: float | None = None
                ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The simple-path adapter: one ``choose`` call per row of a BatchView, each within the time limit
    (``limit`` seconds, default analyzer.core.timelimit's; DecisionTimeout once one takes longer).

    This loop is the simple path's whole overhead, so it is written for speed:
    arrays become Python lists once (numpy scalars are slow to convert one by
    one), card tuples come from four 13-bit table look-ups written out
    (``bits.cards_tuple``), views are built positionally (``tuple.__new__``, the
    cheapest way to make a NamedTuple) and answers are collected in lists.
    """
    new = tuple.__new__
    choose = strat.choose
    rules = view.rules
    t0, t1, t2, t3 = CHUNK_TABLES
    extra = ((), (DRAW,), (TAKE,), (DRAW, TAKE))
    kinds = (view.can_draw.astype(np.int8) + 2 * view.can_take.astype(np.int8)).tolist()
    tops = [None if t < 0 else t for t in view.top.tolist()]
    suits_in = [None if a < 0 else a for a in view.active_suit.tolist()]
    sizes = list(map(tuple, view.hand_sizes.tolist()))
    scores = [None] * len(kinds) if view.scores is None else list(map(tuple, view.scores.tolist()))
    hist = view.history
    histories = row_histories(hist) if hist is not None and getattr(strat, "uses_history", False) is True \
        else [None] * len(kinds)
    acts: list[Any] = []
    suits: list[Any] = []
    with bounded(acts, limit=limit):  # each answer appended starts the next decision's clock
        for seat, h, g, kind, top, a_s, p7, hs, talon, p, sc, hi in zip(
                view.seat.tolist(), view.hand.tolist(), view.legal.tolist(), kinds, tops, suits_in,
                view.pending_seven.tolist(), sizes, view.talon_size.tolist(), view.played.tolist(), scores, histories):
            a, s = choose(new(DecisionView, (
                rules, seat,
                t0[h & 0x1FFF] + t1[(h >> 13) & 0x1FFF] + t2[(h >> 26) & 0x1FFF] + t3[h >> 39],
                t0[g & 0x1FFF] + t1[(g >> 13) & 0x1FFF] + t2[(g >> 26) & 0x1FFF] + t3[g >> 39] + extra[kind],
                top, a_s, p7, hs, talon,
                frozenset(t0[p & 0x1FFF] + t1[(p >> 13) & 0x1FFF] + t2[(p >> 26) & 0x1FFF] + t3[p >> 39]),
                sc, hi)), rng)
            acts.append(a)
            suits.append(-1 if s is None else s)
    return answer_arrays(acts, suits)


def answer_arrays(acts: list, suits: list) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The simple path's answers (suits: -1 for None) as int64 arrays; BadAnswer names the first that is no action."""
    # exact types only: 42.7, "42" or True are no card (checked per type, not per answer)
    if all(map(is_action_int, set(map(type, acts)))) and all(map(is_action_int, set(map(type, suits)))):
        try:
            return np.array(acts, np.int64), np.array(suits, np.int64)
        except OverflowError:
            pass
    return _answers_one_by_one(acts, suits)


class BadAnswer(Exception):
    """A simple-path answer that is not an action at all (row ``i`` of the batch)."""

    def __init__(self, i: int, value: object) -> None:
        super().__init__(i, value)
        self.i, self.value = i, value


def _answers_one_by_one(acts: list, suits: list) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Find the first answer that is no action (wrong type or beyond int64) and raise BadAnswer for it."""
    out_a, out_s = np.empty(len(acts), np.int64), np.empty(len(acts), np.int64)
    for i, (a, s) in enumerate(zip(acts, suits)):
        try:
            if not (is_action_int(type(a)) and is_action_int(type(s))):
                raise TypeError
            out_a[i], out_s[i] = a, s
        except (TypeError, ValueError, OverflowError):
            raise BadAnswer(i, (a, None if s == -1 and is_action_int(type(s)) else s)) from None
    return out_a, out_s
