"""A fake simulator with the real one's interface, for runner tests.

Importable by loky and dask workers as ``tests.fake_sim``; selected with
``run_experiment(..., simulator="tests.fake_sim")``.  Results are a pure
function of the seed (so jobs/backend/order invariance is testable), of the
right shapes and dtypes, and cheap.  Two environment variables steer it:
``FAKE_SIM_CRASH="cell,chunk"`` raises on that chunk, ``FAKE_SIM_SLEEP=s``
sleeps s seconds per chunk (to kill a run in the middle).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.rules import RuleSet

KNOWN = ("random", "greedy", "weighted", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper")


class UnknownStrategy(ValueError):
    pass


@dataclass(frozen=True)
class FakeStrategy:
    name: str


def get_strategy(spec: str) -> FakeStrategy:
    if spec not in KNOWN:
        raise UnknownStrategy(f"unknown strategy {spec!r}; known: {', '.join(KNOWN)}")
    return FakeStrategy(spec)


def _steer(seed: np.random.SeedSequence) -> None:
    crash = os.environ.get("FAKE_SIM_CRASH")
    if crash and tuple(seed.spawn_key) == tuple(int(x) for x in crash.split(",")):
        raise RuntimeError(f"fake crash at chunk {crash}")
    delay = float(os.environ.get("FAKE_SIM_SLEEP", "0") or 0)
    if delay:
        time.sleep(delay)


def _rng(rules: RuleSet, strategies: list[FakeStrategy], seed: np.random.SeedSequence) -> np.random.Generator:
    # Mix in the rules and lineup so different cells differ, as real ones would.
    salt = sum(ord(c) for c in rules.to_json() + ",".join(s.name for s in strategies))
    return np.random.default_rng([*seed.generate_state(4), salt])


def simulate_deals(rules: RuleSet, strategies: list[FakeStrategy], n: int,
                   seed: np.random.SeedSequence, *, check: bool = False, where: object = None) -> DealResults:
    _steer(seed)
    rng = _rng(rules, strategies, seed)
    p = rules.players
    points = rng.integers(0, 60, size=(n, p)).astype(np.int16)
    winner = rng.integers(0, p, size=n).astype(np.int8)
    points[np.arange(n), winner] = 0
    end = rng.choice(np.array([0, 1, 2], dtype=np.int8), size=n, p=[0.97, 0.02, 0.01])
    winner[end == 2] = -1
    loser = np.argmax(points, axis=1).astype(np.int8)
    loser[end == 2] = -1
    went_out = np.where(end == 0, winner, -1).astype(np.int8)
    return DealResults(
        points=points, went_out=went_out, winner=winner, loser=loser,
        loser_by_wild=rng.random(n) < 0.1, wild_held=rng.random((n, p)) < 0.2, end=end,
        turns=rng.integers(5, 120, size=n).astype(np.int32),
        last_card=rng.integers(0, 52, size=n).astype(np.int8),
        turnovers=rng.integers(0, 3, size=n).astype(np.int16),
    )


def simulate_matches(rules: RuleSet, strategies: list[FakeStrategy], n: int,
                     seed: np.random.SeedSequence, *, check: bool = False, where: object = None) -> MatchResults:
    _steer(seed)
    rng = _rng(rules, strategies, seed)
    p = rules.players
    win = rng.dirichlet(np.ones(p), size=n).astype(np.float32)
    loss = rng.dirichlet(np.ones(p), size=n).astype(np.float32)
    return MatchResults(
        totals=rng.integers(0, 600, size=(n, p)).astype(np.int32), win_share=win, loss_share=loss,
        loser_by_wild=rng.random(n) < 0.2, wild_held=rng.random((n, p)) < 0.3,
        deals=rng.integers(3, 40, size=n).astype(np.int32),
        capped_deals=(rng.random(n) < 0.01).astype(np.int32),
    )
