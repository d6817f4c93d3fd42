"""``pimc`` on the table runner, on the paused kernel's fast path (choose_batch), on its simple
path and in the rules engine's play_deal (choose: a one-row search by choose_batch): legal, deterministic,
honest about its contract; every path chooses as the others do, move for move; a fault beside it replays.

Strength is measured by the benchmark in the closing note, not here (it needs
thousands of deals); these tests keep budgets tiny.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.cards import deck, parse_card
from analyzer.core.contract import StrategyError
from analyzer.core.outcomes import MatchResults
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.execution.executor import simulate_deals
from analyzer.kernel.matches import simulate_matches
from analyzer.kernel.pause import simulate_paused_matches
from analyzer.kernel.serve import not_compiled
from analyzer.knowledge.table import play_observed, public_table
from strategies.pimc import Pimc
from tests.helpers_engine import assert_deals_alike, make_deal
from tests.knowledge.test_search_kernel import LONG_CZECH


def matches_on_decks(rules, strategies, decks: np.ndarray, seed: int, hands=None) -> MatchResults:
    """Matches on given decks (n, K, D) on the kernel, by player: compiled built-ins on the match kernel, a
    line-up with Python strategies paused at their decisions (the executor's matches shuffle their own decks)."""
    if not_compiled(strategies) is None:
        return simulate_matches(rules, strategies, len(decks), seed, decks=decks, hands=hands)
    return simulate_paused_matches(rules, strategies, len(decks), seed, play_rng=np.random.default_rng(seed),
                                   decks=decks, hands=hands)


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
    """A view without the public history (a deal that does not record): a one-line refusal, not a blind move."""
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


def test_table_runner_gives_the_kernels_results_for_players_without_memory() -> None:
    """simulate_observed (engine + knowledge) = the compiled kernel, deal by deal, by position (G2)."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed

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
def test_table_runner_matches_equal_the_kernels_matches_on_the_same_decks(variant: str, players: int,
                                                                          target: int, by_player: bool) -> None:
    """G11/CZ2/SV2 rotation, totals, CZ7/PR7/SV7 outcome: a knowing line-up's matches = the match kernel's."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed_matches

    rules = make_rules(variant, players, {"target": target})
    n, k = 12, 40
    decks = shuffled_decks(rules.deck_size, n * k, np.random.default_rng(players)).reshape(n, k, rules.deck_size)
    specs = ("greedy", "wild-keeper", "suit-keeper")[:players]
    hands = list(range(players))[::-1] if by_player else None
    ours = simulate_observed_matches(rules, [Remembers(s) for s in specs], decks, np.random.SeedSequence(1), hands=hands)
    theirs = matches_on_decks(rules, [get_strategy(s) for s in specs], decks, 1, hands=hands)
    assert ours.deals.sum() > 2 * n  # several deals per match: the rotation is exercised
    for field in ("totals", "win_share", "loss_share", "loser_by_wild", "wild_held", "deals", "capped_deals",
                  "wilds_dealt"):
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), (variant, field)


# ---------------------------------------------------------------- the fast path: choose_batch on the kernel
class FixedKeys(Pimc):
    """pimc with one key for every decision, whichever path asks: its choice is then a function of its view."""

    @staticmethod
    def _key(rng: np.random.Generator) -> int:
        return 12345

    @staticmethod
    def _keys(rng: np.random.Generator, count: int) -> np.ndarray:
        return np.full(count, 12345, np.int64)


BATCH_CASES: list[tuple[str, int, dict[str, object]]] = [("czech", 2, {}), ("svinya", 2, {}), ("prague", 3, {}),
               ("czech", 4, {"voluntary_draw": True}), ("svinya", 2, {"no_card": "draw_one"})]


