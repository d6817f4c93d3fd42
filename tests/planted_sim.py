"""A stand-in simulator with a planted answer, for the balance explorer's tests.

Importable by loky and dask workers as ``tests.planted_sim``; selected with
``run_balance(..., simulator="tests.planted_sim")``.  Its deals are not card
play: the winner is drawn from seat probabilities that the rules set, so the
best rule set is known in advance:

* the first player's advantage is :data:`EDGE` points, except with ``sevens``
  and ``eight_stop`` both on (:data:`PLANTED`), where it is 0: the planted
  fairest rule set;
* ``weighted`` is :data:`STRENGTH` times as likely to win as ``random`` in
  the same seat, whatever the rules (so every rule set has the same skill gap
  and the fairest is the one to find).

Outcomes are a pure function of the stream and the deck index (one uniform
per deck, the same for every rule set and table: common random numbers), so
jobs, backend and resuming cannot change them.  ``PLANTED_SLEEP=s`` sleeps
``s`` seconds per call (to kill a run in the middle).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from analyzer.core.outcomes import DealResults
from analyzer.core.rules import RuleSet

EDGE = 0.08
STRENGTH = 1.6
PLANTED = {"sevens": True, "eight_stop": True}


@dataclass(frozen=True)
class PlantedStrategy:
    name: str


def get_strategy(spec: str) -> PlantedStrategy:
    if spec not in ("random", "weighted"):
        raise ValueError(f"unknown strategy {spec!r}; known: random, weighted")
    return PlantedStrategy(spec)


def seat_probabilities(rules: RuleSet, strategies: list[PlantedStrategy]) -> np.ndarray:
    """Each seat's chance to win: the planted seat edge times each seat's strength, normalised."""
    p = rules.players
    edge = 0.0 if all(getattr(rules, k) == v for k, v in PLANTED.items()) else EDGE
    base = np.full(p, (1 - (1 / p + edge)) / (p - 1))
    base[0] = 1 / p + edge
    w = base * np.array([STRENGTH if s.name == "weighted" else 1.0 for s in strategies])
    return w / w.sum()


def simulate_deals(rules: RuleSet, strategies: list[PlantedStrategy], n: int, seed: np.random.SeedSequence, *,
                   decks: np.ndarray | None = None, check: bool = False, where: object = None) -> DealResults:
    delay = float(os.environ.get("PLANTED_SLEEP", "0") or 0)
    if delay:
        time.sleep(delay)
    p = rules.players
    rng = np.random.default_rng(seed.generate_state(2))
    u = rng.random(n)  # one uniform per deck, the same at every table of every rule set
    winner = np.minimum(np.searchsorted(np.cumsum(seat_probabilities(rules, strategies)), u), p - 1).astype(np.int8)
    points = rng.integers(1, 60, size=(n, p)).astype(np.int16)
    points[np.arange(n), winner] = 0
    loser = np.argmax(points, axis=1).astype(np.int8)
    return DealResults(points=points, went_out=winner.copy(), winner=winner, loser=loser,
                       loser_by_wild=np.zeros(n, bool), wild_held=np.zeros((n, p), bool), end=np.zeros(n, np.int8),
                       turns=(20 + 5 * rules.sevens + rng.integers(0, 10, size=n)).astype(np.int32),
                       last_card=np.zeros(n, np.int8), turnovers=np.zeros(n, np.int16))
