"""``tracker``: uses known voids of the next player; the same moves on the table runner and on
both paths of the kernel paused at its decisions (its views carry the public history the kernel logs); plays
weighted without history."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import DRAW, parse_card, shuffled_decks, suit_of
from analyzer.core.contract import DecisionView
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import simulate_deals
from analyzer.knowledge.observer import Knowledge, Public
from analyzer.knowledge.table import public_table, simulate_observed
from strategies.tracker import Tracker, known_voids
from tests.helpers_engine import assert_deals_alike, make_deal, play


def test_G6_void_is_known_and_a_wild_names_it() -> None:
    """Seat 1 draws on the K♥ with no heart (G6): the tracker's wild then names hearts against it."""
    deal = make_deal("czech", ["JC 8C 7C AD QD", "7S 8S 9S 10S QS"], talon="AS 7D 8D 9D", starter="KH")
    k = Knowledge.start(deal, 0)
    before = Public.of(deal, 0)
    play(deal, "draw")  # seat 1 has no heart, no king, no Jack: it must draw; the ♠A does not fit: passes
    k.observe(before, DRAW, Public.of(deal, 0))
    assert deal.current == 0
    hearts = suit_of(parse_card("KH"))
    assert hearts in known_voids(k, 1)
    action, suit = Tracker().choose_known(deal.view(), k, public_table(deal, 0), np.random.default_rng(0))
    assert (action, suit) == (parse_card("JC"), hearts)  # its only legal card; weighted would name clubs
    assert get_strategy("weighted").choose(deal.view(), np.random.default_rng(0))[1] != hearts


def test_without_history_tracker_plays_weighted() -> None:
    deal = make_deal("czech", ["JC 8C 9D 10D QH", "7S 8S 9S 10S QS"], talon="AS 7D 8D 9D", starter="8D")
    view = deal.view()
    rng = np.random.default_rng(0)
    assert get_strategy("tracker").choose(view, rng) == get_strategy("weighted").choose(view, rng)


class SimplePath:
    """tracker through the simple path only (no choose_batch): the paused kernel calls ``choose`` row by row."""

    name = "tracker-simple"
    uses_history = True

    def __init__(self) -> None:
        self.inner = Tracker()

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        return self.inner.choose(view, rng)


LINEUPS = [("czech", 2, ("tracker", "weighted")), ("czech", 4, ("tracker", "greedy", "tracker", "weighted")),
           ("prague", 3, ("weighted", "tracker", "aggressive")), ("svinya", 2, ("weighted", "tracker"))]


@pytest.mark.parametrize("variant,players,names", LINEUPS, ids=[f"{v}{p}" for v, p, _ in LINEUPS])
def test_tracker_plays_alike_on_the_table_runner_and_on_both_paths_of_the_kernel(
        variant: str, players: int, names: tuple[str, ...]) -> None:
    """Same decks: the table runner (choose_known on the observer's Knowledge), the paused kernel's fast path
    (choose_batch on BatchView.history, read from the kernel's event log) and its simple path (choose on
    DecisionView.history) end every deal alike -- points, turns, last card, turn-overs, winner and loser (the
    moves are deterministic)."""
    rules = make_rules(variant, players, {})
    n = 30
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng([players, 5])).astype(np.int8)
    table = simulate_observed(rules, [get_strategy(s) for s in names], decks, np.random.SeedSequence(1))
    fast = simulate_deals(rules, [get_strategy(s) for s in names], n, 1, decks=decks)
    simple = simulate_deals(rules, [SimplePath() if s == "tracker" else get_strategy(s) for s in names], n, 1,
                            decks=decks)
    for other, path in ((fast, "fast"), (simple, "simple")):
        assert_deals_alike(table, other, n, f"{path} path: ")


def test_tracker_uses_what_the_history_tells_it_and_differs_from_weighted() -> None:
    """With history it is not weighted: over a few hundred czech deals its moves change some outcomes."""
    rules = make_rules("czech", 2, {})
    decks = shuffled_decks(rules.deck_size, 200, np.random.default_rng(3)).astype(np.int8)
    tr = simulate_deals(rules, [get_strategy("tracker"), get_strategy("weighted")], 200, 2, decks=decks)
    wt = simulate_deals(rules, [get_strategy("weighted"), get_strategy("weighted")], 200, 2, decks=decks)
    assert Tracker.uses_history is True
    assert (tr.turns != wt.turns).any()


def test_the_executor_plays_tracker_line_ups_on_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """tracker with built-ins (no pimc) runs on the kernel paused at its decisions, with the history in its views,
    not on the engine's table runner; so does pimc since it reads the views' history too (choose_batch)."""
    from analyzer.core.public import needs_table
    from analyzer.execution import executor
    from analyzer.execution.play import play

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tracker-only line-ups must not play on the table runner")

    monkeypatch.setattr(executor, "simulate_known", refuse)
    tables, _ = play(make_rules("czech", 2), ["tracker", "weighted"], 40, seed=3, jobs=1, chunk=20)
    assert tables["totals"]["n"].sum() == 40
    assert not needs_table([get_strategy("pimc"), get_strategy("tracker")])
    assert not needs_table([get_strategy("tracker"), get_strategy("weighted")])
