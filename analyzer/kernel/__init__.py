"""The compiled engine: the rules of analyzer.engine.deal as numba kernels.

Modules, from the bottom up:

* ``_cache`` — where compiled kernels are kept (imported first, before numba);
* ``jit`` — the numba options of inner (phase) and outer (driver) functions;
* ``params`` — a RuleSet as one int64 array (rules as data: one kernel for all);
* ``state`` — the layout of one deal's state arrays; ``bitops`` — card masks;
* ``rng`` — counter-based random streams keyed by (seed, deal, purpose);
* ``turn`` — the phase functions (begin a turn, draw, play, settle, score);
* ``policies`` / ``lineup`` — compiled built-in strategies and their codes;
* ``deal`` — dealing and the loop of one deal to its end;
* ``driver`` (deals), ``matches``, ``positions`` (rollouts from mid-deal states);
* ``npdecks`` — numpy's deck shuffles, compiled; ``serve`` — the executor's entry (one chunk of a cell).

The benchmark (``durak bench``) is analyzer.execution.benchmark.

Results are by position (column q = seat q + 1), exactly as
analyzer.core.outcomes.DealResults / MatchResults.
"""

from analyzer.kernel import _cache  # noqa: F401  (must run before numba is imported)
