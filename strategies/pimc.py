"""``pimc``: determinized Monte Carlo search (perfect-information Monte Carlo, issue 13 item 4).

At a decision with more than one action it samples ``worlds`` hidden states
consistent with what the player knows (:mod:`analyzer.knowledge.sampler`:
own hand, hand sizes, every card seen, inferred voids, the talon's order when
the rules make it known), plays every legal action in every world — a wild
once per suit it can name — and finishes each deal with the ``rollout``
policy in every seat on the compiled kernel
(:func:`analyzer.kernel.positions.play_from_positions`).  Every action of a
world rolls out on the same random stream (common random numbers), so the
comparison between actions is paired.  The action with the best mean outcome
is played (ties: the first in legal order).

Objectives: ``loser`` (default: avoid being the дурак; the player's points
break ties between equally safe actions), ``win`` (go out first / win the
deal), ``points`` (fewest points in hand at the end).

Perfect memory needs the public history of the deal, which the table runner
(:func:`analyzer.knowledge.table.play_observed`) keeps; the plain ``choose``
contract does not carry it yet, so ``choose`` refuses with a one-line message
rather than play blind.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW, TAKE, rank_of
from analyzer.core.contract import Action, DecisionView, StrategyError
from analyzer.core.registry import get_strategy, register
from analyzer.engine.deal import Deal, IllegalMove
from analyzer.kernel.positions import Positions, encode_deal, play_from_positions
from analyzer.knowledge.observer import Knowledge
from analyzer.knowledge.sampler import sample_worlds
from analyzer.knowledge.table import world_deal

OBJECTIVES = ("loser", "win", "points")


@register("pimc")
class Pimc:
    """Determinized Monte Carlo search with rollouts on the compiled kernel (needs the table runner)."""

    name = "pimc"
    description = "determinized Monte Carlo search: samples worlds, rolls every action out (worlds, rollout, objective)"

    def __init__(self, *, worlds: int = 64, rollout: str = "weighted", objective: str = "loser", seed: int = 0) -> None:
        if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= 4096:
            raise ValueError(f"worlds must be a whole number from 1 to 4096, not {worlds!r}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
        self.worlds, self.objective, self.seed = worlds, objective, int(seed)
        self.rollout_spec = rollout
        self.rollout = get_strategy(rollout)
        self.decisions = 0
        self.rollouts = 0

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        raise StrategyError("pimc needs the deal's public history (perfect memory); play it through "
                            "analyzer.knowledge.table.play_observed or `durak duel`, not the batch simulator")

    # ----------------------------------------------------------------- search
    def candidates(self, view: DecisionView, table: Deal) -> list[Action]:
        """Every legal action, a wild once per suit (the suit it names changes what follows)."""
        out: list[Action] = []
        for a in view.legal:
            wild = a < DRAW and a != TAKE and rank_of(a) == view.rules.wild_rank
            names_suit = wild and (table.phase == "lead_suit" or len(view.hand) > 1)
            out.extend([(a, s) for s in range(4)] if names_suit else [(a, None)])
        return out

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> Action:
        options = self.candidates(view, table)
        if len(options) == 1:
            return options[0]
        self.decisions += 1
        worlds = sample_worlds(knowledge, self.worlds, rng)
        me = table.current
        n = table.rules.players
        score = np.zeros(len(options))
        stream = int(rng.integers(2**62))  # this decision's rollout streams, shared by every action (CRN)
        for i, (action, suit) in enumerate(options):
            rows, done_scores = [], []
            for w in worlds:
                d = world_deal(table, w)
                try:
                    d.apply(action, suit)
                except IllegalMove as exc:  # a world cannot make a legal action illegal: a bug, not a choice
                    raise AssertionError(f"pimc: {exc}") from exc
                if d.done:
                    done_scores.append(self._utility_deal(d, me))
                else:
                    rows.append(encode_deal(d))
            total = float(sum(done_scores))
            if rows:
                res = play_from_positions(table.rules, [self.rollout] * n, Positions.concat(rows), seed=stream)
                self.rollouts += len(rows)
                total += float(self._utility(res, (me - 1) % n).sum())
            score[i] = total / len(worlds)
        return options[int(np.argmax(score))]

    def _utility(self, res, pos: int) -> np.ndarray:  # noqa: ANN001 - DealResults by position
        if self.objective == "win":
            return (res.winner == pos).astype(float)
        pts = res.points[:, pos].astype(float)
        if self.objective == "points":
            return -pts
        return -(res.loser == pos).astype(float) - pts / 10_000.0

    def _utility_deal(self, d: Deal, seat: int) -> float:
        o = d.outcome
        assert o is not None
        if self.objective == "win":
            return float(o.winner == seat)
        if self.objective == "points":
            return -float(o.points[seat])
        return -float(o.loser == seat) - o.points[seat] / 10_000.0