@pytest.mark.parametrize("variant,players,options", BATCH_CASES, ids=[f"{v}{p}{''.join(o)}" for v, p, o in BATCH_CASES])
def test_choose_batch_chooses_as_choose_known_move_for_move(variant: str, players: int, options: dict) -> None:
    """Same decks, same key per decision: the paused kernel's fast path (choose_batch on BatchView.history, every
    deal's search in one compiled call) and the table runner (choose_known on the observer's Knowledge)
    search the same worlds and rollouts, so every deal ends alike (points, turns, turn-overs, who won)."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed

    rules = make_rules(variant, players, options)
    n = 8
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng([players, 5])).astype(np.int8)
    table_p, fast_p = FixedKeys(worlds=4, budget=0), FixedKeys(worlds=4, budget=0)
    others = [get_strategy("weighted") for _ in range(players - 1)]
    table = simulate_observed(rules, [table_p, *others], decks, np.random.SeedSequence(1))
    fast = simulate_deals(rules, [fast_p, *others], n, 1, decks=decks)
    assert fast_p.decisions == table_p.decisions > n  # it searched, on both paths
    assert_deals_alike(table, fast, n)


def test_choose_batch_plays_matches_as_the_table_runner_does() -> None:
    """Matches (G11): the totals in the batch views reach the search by seat (CZ7's match outcome)."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.knowledge.table import simulate_observed_matches

    rules = make_rules("czech", 3, {"target": 60})
    n, k = 3, 40
    decks = shuffled_decks(rules.deck_size, n * k, np.random.default_rng(3)).reshape(n, k, rules.deck_size)
    table_p, fast_p = FixedKeys(worlds=4, budget=0), FixedKeys(worlds=4, budget=0)
    others = [get_strategy("weighted"), get_strategy("greedy")]
    ours = simulate_observed_matches(rules, [table_p, *others], decks, np.random.SeedSequence(1))
    theirs = matches_on_decks(rules, [fast_p, *others], decks, 1)
    assert fast_p.decisions == table_p.decisions > 0
    for field in ("totals", "win_share", "loss_share", "deals"):
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field


def test_choose_batch_is_deterministic_for_a_seed_and_uses_its_rng() -> None:
    """On the same decks: a seed fixes every move; another seed changes only pimc's own generator (weighted is
    deterministic), and some deal ends otherwise."""
    from analyzer.core.cards import shuffled_decks

    rules = make_rules("svinya", 2, {})
    decks = shuffled_decks(rules.deck_size, 12, np.random.default_rng(7)).astype(np.int8)
    runs = [simulate_deals(rules, [get_strategy("pimc?worlds=4,budget=0"), get_strategy("weighted")], 12, seed,
                           decks=decks) for seed in (7, 7, 8)]
    assert np.array_equal(runs[0].points, runs[1].points) and np.array_equal(runs[0].turns, runs[1].turns)
    assert not np.array_equal(runs[0].turns, runs[2].turns)


class Auditor:
    """pimc on the fast path that also draws each searched row's worlds and checks them against the view."""

    name = "pimc-audit"
    uses_history = True

    def __init__(self) -> None:
        self.inner = Pimc(worlds=4, budget=0)
        self.rows = 0
        self.big = 0  # rows past the dense counting table (drawn from the reachable room vectors)

    def choose(self, view, rng):  # pragma: no cover - the fast path only
        raise AssertionError("the paused kernel calls choose_batch")

    def choose_batch(self, view, rng):
        from analyzer.core.bits import BIT, popcount
        from analyzer.kernel.search import MAX_TABLE, count_table, draw_worlds
        from analyzer.knowledge.search import view_candidates, view_search

        options = view_candidates(view)
        rows = np.array([i for i, o in enumerate(options) if len(o) > 1], np.int64)
        if len(rows):
            vs = view_search(view, rows, [options[i] for i in rows.tolist()])
            hist, n = view.history, view.rules.players
            for i, r in enumerate(rows.tolist()):
                me, c, k = int(vs.me[i]), int(vs.n_pool[i]), int(vs.n_cls[i])
                fits, size = vs.fits[i, :c, :k], vs.size[i, :k]
                f, stride, keys, start = count_table(fits, size, MAX_TABLE)
                self.big += len(keys) > 0
                hands, talons = draw_worlds(f, stride, keys, start, fits, size, vs.owner[i, :k], vs.pool[i, :c],
                                            vs.fixed[i], vs.talon_known[i, :vs.n_known[i]], int(vs.talon_size[i]), 6,
                                            99 + r)
                pile = int(np.bitwise_or.reduce(BIT[hist.pile[r, :hist.pile_size[r]]]))
                for w in range(len(hands)):
                    talon = int(np.bitwise_or.reduce(BIT[talons[w, :vs.talon_size[i]]])) if vs.talon_size[i] else 0
                    cards = [int(h) for h in hands[w]]
                    assert cards[me] == int(vs.fixed[i, me])  # own hand as held
                    for s in range(n):
                        off = (s - me) % n
                        assert int(popcount(np.uint64(cards[s]))) == int(view.hand_sizes[r, off])  # hand sizes
                        assert cards[s] & int(hist.known[r, off]) == int(hist.known[r, off])  # known cards in place
                        if off:  # inferred voids and seen cards: nothing it may not hold
                            assert cards[s] & ~int(hist.may_hold[r, off]) == 0
                    everything = talon | pile
                    for h in cards:
                        assert everything & h == 0  # no card twice
                        everything |= h
                    assert everything == sum(1 << c for c in deck(view.rules.deck_size))  # every card somewhere
                    if hist.talon[r, 0] >= 0:  # G8 turn_over: the talon's known order is kept
                        assert list(talons[w, :vs.talon_size[i]]) == list(hist.talon[r, :vs.talon_size[i]])
                self.rows += 1
        return self.inner.choose_batch(view, rng)


@pytest.mark.parametrize("variant,players,options", [("czech", 3, {}), ("svinya", 2, {}),
                                                      ("czech", 2, {"reshuffle": "shuffle"})])
def test_the_batch_sampler_never_contradicts_the_view(variant: str, players: int, options: dict) -> None:
    rules = make_rules(variant, players, options)
    audit = Auditor()
    simulate_deals(rules, [audit] + [get_strategy("weighted")] * (players - 1), 6, 2)
    assert audit.rows > 6


def test_worlds_from_the_sparse_counting_table_never_contradict_the_view() -> None:
    """Long czech 3p deals reach rows whose dense counting table would pass MAX_TABLE (29 of ~600 here): their
    worlds, drawn from the reachable room vectors, fit the view as every other row's do."""
    audit = Auditor()
    simulate_deals(make_rules("czech", 3, LONG_CZECH), [audit] + [get_strategy("random")] * 2, 6, 2)
    assert audit.big > 5 and audit.rows > 100


def test_a_row_past_the_dense_table_is_searched_in_the_kernel_alike_on_both_paths() -> None:
    """Long czech 3p deals (rows with ~1e7-1e8 dense entries): pimc's fast path (every row in one kernel call)
    and the table runner (choose_known, one decision at a time) play them, each alike for a seed."""
    rules = make_rules("czech", 3, LONG_CZECH)
    runs = [simulate_deals(rules, [Pimc(worlds=4, budget=0)] + [get_strategy("weighted")] * 2, 3, 4) for _ in range(2)]
    assert np.array_equal(runs[0].points, runs[1].points) and np.array_equal(runs[0].turns, runs[1].turns)
    assert runs[0].turns.max() > 100
    for seed in (1, 1):
        deal = Deal.from_deck(rules, list(deck(48)), rng=np.random.default_rng(seed))
        out = play_observed(deal, [Pimc(worlds=4, budget=0), get_strategy("weighted"), get_strategy("weighted")],
                            np.random.default_rng(seed))
        assert out.turns > 0


# ---------------------------------------------------------------- the simple path and the rules engine: choose
class SimplePath:
    """pimc asked through ``choose`` alone (no choose_batch): the paused kernel's simple path, one view at a time."""

    uses_history = True

    def __init__(self, inner: Pimc) -> None:
        self.inner, self.name = inner, "pimc-simple"

    def choose(self, view, rng):
        return self.inner.choose(view, rng)


@pytest.mark.parametrize("variant,players,options", BATCH_CASES, ids=[f"{v}{p}{''.join(o)}" for v, p, o in BATCH_CASES])
def test_choose_chooses_as_choose_batch_move_for_move(variant: str, players: int, options: dict) -> None:
    """Same decks, same key per decision: the simple path (choose on DecisionView.history, a one-row search by
    choose_batch's own code) and the fast path (every deal's search in one call) end every deal alike."""
    from analyzer.core.cards import shuffled_decks

    rules = make_rules(variant, players, options)
    n = 6
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng([players, 5])).astype(np.int8)
    simple_p, fast_p = FixedKeys(worlds=4, budget=0), FixedKeys(worlds=4, budget=0)
    others = [get_strategy("weighted") for _ in range(players - 1)]
    simple = simulate_deals(rules, [SimplePath(simple_p), *others], n, 1, decks=decks)
    fast = simulate_deals(rules, [fast_p, *others], n, 1, decks=decks)
    assert simple_p.decisions == fast_p.decisions > n  # it searched, on both paths
    assert_deals_alike(simple, fast, n)


