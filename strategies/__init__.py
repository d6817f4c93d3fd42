"""The built-in strategies (each module registers its own on import, when one of its names is first asked for).

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

#: Built-in name -> the module whose import registers it (its ``@register``).  The registry imports a module
#: when one of its names is first built, so ``get_strategy("greedy")`` does not import the search strategies
#: (expert, pimc, ismcts) and the compiled kernels they need; listing the built-ins imports them all.
BUILTINS: dict[str, str] = {
    "aggressive": "strategies.aggressive",
    "expert": "strategies.expert",
    "greedy": "strategies.greedy",
    "ismcts": "strategies.ismcts",
    "pimc": "strategies.pimc",
    "random": "strategies.random_legal",
    "suit-keeper": "strategies.suit_keeper",
    "tracker": "strategies.tracker",
    "weighted": "strategies.weighted",
    "wild-dumper": "strategies.wilds",
    "wild-keeper": "strategies.wilds",
}

__all__ = [
    "BUILTINS",
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
