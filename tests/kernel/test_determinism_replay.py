"""--check on the kernel names a Python strategy that is not deterministic (analyzer.kernel.replay).

The check plays a chunk's first deals (or matches) twice from its seed, logging the Python strategies'
answers; the first answer that differs, in the run's order, names the strategy, the deal and how many of
that deal's Python decisions came before it.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from analyzer.core.faults import FaultContext, SimulationError
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.kernel.pause import Answered
from analyzer.kernel.replay import check_determinism, first_difference
from analyzer.kernel.serve import simulate_chunk


def _batch(jobs: list[int], acts: list[int], strategy: int = 0) -> Answered:
    return Answered(np.array(jobs, np.int64), strategy, np.array(acts, np.int64), np.full(len(jobs), -1, np.int64))


def test_the_first_differing_answer_in_the_runs_order_is_named() -> None:
    """Deal 3's second Python decision differs first; deal 1's later difference is not the one named."""
    a = [_batch([1, 3], [5, 6]), _batch([3, 1], [7, 8]), _batch([1], [9])]
    b = [_batch([1, 3], [5, 6]), _batch([3, 1], [0, 8]), _batch([1], [2])]
    found = first_difference(a, b)
    assert found is not None
    here, mine, there, row, asked = found
    assert here is mine and there is not None
    assert (int(here.jobs[row]), asked, int(here.act[row]), int(there.act[row])) == (3, 1, 7, 0)
    assert first_difference(a, a) is None


def test_a_run_that_asks_another_strategy_or_stops_early_parts_there() -> None:
    a = [_batch([0, 2], [5, 6]), _batch([2], [7], strategy=1)]
    other = [_batch([0, 2], [5, 6]), _batch([2], [7], strategy=0)]
    here, mine, there, row, asked = first_difference(a, other)  # type: ignore[misc]
    assert (here.strategy, int(here.jobs[row]), asked) == (1, 2, 1) and there is not None and there.strategy == 0
    here, mine, there, row, asked = first_difference(a[:1], a)  # type: ignore[misc]
    assert mine is None and there is here and (here.strategy, int(here.jobs[row]), asked) == (1, 2, 1)
    here, mine, there, row, asked = first_difference(a, a[:1])  # type: ignore[misc]
    assert there is None and mine is here


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name


@pytest.mark.parametrize("second, shown", [
    ([_batch([0, 2], [5, 6]), _batch([0], [9], strategy=0)], ", then a question to another strategy or about other deals"),
    ([_batch([0, 2], [5, 6])], "then \\(no decision\\)"),
])
def test_the_message_shows_two_answers_only_where_both_runs_asked_the_same_question(second, shown) -> None:
    """Runs that asked another strategy (or about other deals) show no answer of the other question as if it
    were the second answer to this one; a run that ended shows "(no decision)"."""
    first = [_batch([0, 2], [5, 6]), _batch([2], [7], strategy=1)]
    logs = iter([first, second])
    with pytest.raises(SimulationError, match=shown) as caught:
        check_determinism(lambda m, log: log.extend(next(logs)), 10, make_rules("czech", 2),
                          [_Named("zero"), _Named("one")], FaultContext(first=100), matches=False)
    assert "strategy 'one'" in str(caught.value) and "deal 102" in str(caught.value)


class GlobalRandom:
    """A random legal move from the *global* random module instead of the generator it is handed."""

    name = "global-random"

    def choose(self, view, rng):
        return random.choice(view.legal), None


class Counting:
    """Keeps state between calls: it plays the legal move its count of decisions so far points at, so a second
    run from the same seed, which starts at another count, differs."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view, rng):
        self.calls += 1
        return view.legal[self.calls % len(view.legal)], None


@pytest.mark.parametrize("unit", ["deal", "match"])
def test_check_names_a_strategy_that_draws_from_the_global_random(unit: str) -> None:
    rules = make_rules("czech", 3, {"target": 100} if unit == "match" else {})
    strats = [get_strategy("greedy"), GlobalRandom(), get_strategy("random")]
    where = FaultContext(cell=2, chunk=7, first=700)
    simulate_chunk(rules, strats, 60, np.random.SeedSequence(3), matches=unit == "match", where=where)
    with pytest.raises(SimulationError, match=rf"^strategy 'global-random' is not deterministic: the same seed played "
                                              rf"czech {unit} 7\d\d \(cell 2, chunk 7\) differently at its Python "
                                              r"decision \d+ \(\w+ then \w+\); a strategy must draw from the rng it is "
                                              r"handed"):
        simulate_chunk(rules, strats, 60, np.random.SeedSequence(3), matches=unit == "match", check=True,
                       where=where)


def test_check_names_a_strategy_that_keeps_state_between_runs() -> None:
    rules = make_rules("prague", 2)
    strats = [Counting(), get_strategy("greedy")]
    with pytest.raises(SimulationError, match=r"^strategy 'counting' is not deterministic"):
        simulate_chunk(rules, strats, 100, np.random.SeedSequence(8), matches=False, check=True)


def test_check_passes_python_strategies_that_use_their_generator() -> None:
    class RandomLegal:
        name = "random-legal"

        def choose(self, view, rng):
            return view.legal[int(rng.integers(len(view.legal)))], None

    for rules, matches in ((make_rules("prague", 3), False), (make_rules("czech", 3, {"target": 100}), True)):
        strats = [RandomLegal(), get_strategy("weighted"), RandomLegal()]
        plain = simulate_chunk(rules, strats, 40, np.random.SeedSequence(5), matches=matches)
        checked = simulate_chunk(rules, strats, 40, np.random.SeedSequence(5), matches=matches, check=True)
        assert np.array_equal(plain.win_share if matches else plain.winner,  # type: ignore[union-attr]
                              checked.win_share if matches else checked.winner)  # type: ignore[union-attr]
