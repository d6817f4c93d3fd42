"""A plugin that draws from the global ``random`` or ``np.random`` makes two
identical commands disagree; ``--check`` (check=True) now says so, naming the strategy."""

from __future__ import annotations

import random

import numpy as np
import pytest

from analyzer.core.cards import DRAW
from analyzer.core.rules import make_rules
from analyzer.sim.simulator import SimulationError, simulate_deals, simulate_matches
from strategies import get_strategy


class GlobalRandom:
    """Picks a random legal move from the *global* random module instead of the rng it is handed."""

    name = "global-random"

    def choose(self, view, rng):
        return random.choice(view.legal), None


class NumpyGlobal:
    name = "np-global"

    def choose(self, view, rng):
        return view.legal[np.random.randint(len(view.legal))], None


@pytest.mark.parametrize("strategy", [GlobalRandom(), NumpyGlobal()], ids=["random", "np.random"])
def test_check_names_a_non_deterministic_strategy(strategy):
    rules = make_rules("czech", 3)
    strats = [strategy, get_strategy("greedy"), get_strategy("random")]
    simulate_deals(rules, strats, 200, 3)  # without --check it runs (and two runs disagree)
    with pytest.raises(SimulationError, match=rf"strategy '{strategy.name}' is not deterministic: the same seed "
                                              r"played czech deal \d+ differently from move \d+"):
        simulate_deals(rules, strats, 200, 3, check=True)


def test_check_passes_strategies_that_use_their_rng():
    rules = make_rules("prague", 3)
    strats = [get_strategy("random"), get_strategy("weighted"), get_strategy("greedy")]
    simulate_deals(rules, strats, 200, 3, check=True)
    simulate_matches(make_rules("czech", 3, {"target": 100}), strats, 10, 3, check=True)


def test_check_finds_it_in_matches_too():
    rules = make_rules("czech", 3, {"target": 100})
    with pytest.raises(SimulationError, match=r"'global-random' is not deterministic.*czech match"):
        simulate_matches(rules, [GlobalRandom()] * 3, 10, 3, check=True)
    assert DRAW == 52
