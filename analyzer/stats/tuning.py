"""What a tuning run found (:mod:`analyzer.execution.runs.tune` fills it; :mod:`analyzer.report.tune_view`
draws it and reads it back from the stored files)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class TuneResult:
    """What a tuning run found.

    Attributes:
        names: parameter names (``x0`` order).
        start, tuned: the starting point and the tuned point (rounded), by name.
        holdout: paired margin of tuned over start on the hold-out decks:
            ``margin, lo, hi, n_decks``.
        curve: one row per generation: ``generation, deals`` (training decks so
            far), ``gain, lo, hi`` (the distribution mean over the start, paired on
            the generation's decks), ``best_gain`` (the generation's best
            candidate, optimistic), ``sigma`` (CMA-ES step size), ``mean`` (the
            mean's parameters).
        evaluations: objective calls made (candidates x generations + checks).
    """

    names: list[str]
    start: dict[str, float]
    tuned: dict[str, float]
    holdout: dict[str, float]
    curve: pd.DataFrame = field(repr=False)
    evaluations: int = 0