def test_choose_plays_matches_as_choose_batch() -> None:
    """Matches (G11): the totals of the simple path's views reach the one-row search as the batch's do."""
    from analyzer.core.cards import shuffled_decks

    rules = make_rules("czech", 3, {"target": 60})
    n, k = 2, 40
    decks = shuffled_decks(rules.deck_size, n * k, np.random.default_rng(3)).reshape(n, k, rules.deck_size)
    simple_p, fast_p = FixedKeys(worlds=4, budget=0), FixedKeys(worlds=4, budget=0)
    others = [get_strategy("weighted"), get_strategy("greedy")]
    simple = matches_on_decks(rules, [SimplePath(simple_p), *others], decks, 1)
    fast = matches_on_decks(rules, [fast_p, *others], decks, 1)
    assert simple_p.decisions == fast_p.decisions > 0
    for field in ("totals", "win_share", "loss_share", "deals"):
        assert np.array_equal(getattr(simple, field), getattr(fast, field)), field


@pytest.mark.parametrize("variant,players,options", [("czech", 3, {"sevens": True}), ("prague", 3, {}),
                                                      ("svinya", 2, {"reshuffle": "shuffle"})])
def test_the_rules_engine_plays_pimc_as_the_paused_kernel_does(variant: str, players: int, options: dict) -> None:
    """engine.deal.play_deal (the deal records its history for pimc) plays every deal as the kernel paused at
    pimc's fast path does -- every field of its outcome -- for the same deck, deal stream and key per decision."""
    from analyzer.core.cards import shuffled_decks
    from analyzer.core.streams import base_key, deal_key
    from analyzer.engine.deal import play_deal
    from analyzer.execution.executor import simulate_deals

    rules = make_rules(variant, players, options)
    n = 4
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(7)).astype(np.int8)
    pimc = FixedKeys(worlds=4, budget=0)
    lineup = [pimc, *[get_strategy("weighted") for _ in range(players - 1)]]
    ss = np.random.SeedSequence(9)
    res = simulate_deals(rules, lineup, n, ss, decks=decks)
    searched = pimc.decisions
    for i in range(n):
        deal = Deal.from_deck(rules, decks[i].tolist(), stream_key=deal_key(base_key(ss), i), record=True)
        out = play_deal(deal, [lineup[(s - 1) % players] for s in range(players)], np.random.default_rng(0))
        assert res.row(i) == out.by_position(), f"deal {i}: kernel {res.row(i)} != engine {out.by_position()}"
    assert pimc.decisions == 2 * searched > n


