"""A stand-in simulator whose every seat's chance to win and to be the дурак is planted, for seat-fairness tests.

Importable as ``tests.planted_seats``; selected with ``run_balance(..., simulator="tests.planted_seats")``.  Its
deals are not card play: the winner and the дурак are drawn from seat probabilities that the rules and
``PLANTED_SEATS_MODE`` set:

* ``durak`` (default): every seat wins its fair share, the first mover too, but position :data:`DURAK_SEAT` is the
  дурак :data:`DURAK_EDGE` more often than its fair share, except with ``eight_stop`` on (the planted fair rule
  set).  A first-mover-only yardstick calls every rule set fair.
* ``even``: every rule set gives the first mover (position 0) :data:`EVEN_EDGE` more than its fair share of wins
  and nothing else differs: whichever is picked "fairest", its true first-mover advantage is +1 pp.  Here each rule
  set draws its own noise (its rules text joins the stream), so the rule sets differ by chance alone.

``weighted`` is :data:`STRENGTH` times as likely to win as ``random`` in the same seat.  One uniform per deck for the
winner and one for the дурак, the same at every table of every rule set (common random numbers).
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from analyzer.core.outcomes import DealResults
from analyzer.core.rules import RuleSet
from tests.planted_sim import PlantedStrategy, get_strategy  # noqa: F401  (the resolver the explorer calls)

DURAK_SEAT = 2
DURAK_EDGE = 0.06
EVEN_EDGE = 0.01
STRENGTH = 1.6


def probabilities(rules: RuleSet, strategies: list[PlantedStrategy]) -> tuple[np.ndarray, np.ndarray]:
    """(P(winner = k), P(дурак = k | no win)) by position, as the module doc plants them."""
    p = rules.players
    win = np.full(p, 1 / p)
    durak = np.full(p, 1 / p)
    if os.environ.get("PLANTED_SEATS_MODE", "durak") == "even":
        win[0] += EVEN_EDGE
        win[1:] -= EVEN_EDGE / (p - 1)
    elif not rules.eight_stop:
        durak[DURAK_SEAT] += DURAK_EDGE
        durak[np.arange(p) != DURAK_SEAT] -= DURAK_EDGE / (p - 1)
    w = win * np.array([STRENGTH if s.name == "weighted" else 1.0 for s in strategies])
    return w / w.sum(), durak


def simulate_deals(rules: RuleSet, strategies: list[PlantedStrategy], n: int, seed: np.random.SeedSequence, *,
                   decks: np.ndarray | None = None, check: bool = False, where: object = None) -> DealResults:
    p = rules.players
    even = os.environ.get("PLANTED_SEATS_MODE", "durak") == "even"
    own = [zlib.crc32(rules.describe().encode())] if even else []
    rng = np.random.default_rng([*seed.generate_state(2).tolist(), *own])
    u, v = rng.random(n), rng.random(n)
    win, durak = probabilities(rules, strategies)
    winner = np.minimum(np.searchsorted(np.cumsum(win), u), p - 1).astype(np.int8)
    # the дурак among the others: P(дурак = k | winner) proportional to durak[k], k != winner
    q = np.tile(durak, (n, 1))
    q[np.arange(n), winner] = 0
    q /= q.sum(axis=1, keepdims=True)
    loser = np.minimum((v[:, None] > np.cumsum(q, axis=1)).sum(axis=1), p - 1).astype(np.int8)
    points = np.zeros((n, p), np.int16)
    points[np.arange(n), loser] = 10
    return DealResults(points=points, went_out=winner.copy(), winner=winner, loser=loser,
                       loser_by_wild=np.zeros(n, bool), wild_held=np.zeros((n, p), bool), end=np.zeros(n, np.int8),
                       turns=np.full(n, 20, np.int32), last_card=np.zeros(n, np.int8),
                       turnovers=np.zeros(n, np.int16))
