"""The built-in strategies (each module registers its own on import).

The contract they follow (views, protocols, the action layout) and the
registry live in the core, :mod:`analyzer.core.contract` and
:mod:`analyzer.core.registry`; this package depends on them, never the reverse.

``get_strategy("greedy")`` builds one from a spec; ``available()`` lists the
names.  See analyzer.core.registry for the spec syntax (built-in names,
``module:Name``, ``path/file.py:Name``, entry points, ``name?k=v`` parameters).
"""

from analyzer.core.contract import BatchStrategy, BatchView, DecisionView, Strategy, StrategyError
from analyzer.core.registry import (
    ENTRY_POINT_GROUP,
    FunctionStrategy,
    StrategyLoadError,
    StrategySpecError,
    UnknownStrategy,
    available,
    get_strategy,
    parse_spec,
    register,
    validate_strategy,
)
from strategies import aggressive, expert, greedy, ismcts, pimc, random_legal, suit_keeper, tracker, weighted, wilds  # noqa: E402,F401  (registers them)

__all__ = [
    "BatchStrategy",
    "BatchView",
    "DecisionView",
    "ENTRY_POINT_GROUP",
    "FunctionStrategy",
    "Strategy",
    "StrategyError",
    "StrategyLoadError",
    "StrategySpecError",
    "UnknownStrategy",
    "available",
    "get_strategy",
    "parse_spec",
    "register",
    "validate_strategy",
]
