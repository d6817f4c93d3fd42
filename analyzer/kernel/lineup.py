"""Which strategies have a compiled form, and their codes for the kernel.

The kernel lives in ``analyzer`` and may not import ``strategies`` (the
dependency runs the other way), so a built-in is recognised by the module and
name of its class — exactly, never a subclass, which could override a score.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from analyzer.kernel.policies import (
    AGGRESSIVE,
    GREEDY,
    N_WEIGHTS,
    RANDOM,
    SUIT_KEEPER,
    WEIGHT_NAMES,
    WEIGHTED,
    WILD_DUMPER,
    WILD_KEEPER,
)

#: class (module, qualname) -> compiled policy code
COMPILED = {
    ("strategies.random_legal", "RandomLegal"): RANDOM,
    ("strategies.greedy", "Greedy"): GREEDY,
    ("strategies.wilds", "WildKeeper"): WILD_KEEPER,
    ("strategies.wilds", "WildDumper"): WILD_DUMPER,
    ("strategies.aggressive", "Aggressive"): AGGRESSIVE,
    ("strategies.suit_keeper", "SuitKeeper"): SUIT_KEEPER,
    ("strategies.weighted", "Weighted"): WEIGHTED,
}


class NotCompiled(ValueError):
    """A strategy without a compiled form (a user's Python strategy); the message names it."""


def policy_code(strategy: object) -> int | None:
    """The compiled policy of ``strategy``, or None if it has none."""
    cls = type(strategy)
    return COMPILED.get((cls.__module__, cls.__qualname__))


def compile_lineup(strategies: Sequence[object], python: int | None = None
                   ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(kinds, weights) by position for the kernel; NotCompiled names the first Python-only strategy,
    unless ``python`` is given: the kind of such a seat (analyzer.kernel.deal.PYTHON, the kernel pauses)."""
    kinds = np.zeros(len(strategies), np.int64)
    weights = np.zeros((len(strategies), N_WEIGHTS), np.float64)
    for i, s in enumerate(strategies):
        code = policy_code(s)
        if code is None and python is not None:
            kinds[i] = python
            continue
        if code is None:
            raise NotCompiled(f"strategy {getattr(s, 'name', s)!r} has no compiled form")
        kinds[i] = code
        if code == WEIGHTED:
            weights[i] = [s.weights[k] for k in WEIGHT_NAMES]  # type: ignore[attr-defined]
    return kinds, weights
