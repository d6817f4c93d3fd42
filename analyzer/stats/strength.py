"""Strength curves: one search family at several budgets, against the same opponents on the same decks.

A round-robin whose field holds one strategy at several ``budget`` values (``pimc?budget=10000``,
``pimc?budget=40000``, ...) measures how its strength grows with the time it is given, in the style of the
published time-controlled studies of search players.  Every pair of a round-robin plays the same decks, so the
step from one budget to the next is a *paired* difference: the two budgets' win rates against the same
opponent, deck by deck.  Past the last step whose gain's 95 % interval is above 0, more budget stopped paying at
the sample's resolution ("stops rising": after the last step whose paired gain is measurably above 0); that is a
statement about the sample, not a proof of a plateau.

Two kinds of curve come out of one field:

* a family against a fixed opponent it met at every step (the tuned preset, say);
* two families against each other at the same step (step ``k`` of one against step ``k`` of the other), when
  both have the same number of steps and every such pair played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from analyzer.core.registry import StrategySpecError, parse_spec
from analyzer.stats.intervals import paired_difference
from analyzer.stats.ratings import json_num
from analyzer.stats.tournament import Design


def family_of(spec: str) -> tuple[str, float] | None:
    """``(family, budget)`` of a spec with a ``budget`` argument (the family is the spec without it), else None."""
    try:
        target, kwargs = parse_spec(spec)
    except StrategySpecError:
        return None
    if "budget" not in kwargs or isinstance(kwargs["budget"], bool):
        return None
    try:
        budget = float(kwargs["budget"])
    except (TypeError, ValueError):
        return None
    rest = ",".join(f"{k}={v}" for k, v in sorted(kwargs.items()) if k != "budget")
    return (f"{target}?{rest}" if rest else target), budget


def families(names: Sequence[str]) -> dict[str, list[tuple[float, int]]]:
    """Families with at least two budgets: family -> [(budget, entrant index)] by budget."""
    out: dict[str, list[tuple[float, int]]] = {}
    for i, s in enumerate(names):
        f = family_of(s)
        if f is not None:
            out.setdefault(f[0], []).append((f[1], i))
    return {f: sorted(steps) for f, steps in out.items() if len(steps) >= 2 and len({b for b, _ in steps}) == len(steps)}


def _rate(x: np.ndarray) -> dict[str, float | None]:
    e = paired_difference(x, np.zeros_like(x))
    return {"rate": json_num(float(e.est)), "lo": json_num(float(e.lo)), "hi": json_num(float(e.hi))}


def _curve(s: np.ndarray, names: Sequence[str], family: str, steps: Sequence[tuple[float, int]],
           opponents: Sequence[int], against: str, defaults: Mapping[str, float]) -> dict[str, Any]:
    """One curve: each step's win rate against its opponent, and (one fixed opponent) the paired gain over the
    step before; ``last_gain_at``: the last budget whose gain's 95% interval is above 0 (None: no step gained
    measurably); ``stops_rising_at``: the step after it, from which no more gain was measured (None: the last
    step still gained, or the opponent changes with the step)."""
    target = family.split("?", 1)[0]
    default = defaults.get(target)
    fixed = len(set(opponents)) == 1  # a gain compares two steps against the same opponent on the same decks
    points: list[dict[str, Any]] = []
    prev: np.ndarray | None = None
    for (budget, i), o in zip(steps, opponents):
        x = s[:, i, o]
        point: dict[str, Any] = {"strategy": names[i], "budget": budget, "opponent": names[o],
                                 "multiple": json_num(budget / default) if default else None, **_rate(x),
                                 "margin": json_num(float(np.mean(x - s[:, o, i])))}
        if prev is not None and fixed:
            g = paired_difference(x, prev)
            point["gain"] = {"diff": json_num(float(g.est)), "lo": json_num(float(g.lo)), "hi": json_num(float(g.hi))}
        points.append(point)
        prev = x
    gains = [p for p in points[1:] if "gain" in p]
    rose = [i for i, p in enumerate(gains) if p["gain"]["lo"] is not None and p["gain"]["lo"] > 0]
    last_rise = gains[rose[-1]]["budget"] if rose else None
    after = rose[-1] + 1 if rose else 0  # the first step after the last measurable gain
    stops = gains[after]["budget"] if gains and after < len(gains) else None
    return {"family": family, "against": against, "points": points, "stops_rising_at": stops,
            "last_gain_at": last_rise, "n_decks": int(s.shape[0])}


def strength_curves(design: Design, scores: ArrayLike, *, defaults: Mapping[str, float] | None = None
                    ) -> list[dict[str, Any]]:
    """Every strength curve a round-robin's field holds (module doc); [] when it holds none.

    ``scores``: (D, k, k) per-deck head-to-head win shares (:func:`analyzer.stats.tournament.head_to_head`),
    NaN where a pair did not play.  ``defaults``: family target -> its default budget, for the ``multiple`` axis.
    Each point: the step's win rate against the opponent with a 95 % interval over decks, its margin (win rate
    minus the opponent's), and ``gain``: the paired difference of win rates from the step before.
    """
    s = np.asarray(scores, dtype=np.float64)
    names = list(design.strategies)
    played = {(i, j) for i, j in design.pairs} | {(j, i) for i, j in design.pairs}
    fams = families(names)
    members = {i for steps in fams.values() for _, i in steps}
    out: list[dict[str, Any]] = []
    for fam, steps in fams.items():
        for o in range(len(names)):
            met = [(b, i) for b, i in steps if (i, o) in played]  # the steps that played this opponent
            if o not in members and len(met) >= 2:
                out.append(_curve(s, names, fam, met, [o] * len(met), names[o], defaults or {}))
    ordered = list(fams.items())
    for a, (fa, sa) in enumerate(ordered):
        for fb, sb in ordered[a + 1:]:
            if len(sa) == len(sb) and all((i, j) in played for (_, i), (_, j) in zip(sa, sb)):
                out.append(_curve(s, names, fa, sa, [j for _, j in sb], f"{fb} at the same step", defaults or {}))
    return out
