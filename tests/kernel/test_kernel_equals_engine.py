"""The compiled kernel plays exactly the rules engine's game.

Deterministic line-ups on the same decks: the kernel (analyzer.kernel) and the
engine (analyzer.engine.deal, simple path) give identical results deal by
deal, every field, over the configurations of tests/kernel/test_paused_equals_engine.py plus
more options.  Random play and options that draw random numbers agree
statistically (99.9% intervals).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, play_deal
from analyzer.kernel.driver import simulate_deals
from analyzer.stats.intervals import wilson
from strategies import get_strategy
from tests.kernel.test_paused_equals_engine import CONFIGS, LINEUPS, engine_by_position

EXTRA = [
    ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "starter_effects": True}),
    ("czech", 4, {"eight_stop": True, "sevens": True, "queen_needs_king": True}),
    ("czech", 2, {"jack_finish_doubles": True, "wild_on_anything": False, "turn_cap": 40}),
    ("czech", 6, {"hand_size": 7, "deck_size": 52, "last_card_call": True, "forget_rate": 0.0}),
    ("prague", 5, {"hand_size": 2, "voluntary_draw": True, "no_card": "draw_until_play"}),
    ("svinya", 2, {"lone_wild_points": 35, "serve_last_effect": True}),
]
ALL = CONFIGS + EXTRA
DEALS = 150  # per configuration and line-up family: ~3,500 deals in all, every variant > 600


def _id(cfg) -> str:
    v, p, o = cfg
    return f"{v}-{p}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"


@pytest.mark.parametrize("variant,players,overrides", ALL, ids=[_id(c) for c in ALL])
def test_kernel_equals_engine_deal_by_deal(variant, players, overrides):
    """G1-G11, CZ/PR/SV rules and options: every field of every deal equal to the engine's."""
    rules = make_rules(variant, players, overrides)
    rng = np.random.default_rng(zlib.crc32(f"kernel-{variant}-{players}-{sorted(overrides.items())}".encode()))
    decks = shuffled_decks(rules.deck_size, DEALS, rng)
    start = int(rng.integers(len(LINEUPS)))
    strats = [get_strategy(LINEUPS[(start + p) % len(LINEUPS)]) for p in range(players)]
    res = simulate_deals(rules, strats, DEALS, decks=decks)
    for i in range(DEALS):
        want = engine_by_position(rules, decks[i].tolist(), strats)
        assert res.row(i) == want, f"deal {i}: kernel {res.row(i)} != engine {want}"


@pytest.mark.parametrize("name", LINEUPS)
def test_each_compiled_strategy_equals_its_python_form(name):
    """Every deterministic built-in, alone at all seats and against others, move for move."""
    for variant, players, overrides in [("czech", 4, {"sevens": True, "eight_stop": True}), ("prague", 3, {}),
                                        ("svinya", 2, {})]:
        rules = make_rules(variant, players, overrides)
        decks = shuffled_decks(rules.deck_size, 120, np.random.default_rng(zlib.crc32(name.encode())))
        strats = [get_strategy(name)] + [get_strategy(LINEUPS[p % len(LINEUPS)]) for p in range(1, players)]
        res = simulate_deals(rules, strats, len(decks), decks=decks)
        for i in range(len(decks)):
            assert res.row(i) == engine_by_position(rules, decks[i].tolist(), strats), (variant, i)


def test_weighted_parameters_reach_the_kernel():
    """weighted?w_...: tuned weights play as in Python (and differently from the defaults)."""
    rules = make_rules("czech", 3, {"sevens": True})
    decks = shuffled_decks(rules.deck_size, 200, np.random.default_rng(4))
    tuned = [get_strategy("weighted?w_points=-1,w_wild=3,w_suit_len=0.25,w_same_rank=-2")] * 3
    res = simulate_deals(rules, tuned, 200, decks=decks)
    assert all(res.row(i) == engine_by_position(rules, decks[i].tolist(), tuned) for i in range(200))
    plain = simulate_deals(rules, [get_strategy("weighted")] * 3, 200, decks=decks)
    assert not np.array_equal(plain.turns, res.turns)


