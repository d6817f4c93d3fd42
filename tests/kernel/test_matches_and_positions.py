"""Compiled kernel: matches and positions equal the engine; results independent of threads and splits.

G11, CZ2, CZ7, PR7, SV2, SV7 for matches; positions taken mid-deal from the
engine finish identically in the kernel.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from analyzer.core.cards import deck, shuffled_decks
from analyzer.core.outcomes import DealResults
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, forced_action, play_deal, play_match
from analyzer.kernel.driver import deck_orders, simulate_deals
from analyzer.kernel.matches import simulate_matches
from analyzer.kernel.positions import Positions, encode_deal, play_from_positions
from strategies import get_strategy
from tests.kernel.test_paused_equals_engine import LINEUPS


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 3, {"target": 150}), ("svinya", 2, {}), ("prague", 3, {"target": 200}),
    ("czech", 4, {"target": 100, "wild_rule": "off"}), ("prague", 4, {"target": 150, "wild_rule": "match"}),
    ("svinya", 2, {"turn_cap": 50}),
])
def test_matches_equal_engine(variant, players, overrides):
    """G11 with the variant's rotation (CZ2, SV2) and outcome (CZ7, PR7, SV7), match by match."""
    rules = make_rules(variant, players, overrides)
    m, k = 40, 120
    decks = shuffled_decks(rules.deck_size, m * k, np.random.default_rng(5)).reshape(m, k, -1)
    strats = [get_strategy(LINEUPS[(p + 1) % len(LINEUPS)]) for p in range(players)]
    res = simulate_matches(rules, strats, m, decks=decks)
    for i in range(m):
        it = iter(decks[i].tolist())
        out = play_match(rules, strats, np.random.default_rng(0), lambda it=it: next(it))
        assert res.totals[i].tolist() == out.totals, i
        assert res.deals[i] == out.deals and res.capped_deals[i] == out.capped_deals
        assert np.allclose(res.win_share[i], out.win_share) and np.allclose(res.loss_share[i], out.loss_share)
        assert bool(res.loser_by_wild[i]) == out.loser_by_wild
        assert res.wild_held[i].tolist() == out.wild_held


def test_matches_reproducible_and_split_free():
    rules = make_rules("czech", 4, {"target": 100})
    strats = [get_strategy("random")] * 4
    a = simulate_matches(rules, strats, 300, seed=2, threads=2)
    b = simulate_matches(rules, strats, 300, seed=2, threads=1)
    c = simulate_matches(rules, strats, 100, seed=2, first=200, threads=1)
    assert np.array_equal(a.totals, b.totals) and np.array_equal(a.deals, b.deals)
    assert np.array_equal(a.totals[200:], c.totals)
    assert (a.totals.max(axis=1) >= 100).all()


def _outcome_row(rules, out) -> dict:
    """An engine DealOutcome in DealResults' position order (column q = seat q + 1)."""
    return out.by_position()


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 4, {"sevens": True, "eight_stop": True}),
    ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "voluntary_draw": True}),
    ("prague", 4, {}),
    ("prague", 3, {"hand_size": 3}),  # Jack leads (PR2) come up often with few cards dealt
    ("svinya", 2, {}),
    ("czech", 2, {"no_card": "draw_until_play", "queen_needs_king": True}),
])
def test_positions_taken_mid_deal_finish_as_in_the_engine(variant, players, overrides):
    """Stop an engine deal at a random decision (any phase), encode it, and finish it in both."""
    rules = make_rules(variant, players, overrides)
    rng = np.random.default_rng(21)
    decks = shuffled_decks(rules.deck_size, 150, rng)
    strats = [get_strategy(LINEUPS[(p + 3) % len(LINEUPS)]) for p in range(players)]
    by_seat = [strats[(s - 1) % players] for s in range(players)]
    parts, want, phases = [], [], set()
    for order in decks.tolist():
        deal = Deal.from_deck(rules, order)
        for _ in range(int(rng.integers(0, 40))):  # play a random number of decisions first
            if deal.done:
                break
            a = forced_action(deal)
            if a is None:
                a, s = by_seat[deal.current].choose(deal.view(), rng)
                deal.apply(a, None if s is None or s < 0 else s)
            else:
                deal.apply(a)
        if deal.done:
            continue
        phases.add(deal.phase)
        parts.append(encode_deal(deal))
        want.append(_outcome_row(rules, play_deal(deal, by_seat, rng)))
    res = play_from_positions(rules, strats, Positions.concat(parts), seed=1)
    assert len(want) > 60
    for i, w in enumerate(want):
        assert res.row(i) == w, f"position {i}: kernel {res.row(i)} != engine {w}"
    assert "play" in phases


