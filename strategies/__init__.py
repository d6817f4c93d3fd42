"""Strategies: the contract (base), the registry and the built-in strategies.

``get_strategy("greedy")`` builds one from a spec; ``available()`` lists the
names.  See strategies.registry for the spec syntax (built-in names,
``module:Name``, ``path/file.py:Name``, entry points, ``name?k=v`` parameters).
"""

from .base import BatchStrategy, BatchView, DecisionView, Strategy, StrategyError
from .registry import (
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