def _engine_rates(rules, strat, n, seed):
    """Seat win rates and mean turns of the engine over ``n`` random decks."""
    rng = np.random.default_rng(seed)
    decks = shuffled_decks(rules.deck_size, n, rng)
    p = rules.players
    wins = np.zeros(p)
    turns = np.zeros(n)
    for i in range(n):
        out = play_deal(Deal.from_deck(rules, decks[i].tolist(), rng=rng), [strat] * p, rng)
        if out.winner is not None:
            wins[(out.winner - 1) % p] += 1
        turns[i] = out.turns
    return wins, turns


@pytest.mark.parametrize("variant,players,overrides,strategy", [
    ("czech", 4, {}, "random"),
    ("prague", 3, {}, "random"),
    ("svinya", 2, {}, "random"),
    ("czech", 3, {"sevens": True, "last_card_call": True, "forget_rate": 0.5}, "greedy"),
    ("czech", 2, {"reshuffle": "shuffle", "hand_size": 10}, "greedy"),
])
def test_random_draws_agree_with_engine_statistically(variant, players, overrides, strategy):
    """random play, forget_rate (CZ8) and reshuffle=shuffle (G8): win rates and mean turns within 99.9%."""
    rules = make_rules(variant, players, overrides)
    strat = get_strategy(strategy)
    n_eng = 1200
    wins, turns = _engine_rates(rules, strat, n_eng, 11)
    res = simulate_deals(rules, [strat] * players, 30_000, seed=3)
    rate = np.bincount(res.winner[res.winner >= 0], minlength=players) / len(res)
    r = wilson(wins, n_eng, z=3.29)
    assert np.all((rate >= r.lo) & (rate <= r.hi)), (rate, r)
    # mean turns: the engine's mean within 3.29 standard errors of the kernel's
    se = np.hypot(turns.std() / np.sqrt(n_eng), res.turns.std() / np.sqrt(len(res)))
    assert abs(turns.mean() - res.turns.mean()) < 3.29 * se, (turns.mean(), res.turns.mean())


def test_shuffle_acts_only_at_turnovers():
    """G8 reshuffle=shuffle: the same decks play the same until the pile is first turned over;
    deals with a turnover mostly go differently (the turned-over talon is shuffled)."""
    decks = shuffled_decks(32, 3000, np.random.default_rng(6))
    strats = [get_strategy("greedy")] * 4
    over = simulate_deals(make_rules("czech", 4, {"hand_size": 7}), strats, 3000, decks=decks, seed=2)
    shuf = simulate_deals(make_rules("czech", 4, {"hand_size": 7, "reshuffle": "shuffle"}), strats, 3000,
                          decks=decks, seed=2)
    calm = over.turnovers == 0
    assert calm.sum() > 300 and (~calm).sum() > 300
    assert np.array_equal(over.turns[calm], shuf.turns[calm]) and np.array_equal(over.points[calm], shuf.points[calm])
    assert (over.turns[~calm] != shuf.turns[~calm]).mean() > 0.3


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 4, {"reshuffle": "shuffle", "hand_size": 7}),
    ("czech", 3, {"sevens": True, "last_card_call": True, "forget_rate": 0.3}),
    ("prague", 4, {"reshuffle": "shuffle", "hand_size": 8}),
    ("svinya", 2, {"reshuffle": "shuffle"}),
])
def test_random_options_equal_engine_deal_by_deal_with_the_same_stream(variant, players, overrides):
    """G8 reshuffle=shuffle, CZ8 forget_rate: the engine keyed with the kernel's stream plays the same deals."""
    from analyzer.kernel.driver import play_keys

    rules = make_rules(variant, players, overrides)
    n = 300
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(17))
    strats = [get_strategy(LINEUPS[(p + 2) % len(LINEUPS)]) for p in range(players)]
    res = simulate_deals(rules, strats, n, seed=5, decks=decks)
    keys = play_keys(n, seed=5)
    by_seat = [strats[(s - 1) % players] for s in range(players)]
    drew = 0
    for i in range(n):
        out = play_deal(Deal.from_deck(rules, decks[i].tolist(), stream_key=int(keys[i])), by_seat,
                        np.random.default_rng(0))
        want = out.by_position()
        assert res.row(i) == want, f"deal {i}: kernel {res.row(i)} != engine {want}"
        drew += out.turnovers > 0
    assert drew > 20 or rules.last_card_call
