"""A faulty strategy stops the run with a message naming it, and the
faulty deal is written as a scenario that replays to the faulty decision."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import DRAW
from analyzer.core.faults import SimulationError
from analyzer.core.rules import make_rules
from analyzer.engine.replay import fault_state, load_scenario, replay
from analyzer.execution.executor import simulate_deals
from strategies import get_strategy


class PlaysWholeHand:
    """Deterministic and faulty: once down to three cards it plays its highest card, legal or not."""

    name = "plays-whole-hand"

    def choose(self, view, rng):
        if len(view.hand) <= 3:
            return max(view.hand), None
        cards = [a for a in view.legal if a < DRAW]
        return (min(cards) if cards else view.legal[0]), None


class Raises:
    name = "raiser"

    def choose(self, view, rng):
        raise KeyError("boom")


class WrongShape:
    name = "wrong-shape"

    def choose(self, view, rng):  # pragma: no cover - the batch path is used
        raise AssertionError

    def choose_batch(self, view, rng):
        n = len(view.seat)
        return np.zeros(n + 1, np.int16), np.zeros(n + 1, np.int8)


class SuitWithoutWild:
    name = "suit-without-wild"

    def choose(self, view, rng):
        cards = [a for a in view.legal if a < DRAW and not view.is_wild(a)]
        if cards:
            return cards[0], 2
        return view.legal[0], None


class ReturnsText:
    """Answers with something that is not an action at all (a text) on its third decision."""

    name = "returns-text"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view, rng):
        self.calls += 1
        return ("AS", None) if self.calls == 3 else (view.legal[0], None)


class ReturnsHuge:
    name = "returns-huge"

    def choose(self, view, rng):
        return 10**30, None


def test_illegal_move_names_strategy_variant_deal_and_move_and_writes_replayable_scenario(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 3)
    strats = [PlaysWholeHand(), get_strategy("greedy"), get_strategy("greedy")]
    with pytest.raises(SimulationError) as err:
        simulate_deals(rules, strats, 200, seed=4)
    msg = str(err.value)
    assert "plays-whole-hand" in msg and "czech" in msg and "deal " in msg and "is not legal" in msg
    assert "\n" not in msg
    files = list(tmp_path.glob("fault-czech-deal*.toml"))
    assert len(files) == 1 and str(files[0]) in msg and "replays to the faulty decision" in msg
    # the scenario plays every token, and stops exactly where the faulty strategy must act
    sc = load_scenario(files[0])
    _assert_stops_at_the_fault(sc, "plays-whole-hand")


def _assert_stops_at_the_fault(sc, name: str) -> None:
    """The replay ends at the faulty decision: the faulty strategy is to act and its move there is illegal."""
    deal, out = replay(sc)
    assert out is None and not deal.done and sc.fault
    assert f"({name})" in sc.names[deal.current] and sc.names[deal.current].startswith("position ")
    state = fault_state(sc, deal)
    assert state[0].startswith(f"stopped at the faulty decision ({deal.phase}), move {len(sc.moves)}: ")
    assert any(line.startswith("legal: ") for line in state) and state[-1] == f"fault: {sc.fault}"
    if name == "plays-whole-hand":  # deterministic: asked again there, it makes the same illegal move
        action, _ = PlaysWholeHand().choose(deal.view(), np.random.default_rng(0))
        assert not deal.can(action)


@pytest.mark.parametrize("strategy,needle", [
    (Raises(), "raised KeyError"),
    (WrongShape(), "must return two integer arrays"),
    (SuitWithoutWild(), "names a suit without playing a wild"),
    (ReturnsText(), r"choose returned \('AS', None\), not an action"),
    (ReturnsHuge(), r"choose returned \(1000000000000000000000000000000, None\), not an action"),
])
def test_faulty_strategy_kinds_are_named(tmp_path, monkeypatch, strategy, needle):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("prague", 3)
    with pytest.raises(SimulationError, match=needle) as err:
        simulate_deals(rules, [strategy, get_strategy("random"), get_strategy("random")], 50, seed=1)
    assert strategy.name in str(err.value) and "prague" in str(err.value)
    assert list(tmp_path.glob("fault-prague-deal*.toml"))


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 4, {"sevens": True}), ("prague", 3, {}), ("svinya", 2, {}),
])
def test_fault_among_random_players_replays_to_the_faulty_decision(tmp_path, monkeypatch, variant, players,
                                                                    overrides):
    """Random co-players: the kernel replays its own seeded run and records the faulty deal's moves."""
    from analyzer.execution.executor import simulate_matches

    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules(variant, players, overrides)
    strats = [PlaysWholeHand()] + [get_strategy("random")] * (players - 1)
    with pytest.raises(SimulationError) as err:
        simulate_deals(rules, strats, 300, seed=2)
    assert "replays to the faulty decision" in str(err.value)
    (path,) = tmp_path.glob("fault-*.toml")
    _assert_stops_at_the_fault(load_scenario(path), "plays-whole-hand")
    if rules.target is not None:  # and in a match: the scenario is the faulty deal of the match
        path.unlink()
        with pytest.raises(SimulationError, match="replays to the faulty decision"):
            simulate_matches(rules, strats, 20, seed=3)
        (path,) = tmp_path.glob("fault-*match*.toml")
        _assert_stops_at_the_fault(load_scenario(path), "plays-whole-hand")


def test_engine_reproduction_records_a_prague_jack_lead_in_the_starter(tmp_path):
    """PR2: a Jack lead's named suit goes into the starter token, and the moves replay."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.engine.faults import write_fault_scenario

    rules = make_rules("prague", 3)
    decks = shuffled_decks(36, 2000, np.random.default_rng(0))
    lead = rules.players * rules.hand_size - 1  # the dealer's sixth card
    deck = next(d for d in decks.tolist() if d[lead] // 4 + 2 == rules.wild_rank)
    strats = [get_strategy("greedy")] * 3
    path, met = write_fault_scenario(rules, strats, deck, tmp_path, "jack-lead")
    assert not met
    sc = load_scenario(path)
    assert sc.starter == deck[lead] and sc.starter_suit is not None
    deal, out = replay(sc)  # greedy never faults: every move is listed and the deal plays to its end
    assert deal.done and len(sc.moves) > 0
