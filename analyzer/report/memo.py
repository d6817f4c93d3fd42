"""The tables a report asks for more than once, computed once while it is built.

The sections, the summary and :mod:`analyzer.stats.tables` itself ask for some
tables of the same results again (the keeper-against-dumper table: the wild
section, the Jack headline, and twice inside the wild rule's table; the pooled
first-mover table: its section and its headline; the per-position sums under
five position tables, pooled or not).  Inside :func:`tables_once`
each of :data:`SHARED` answers a second call with the same results object and
arguments from the first (a copy: a caller may change what it gets).  Outside
it, and for other results, they compute as always.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

from analyzer.stats import tables
from analyzer.stats.tables import Results

#: the table functions of analyzer.stats.tables that a report computes more than once
SHARED = ("keeper_vs_dumper", "jack_effects", "jack_rule_effect", "first_player_advantage", "seat_fairness",
          "worst_positions", "wild_summary", "game_length", "win_loss_by_position", "_positions", "_pooled_positions")


@contextmanager
def tables_once(res: Results) -> Iterator[None]:
    """While inside, each table of :data:`SHARED` for ``res`` is computed once per arguments."""
    saved = {name: getattr(tables, name) for name in SHARED}
    kept: dict[tuple[Any, ...], Any] = {}

    def once(name: str, compute: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(compute)
        def call(of: Results, *args: Any, **kwargs: Any) -> Any:
            key = (name, args, tuple(sorted(kwargs.items())))
            try:
                hash(key)
            except TypeError:
                return compute(of, *args, **kwargs)
            if of is not res:
                return compute(of, *args, **kwargs)
            if key not in kept:
                kept[key] = compute(of, *args, **kwargs)
            got = kept[key]
            return got.copy() if hasattr(got, "copy") else got
        return call

    for name, compute in saved.items():
        setattr(tables, name, once(name, compute))
    try:
        yield
    finally:
        for name, compute in saved.items():
            setattr(tables, name, compute)
