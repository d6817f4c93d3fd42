"""Monte Carlo strategy analyzer for czech, prague and svinya (see RULES.md).

The notebook API -- :func:`simulate`, :func:`run`, :func:`compare`, :func:`deals`
(see :mod:`analyzer.api`) -- is loaded on first use, so that importing a
light layer (``analyzer.engine``, ``analyzer.core.rules``) never pulls in
pandas or the simulator.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_API = ("simulate", "run", "results", "compare", "compare_rules", "deals")
__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    """``analyzer.simulate`` and friends: imported from analyzer.api when first asked for."""
    if name in _API:
        return getattr(importlib.import_module("analyzer.api"), name)
    raise AttributeError(f"module 'analyzer' has no attribute {name!r}")
