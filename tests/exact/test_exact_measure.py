"""Strategies that read the public history or answer at random, measured against a solved research size
(analyzer.exact.measure): the walk asks where the strategy's play reaches and agrees with the exact measure,
the history knows the research deck, and draws bracket what they estimate."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from analyzer.core.contract import DecisionView
from analyzer.core.registry import get_strategy
from analyzer.exact import measure, solver
from analyzer.exact.position import CHANCE, Position
from analyzer.exact.research import research_cards, research_rules
from analyzer.exact.tree import Tree, build


@cache
def small() -> tuple[object, tuple[int, ...], Tree, solver.Solution]:
    rules = research_rules("czech", 2, {"turn_cap": 3})
    cards = research_cards(rules, 8)
    tree = build(rules, cards)
    return rules, cards, tree, solver.solve(tree, target=1e-3)


class _Reading:
    """A strategy that reads the history (so the walk measures it) and plays as ``inner``."""

    uses_history = True

    def __init__(self, inner: object, seen: list[DecisionView] | None = None) -> None:
        self.inner, self.seen = inner, seen
        self.name = f"reading {inner.name}"  # type: ignore[attr-defined]

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        if self.seen is not None:
            self.seen.append(view)
        return self.inner.choose(view, rng)  # type: ignore[attr-defined]


def test_the_walk_measures_a_deterministic_strategy_as_the_exact_measure_does() -> None:
    rules, cards, tree, sol = small()
    exact = solver.distance(tree, sol, get_strategy("greedy"))
    walked = measure.distance_sampled(tree, sol, rules, cards, _Reading(get_strategy("greedy")))
    assert walked.deterministic and walked.draws == 1
    assert walked.loss == pytest.approx(exact.loss, abs=1e-12)
    assert walked.exploitability == pytest.approx(exact.exploitability, abs=1e-12)
    assert 0 < walked.asked < tree.n_sets  # only where its own play reaches


def test_the_history_shown_knows_the_research_deck() -> None:
    rules, cards, tree, _sol = small()
    seen: list[DecisionView] = []
    rng = np.random.default_rng(0)
    measure.walk_play(tree, rules, cards, _Reading(get_strategy("greedy"), seen), 0, rng)
    deck = frozenset(cards)
    assert seen and all(v.history is not None for v in seen)
    for v in seen:
        h = v.history
        assert h.hidden <= deck and h.talon_may <= deck  # type: ignore[union-attr]
        assert all(m <= deck for slots in h.slots for m in slots)  # type: ignore[union-attr]
        assert all(frozenset(range(52)) - deck <= c for c in h.cannot_hold)  # type: ignore[union-attr]
    # without the restriction the history would hide cards that are not in the deck
    assert any(not (v.history.hidden <= deck) for v in [p.replayed(True).view(history=True) for p in _some(rules, cards)])


def _some(rules: object, cards: tuple[int, ...]) -> list[Position]:
    pos = Position(rules, cards)  # type: ignore[arg-type]
    while pos.current_player() == CHANCE:
        pos.apply(pos.chance_outcomes()[0][0])
    return [pos]


def test_draws_of_a_random_strategy_bracket_its_exact_distance() -> None:
    """random states its probabilities, so its distance is known exactly; played through choose, by draws,
    the loss's interval covers it and the exploitability lies between the lower and upper estimates."""
    rules, cards, tree, sol = small()
    exact = solver.distance(tree, sol, get_strategy("random"))
    m = measure.distance_sampled(tree, sol, rules, cards, _Reading(get_strategy("random")), draws=6, seed=3)
    assert not m.deterministic and m.draws == 6
    assert m.loss_interval[0] <= exact.loss <= m.loss_interval[1]
    assert m.exploitability_lower <= exact.exploitability <= m.exploitability
    assert m.exploitability_interval[0] <= exact.exploitability <= m.exploitability_interval[1]


def test_pimc_plays_a_research_deck_with_legal_moves() -> None:
    """The search samples worlds from the restricted history; the walk refuses an answer that is not among
    the set's legal actions, so a finished walk means legal answers, one at every set asked."""
    rules, cards, tree, _sol = small()
    play = measure.walk_play(tree, rules, cards, get_strategy("pimc"), 1, np.random.default_rng(1))
    per_set = np.add.reduceat(play.sigma, tree.set_base)
    assert play.asked > 0 and int((per_set == 1).sum()) == play.asked and set(np.unique(per_set)) <= {0.0, 1.0}
