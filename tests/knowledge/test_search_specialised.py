"""pimc's batch search on the kernel compiled for its rule set and rollout line-up (analyzer.kernel.search.ROWS):
the same scores, worlds, rollout turns and rollouts as the generic kernel, row for row, and the switch to it
where it should happen (after enough decisions, or at once when numba's cache holds it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import analyzer.kernel.ismcts as kismcts
import analyzer.kernel.search as ksearch
import analyzer.knowledge.search as search
from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals
from analyzer.kernel.jit import Specialised


def _searched_rows(variant: str, players: int, decks: int, options: dict[str, Any] | None = None,
                   monkeypatch: pytest.MonkeyPatch | None = None) -> list[tuple[Any, ...]]:
    """The arguments of every batch search of pimc (budget 3,000) against weighted on a few decks."""
    rules = make_rules(variant, players, options or {})
    pimc = get_strategy("pimc?budget=3000")
    orders = shuffled_decks(rules.deck_size, decks, np.random.default_rng(5)).astype(np.int8)
    calls: list[tuple[Any, ...]] = []
    generic = ksearch.search_rows

    def kernel(p: np.ndarray, kinds: np.ndarray, rows: int, specialise: bool | None = None) -> Any:
        def run(*args: Any) -> Any:
            calls.append((p, *args))
            return generic(p, *args)
        return run

    assert monkeypatch is not None
    monkeypatch.setattr(search, "rows_kernel", kernel)
    simulate_deals(rules, [pimc] + [get_strategy("weighted")] * (players - 1), decks, np.random.SeedSequence(3),
                   decks=orders)
    monkeypatch.undo()
    assert calls, "pimc searched nothing"
    return calls


def test_the_kernel_compiled_for_the_rules_scores_every_row_as_the_generic_one(monkeypatch) -> None:
    """Every searched row: scores, worlds used, rollout turns and rollouts bit for bit, in a match (its totals
    reach the rollouts' scores; one rule set: a compile costs ~15 CPU-s of the suite)."""
    calls = _searched_rows("svinya", 2, 3, {"target": 60}, monkeypatch)
    p, kinds = calls[0][0], calls[0][1]
    fixed = ksearch.rows_kernel(p, kinds, 1, specialise=True)
    assert fixed is not ksearch.search_rows and not hasattr(fixed, "func")  # the compiled-for kernel, not a partial
    rows = 0
    for p_row, *args in calls:
        want = ksearch.search_rows(p_row, *args)
        got = fixed(*args)
        for w, g in zip(want, got):
            assert np.array_equal(w, g)
        rows += len(args[-12])  # me
    assert rows > 5


def test_a_process_switches_after_enough_decisions_or_at_once_when_cached(monkeypatch) -> None:
    """Fewer decisions than the threshold play on the generic kernel (no compile for a short run); past it, or
    when numba's cache holds the kernel, on the one compiled for the rules."""
    def make(*args: Any) -> Any:
        return ("compiled for", args[1] if len(args) > 1 else None)

    rows = Specialised(make, threshold=100)
    monkeypatch.setattr(ksearch, "ROWS", rows)
    p = np.arange(5, dtype=np.int64)
    kinds = np.array([6, 6], np.int64)  # weighted in both seats: its kind is folded in
    monkeypatch.setattr(rows, "in_cache", lambda p, lineup=None: False)
    assert ksearch.rows_kernel(p, kinds, 60).func is ksearch.search_rows  # 60 asked: generic
    assert ksearch.rows_kernel(p, kinds, 60) == ("compiled for", 6)  # 120 asked
    assert ksearch.rows_kernel(p, kinds, 1, specialise=False).func is ksearch.search_rows
    other = np.arange(1, 6, dtype=np.int64)
    monkeypatch.setattr(rows, "in_cache", lambda p, lineup=None: True)
    assert ksearch.rows_kernel(other, np.array([6, 1], np.int64), 1) == ("compiled for", None)  # mixed: rules alone


def test_ismcts_on_the_kernel_compiled_for_the_rules_visits_as_the_generic_one(monkeypatch) -> None:
    """ismcts' rows (its tree walk pauses every seat, so only the rules are folded in): the same root visits,
    iterations and rollout turns, row for row."""
    import analyzer.knowledge.ismcts as ismcts

    rules = make_rules("svinya", 2, {"target": 60})
    calls: list[tuple[Any, ...]] = []

    def kernel(kernels: Any, generic: Any, p: np.ndarray, rows: int, specialise: bool | None = None,
               lineup: int | None = None) -> Any:
        def run(*args: Any) -> Any:
            calls.append((p, *args))
            return generic(p, *args)
        return run

    monkeypatch.setattr(ismcts, "folded", kernel)
    orders = shuffled_decks(rules.deck_size, 2, np.random.default_rng(8)).astype(np.int8)
    simulate_deals(rules, [get_strategy("ismcts?iterations=200"), get_strategy("weighted")], 2,
                   np.random.SeedSequence(4), decks=orders)
    monkeypatch.undo()
    assert calls
    fixed = ksearch.folded(kismcts.ROWS, kismcts.ismcts_rows, calls[0][0], 1, True)
    assert not hasattr(fixed, "func")
    for p_row, *args in calls:
        for w, g in zip(kismcts.ismcts_rows(p_row, *args), fixed(*args)):
            assert np.array_equal(w, g)
