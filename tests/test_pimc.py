"""``pimc`` (issue 13 item 4) through the table runner: legal, deterministic, honest about its contract.

Strength is measured by the benchmark in the closing note, not here (it needs
thousands of deals); these tests keep budgets tiny.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import deck, parse_card
from analyzer.core.contract import StrategyError
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.knowledge.table import play_observed, public_table
from strategies.pimc import Pimc
from tests.helpers_engine import make_deal


def run(variant: str, players: int, seed: int, spec: str = "pimc?worlds=3") -> list[tuple]:
    rules = make_rules(variant, players, {})
    gen = np.random.default_rng(seed)
    out = []
    for d in range(3):
        order = [int(c) for c in gen.permutation(np.array(deck(rules.deck_size)))]
        lineup = [get_strategy(spec)] + [get_strategy("greedy") for _ in range(players - 1)]
        o = play_observed(Deal.from_deck(rules, order, rng=np.random.default_rng(d)), lineup,
                          np.random.default_rng([seed, d]))
        out.append((o.points, o.winner, o.loser, o.end, o.turns))
    return out


@pytest.mark.parametrize("variant,players", [("czech", 2), ("prague", 3), ("svinya", 2)])
def test_pimc_plays_whole_deals_legally_and_deterministically(variant: str, players: int) -> None:
    first = run(variant, players, 5)
    assert first == run(variant, players, 5)  # the engine verifies every move it makes
    assert all(len(points) == players for points, *_ in first)


def test_pimc_refuses_to_play_blind_through_the_plain_contract() -> None:
    deal = make_deal("czech", ["7C 8C 9C 10C QC", "7S 8S 9S 10S QS"], talon="AS 7D 8D 9D", starter="8S")
    with pytest.raises(StrategyError, match="public history"):
        get_strategy("pimc").choose(deal.view(), np.random.default_rng(0))


def test_a_wild_is_searched_once_per_suit_it_can_name() -> None:
    deal = make_deal("czech", ["7C 8C 9C 10C QC", "JS 8D 9D 10D QD"], talon="AS 7D 8H 9H", starter="8S")
    table = public_table(deal, 1)
    options = Pimc().candidates(deal.view(), table)
    jack = parse_card("JS")
    assert sorted(s if s is not None else -1 for a, s in options if a == jack) == [0, 1, 2, 3]
    assert table.hands[0] == [] and table.talon == []  # the public table hides what the player may not see


def test_the_default_objective_avoids_the_loss_at_two_players_and_weighs_both_ends_at_more() -> None:
    assert [Pimc().objective_for(n) for n in (2, 3, 4)] == ["loser", "both", "both"]
    assert Pimc(objective="win").objective_for(4) == "win" and Pimc(objective="both").objective_for(2) == "both"


def test_bad_parameters_are_one_line_errors() -> None:
    from analyzer.core.registry import StrategySpecError

    for spec in ("pimc?worlds=0", "pimc?objective=speed", "pimc?rollout=nosuch"):
        with pytest.raises(StrategySpecError):
            get_strategy(spec)


def test_table_runner_gives_the_simulators_results_for_players_without_memory() -> None:
    """simulate_observed (engine + knowledge) = the batch simulator, deal by deal, by position (G2)."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed
    from analyzer.sim.simulator import simulate_deals

    for variant, players in (("czech", 3), ("prague", 3), ("svinya", 2)):
        rules = make_rules(variant, players, {})
        decks = shuffled_decks(rules.deck_size, 40, np.random.default_rng(players))
        lineup = [get_strategy(s) for s in ("greedy", "wild-keeper", "suit-keeper")[:players]]
        ours = simulate_observed(rules, lineup, decks, np.random.SeedSequence(1))
        theirs = simulate_deals(rules, lineup, 40, np.random.SeedSequence(1), decks=decks)
        for field in ("points", "winner", "loser", "end", "turns", "wild_held", "went_out", "last_card", "wilds_dealt"):
            assert np.array_equal(getattr(ours, field), getattr(theirs, field)), (variant, field)


def test_pimc_beats_random_on_duplicate_decks() -> None:
    """czech 2p, 150 decks in both seatings, a small budget: pimc wins well over half (it is about 63%)."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed

    rules = make_rules("czech", 2, {})
    decks = shuffled_decks(rules.deck_size, 150, np.random.default_rng(21))
    pimc, rand = get_strategy("pimc?budget=2000,worlds=32"), get_strategy("random")
    first = simulate_observed(rules, [pimc, rand], decks, np.random.SeedSequence(5))
    second = simulate_observed(rules, [rand, pimc], decks, np.random.SeedSequence(5))
    wins = int((first.winner == 0).sum() + (second.winner == 1).sum())
    assert wins > 0.55 * 300, wins


class Remembers:
    """A player with memory that plays as ``spec`` does (its knowledge unused): deterministic, on the table runner."""

    def __init__(self, spec: str) -> None:
        self.inner, self.name = get_strategy(spec), f"remembers {spec}"

    def choose(self, view, rng):
        raise AssertionError("the table runner must ask a knower through choose_known")

    def choose_known(self, view, knowledge, table, rng):
        assert all(not h for s, h in enumerate(table.hands) if s != view.seat)  # it sees only its own hand
        return self.inner.choose(view, rng)


@pytest.mark.parametrize("variant,players,target,by_player", [("czech", 3, 60, False), ("prague", 2, 80, False),
                                                               ("svinya", 2, 40, True)])
def test_table_runner_matches_equal_the_simulators_matches_on_the_same_decks(variant: str, players: int,
                                                                            target: int, by_player: bool) -> None:
    """G11/CZ2/SV2 rotation, totals, CZ7/PR7/SV7 outcome: a knowing line-up's matches = the batch simulator's."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed_matches
    from analyzer.sim.simulator import simulate_matches

    rules = make_rules(variant, players, {"target": target})
    n, k = 12, 40
    decks = shuffled_decks(rules.deck_size, n * k, np.random.default_rng(players)).reshape(n, k, rules.deck_size)
    specs = ("greedy", "wild-keeper", "suit-keeper")[:players]
    hands = list(range(players))[::-1] if by_player else None
    ours = simulate_observed_matches(rules, [Remembers(s) for s in specs], decks, np.random.SeedSequence(1), hands=hands)
    theirs = simulate_matches(rules, [get_strategy(s) for s in specs], n, np.random.SeedSequence(1), decks=decks,
                              hands=hands)
    assert ours.deals.sum() > 2 * n  # several deals per match: the rotation is exercised
    for field in ("totals", "win_share", "loss_share", "loser_by_wild", "wild_held", "deals", "capped_deals",
                  "wilds_dealt"):
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), (variant, field)