class FaultsLate:
    """Deterministic and faulty: plays weighted until 8 cards have been played and its hand is down to
    three, then draws, legal or not (late in a deal, where pimc's searches have shaped it)."""

    name = "faults-late"

    def choose(self, view, rng):
        from analyzer.core.cards import DRAW

        if len(view.played) >= 8 and len(view.hand) <= 3 and DRAW not in view.legal:
            return DRAW, None
        return get_strategy("weighted").choose(view, rng)


def test_a_fault_beside_pimc_is_reproduced_by_the_engine_and_replays(tmp_path, monkeypatch, capsys) -> None:
    """A plugin's fault in a line-up with pimc: the kernel's scenario replays to it (``durak replay``), and
    the rules engine, pimc playing through choose, meets the same fault at the same move as the kernel's trace
    of the deal (faults.write_fault_scenario), rather than pimc's own refusal."""
    import json
    import re

    import analyzer.kernel.pause as pause
    from analyzer.cli.app import main
    from analyzer.core.cards import shuffled_decks
    from analyzer.core.faults import SimulationError
    from analyzer.engine.faults import write_fault_scenario
    from analyzer.engine.replay import load_scenario, replay

    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path / "kernel"))
    rules = make_rules("czech", 2, {})
    with pytest.raises(SimulationError, match="faults-late") as err:
        simulate_deals(rules, [get_strategy("pimc?worlds=4,budget=200"), FaultsLate()], 20, 3)
    assert "replays to the faulty decision" in str(err.value)
    main(["replay", str(next((tmp_path / "kernel").glob("fault-*.toml"))), "--json"])
    assert json.loads(capsys.readouterr().out)["stopped_at_fault"] is True

    def engine_fallback(*args: object, **kwargs: object) -> None:
        raise AssertionError("the kernel's own trace must write its scenario, not the engine's reproduction")

    decks = shuffled_decks(rules.deck_size, 20, np.random.default_rng(4)).astype(np.int8)
    with monkeypatch.context() as m:
        m.setattr(pause, "write_fault_scenario", engine_fallback)
        with pytest.raises(SimulationError, match="faults-late") as err:
            simulate_deals(rules, [FixedKeys(worlds=4, budget=0), FaultsLate()], 20, 1, decks=decks)
    msg = str(err.value)
    job = int(re.search(r"deal (\d+)", msg).group(1))
    traced = load_scenario(re.search(r"durak replay (\S+)$", msg).group(1))
    path, met = write_fault_scenario(rules, [FaultsLate(), FixedKeys(worlds=4, budget=0)], decks[job].tolist(),
                                     tmp_path / "engine", "pimc")
    assert met, "the engine did not meet the fault again"
    sc = load_scenario(path)
    assert len(sc.moves) > 8 and sc.moves == traced.moves, "the engine's pimc played otherwise than the kernel's"
    assert sc.fault is not None and "faults-late" in sc.fault and "pimc" in sc.names[1]
    deal, out = replay(sc)
    assert out is None and "faults-late" in sc.names[deal.current]