def test_rollouts_of_one_position_differ_only_by_their_streams():
    """Random rollouts from one position: reproducible from the seed, varied across rows."""
    rules = make_rules("czech", 2)
    deal = Deal.from_deck(rules, shuffled_decks(32, 1, np.random.default_rng(3))[0].tolist())
    pos = encode_deal(deal).repeat(2000)
    strats = [get_strategy("random")] * 2
    a = play_from_positions(rules, strats, pos, seed=4, threads=2)
    b = play_from_positions(rules, strats, pos, seed=4, threads=1)
    assert all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(DealResults))
    assert len(np.unique(a.turns)) > 10


def test_results_depend_on_seed_and_deal_index_only():
    """The same deals for any thread count or split of the run."""
    rules = make_rules("czech", 4, {"sevens": True, "reshuffle": "shuffle", "last_card_call": True,
                                    "forget_rate": 0.3})
    strats = [get_strategy("random"), get_strategy("greedy"), get_strategy("random"), get_strategy("weighted")]
    whole = simulate_deals(rules, strats, 5000, seed=7, threads=2)
    serial = simulate_deals(rules, strats, 5000, seed=7, threads=1)
    parts = DealResults.concat([simulate_deals(rules, strats, 1234, seed=7, first=0, threads=1),
                                simulate_deals(rules, strats, 5000 - 1234, seed=7, first=1234, threads=2)])
    for f in fields(DealResults):
        assert np.array_equal(getattr(whole, f.name), getattr(serial, f.name)), f.name
        assert np.array_equal(getattr(whole, f.name), getattr(parts, f.name)), f.name
    other = simulate_deals(rules, strats, 5000, seed=8, threads=2)
    assert not np.array_equal(whole.turns, other.turns)


def test_decks_come_from_their_own_stream():
    """Deal j's cards depend on (seed, j) alone: the seeded run equals a run given those decks,
    for a random line-up too (its draws come from a separate play stream)."""
    rules = make_rules("prague", 3)
    decks = deck_orders(rules, 400, seed=9, first=100)
    assert sorted(decks[0].tolist()) == sorted(deck(36)) and len({tuple(d) for d in decks.tolist()}) == 400
    for name in ("greedy", "random"):
        strats = [get_strategy(name)] * 3
        a = simulate_deals(rules, strats, 400, seed=9, first=100)
        b = simulate_deals(rules, strats, 400, seed=9, first=100, decks=decks)
        assert all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(DealResults))


def test_strategies_without_a_compiled_form_are_named():
    """A user's Python strategy (or a subclass of a built-in) is not run by the kernel yet: one clear error."""
    from analyzer.kernel.lineup import NotCompiled
    from strategies.greedy import Greedy
    from tests.plugin_example import HighestCard

    class Tweaked(Greedy):
        name = "tweaked"

    rules = make_rules("czech", 2)
    for odd in (HighestCard(), Tweaked()):
        with pytest.raises(NotCompiled, match=odd.name):
            simulate_deals(rules, [get_strategy("greedy"), odd], 10)
    with pytest.raises(ValueError, match="decks must be"):
        simulate_deals(rules, [get_strategy("greedy")] * 2, 10, decks=np.zeros((10, 36), np.int8))


def test_nth_card_of_a_mask():
    """bitops.nth (BMI2 pdep where the CPU has it, else a loop): the k-th lowest card of a mask."""
    from analyzer.kernel.bitops import nth

    rng = np.random.default_rng(3)
    for _ in range(300):
        mask = int(rng.integers(1, 1 << 52, dtype=np.int64))
        cards = [c for c in range(52) if (mask >> c) & 1]
        k = int(rng.integers(0, len(cards)))
        assert nth(np.uint64(mask), k) == cards[k]
    assert nth(np.uint64(1 << 51), 0) == 51 and nth(np.uint64((1 << 52) - 1), 51) == 51
