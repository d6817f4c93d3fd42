"""--check on the kernel: a Python strategy that is not deterministic (same seed, different numbers) is named.

A strategy must draw its random numbers from the generator it is handed; one that uses the global ``random``
or ``np.random`` (or keeps state between calls) makes two identical commands disagree.  The check plays the
first deals (or matches) of a chunk twice from the same seed, logging every answer the Python strategies give
(analyzer.kernel.pause.Answered), and names the first answer that differs.  The kernel's own players are
deterministic given their streams, so until a Python strategy answers differently both runs pause at the same
decisions in the same order: the first differing answer, in the run's order, is the culprit's, and later
differences may be innocent strategies whose shared generator was drawn from differently because of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from analyzer.core.contract import describe_action
from analyzer.core.faults import FaultContext, SimulationError, StrategyFault
from analyzer.core.rules import RuleSet
from analyzer.kernel.pause import Answered

#: deals (or matches) replayed by the check: enough to meet most strategies' decisions, cheap beside a run
SAMPLE = 48


def check_determinism(play: Callable[[int, list[Answered]], object], n: int, rules: RuleSet,
                      strategies: Sequence[object], where: FaultContext, matches: bool) -> None:
    """Play the first ``min(n, SAMPLE)`` units twice (``play(m, log)`` plays the chunk's first ``m`` from its
    seed, appending its answers to ``log``); raise SimulationError naming the first answer that differs."""
    m = min(n, SAMPLE)
    first: list[Answered] = []
    second: list[Answered] = []
    try:
        play(m, first)
        play(m, second)
    except StrategyFault as fault:  # the full run passed: a fault now is non-determinism too
        raise SimulationError(f"{fault} (only when the check replayed the run: the strategy is not deterministic)"
                              ) from None
    found = first_difference(first, second)
    if found is None:
        return
    here, a, b, row, asked = found
    who = strategies[here.strategy]
    name = getattr(who, "name", repr(who))
    if a is not None and b is not None and (a.strategy != b.strategy or not np.array_equal(a.jobs, b.jobs)):
        then = f"{_shown(a, row)}, then a question to another strategy or about other deals"
    else:
        then = f"{_shown(a, row)} then {_shown(b, row)}"
    unit = "match" if matches else "deal"
    raise SimulationError(
        f"strategy {name!r} is not deterministic: the same seed played {rules.variant} {unit} "
        f"{where.first + int(here.jobs[row])}{where.describe()} differently at its Python decision {asked} "
        f"({then}); a strategy must draw from the rng it is handed, not the global random or np.random")


def _shown(batch: Answered | None, row: int) -> str:
    """An answer of a log, or "(no decision)" where the log had ended."""
    return "(no decision)" if batch is None else describe_action(int(batch.act[row]), int(batch.suit[row]))


def first_difference(first: Sequence[Answered], second: Sequence[Answered]
                     ) -> tuple[Answered, Answered | None, Answered | None, int, int] | None:
    """Where two answer logs of one seed part, or None if they agree: the batch that names the decision (of
    ``first``, of ``second`` if ``first`` ended before it), the two logs' batches there (None for a log that had
    ended; two batches asking other strategies or about other deals where the runs asked other questions), the
    row of the batch that differs, and how many decisions of its deal or match the Python strategies had
    answered before."""
    asked: dict[int, int] = {}
    for e in range(max(len(first), len(second))):
        a = first[e] if e < len(first) else None
        b = second[e] if e < len(second) else None
        if a is None or b is None or b.strategy != a.strategy or not np.array_equal(b.jobs, a.jobs):
            here = a if a is not None else b
            assert here is not None
            return here, a, b, 0, asked.get(int(here.jobs[0]), 0)
        differ = np.flatnonzero((a.act != b.act) | (a.suit != b.suit))
        if len(differ):
            row = int(differ[0])
            return a, a, b, row, asked.get(int(a.jobs[row]), 0)
        for j in a.jobs.tolist():
            asked[j] = asked.get(j, 0) + 1
    return None
