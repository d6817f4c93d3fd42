"""Equal where random too: the options that draw random numbers.

``reshuffle=shuffle`` (G8) and ``forget_rate`` (CZ8 last_card_call) draw from a
per-deal counter-based stream (analyzer.core.streams) keyed by the run's seed
and the deal's index.  Given the simulator's key of a deal, the rules engine
plays the same deal: the same shuffles, the same forgotten calls -- so the two
agree deal by deal and move by move, like the options without randomness.
A simulator that ignores either option fails here.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.core.streams import DealStream, base_key, deal_key, shuffled, uniform, uniforms
from analyzer.engine.deal import Deal, MoveHistory, play_deal, play_match
from analyzer.sim.batch import BatchSim
from analyzer.sim.simulator import simulate_deals, simulate_matches
from strategies import get_strategy

LINEUP = ["greedy", "wild-keeper", "aggressive", "suit-keeper", "weighted", "wild-dumper"]

CONFIGS = [
    ("czech", 4, {"reshuffle": "shuffle"}),
    ("czech", 3, {"reshuffle": "shuffle", "sevens": True, "deck_size": 32}),
    ("czech", 4, {"last_card_call": True, "forget_rate": 0.5}),
    ("czech", 2, {"last_card_call": True, "forget_rate": 0.3, "reshuffle": "shuffle", "sevens": True}),
    ("prague", 4, {"reshuffle": "shuffle", "hand_size": 5}),
    ("svinya", 2, {"reshuffle": "shuffle"}),
]
SEED = 77


def _engine(rules, deck, strats, key, history=None) -> dict:
    """One deal in the engine with the simulator's stream key, by position (as test_equivalence)."""
    n = rules.players
    out = play_deal(Deal.from_deck(rules, deck, stream_key=key), [strats[(s - 1) % n] for s in range(n)],
                    np.random.default_rng(0), history=history)
    return out.by_position()


def _setup(variant, players, overrides, n):
    rules = make_rules(variant, players, overrides)
    rng = np.random.default_rng(zlib.crc32(f"{variant}{players}{sorted(overrides.items())}".encode()))
    decks = shuffled_decks(rules.deck_size, n, rng)
    strats = [get_strategy(LINEUP[(p + int(rng.integers(6))) % 6]) for p in range(players)]
    return rules, decks, strats


@pytest.mark.parametrize("variant,players,overrides", CONFIGS,
                         ids=[f"{v}-{p}-" + "-".join(f"{k}={x}" for k, x in o.items()) for v, p, o in CONFIGS])
def test_random_options_equal_engine_deal_by_deal(variant, players, overrides):
    rules, decks, strats = _setup(variant, players, overrides, 400)
    res = simulate_deals(rules, strats, len(decks), SEED, decks=decks, slots=29)
    base = base_key(np.random.SeedSequence(SEED))
    bad = [i for i in range(len(decks))
           if res.row(i) != _engine(rules, decks[i].tolist(), strats, deal_key(base, i))]
    assert not bad, f"{len(bad)} deals differ, first {bad[0]}"
    # the options really act in these deals (else the test would prove nothing)
    if rules.reshuffle == "shuffle":
        assert (res.turnovers > 0).sum() >= 10
    if rules.last_card_call:
        forgot = sum(_engine_forgets(rules, decks[i].tolist(), strats, deal_key(base, i)) for i in range(100))
        assert forgot >= 5


def _engine_forgets(rules, deck, strats, key) -> int:
    n = rules.players
    deal = Deal.from_deck(rules, deck, stream_key=key)
    play_deal(deal, [strats[(s - 1) % n] for s in range(n)], np.random.default_rng(0))
    return sum("forgets to call" in line for line in deal.log)


@pytest.mark.parametrize("variant,players,overrides", CONFIGS[:4:3] + CONFIGS[4:],
                         ids=["czech-4-shuffle", "czech-2-forget-shuffle", "prague-shuffle", "svinya-shuffle"])
def test_random_options_equal_engine_move_by_move(variant, players, overrides):
    """OpenSpiel-style consistency: the simulator's recorded moves are the engine's, token for token."""
    rules, decks, strats = _setup(variant, players, overrides, 60)
    ss = np.random.SeedSequence(SEED)
    sim = BatchSim(rules, strats, slots=13, rng=np.random.default_rng(1), trace_jobs=set(range(60)),
                   stream_base=base_key(ss))
    sim.run(60, decks)
    for i in range(60):
        hist = MoveHistory()
        _engine(rules, decks[i].tolist(), strats, deal_key(base_key(ss), i), hist)
        assert sim.histories[i] == hist.tokens, f"deal {i}"
        assert sim.lead_suits[i] == (hist.lead_suit if hist.lead_suit is not None else sim.lead_suits[i])


def test_random_options_in_matches_equal_engine():
    """G11 with reshuffle=shuffle and forget_rate: deal k of match i has its own stream in both."""
    rules = make_rules("czech", 3, {"target": 120, "reshuffle": "shuffle", "last_card_call": True,
                                    "forget_rate": 0.4})
    m, k = 25, 80
    decks = shuffled_decks(rules.deck_size, m * k, np.random.default_rng(3)).reshape(m, k, -1)
    strats = [get_strategy(x) for x in ("greedy", "aggressive", "weighted")]
    res = simulate_matches(rules, strats, m, SEED, decks=decks, slots=6)
    base = base_key(np.random.SeedSequence(SEED))
    for i in range(m):
        it = iter(enumerate(decks[i].tolist()))
        totals = _engine_match(rules, strats, it, base, i)
        assert res.totals[i].tolist() == totals, f"match {i}"


def _engine_match(rules, strats, it, base, i) -> list[int]:
    """play_match with each deal keyed like the simulator's (deal k of match i)."""
    real = Deal.from_deck

    def keyed(rules_, deck, rng=None, names=None, stream_key=None, record=False):
        return real(rules_, deck, rng=rng, names=names, stream_key=deal_key(base, i, keyed.k), record=record)

    keyed.k = -1

    def next_deck():
        keyed.k, deck = next(it)
        return deck

    Deal.from_deck = keyed  # type: ignore[method-assign]
    try:
        return play_match(rules, strats, np.random.default_rng(0), next_deck).totals
    finally:
        Deal.from_deck = real  # type: ignore[method-assign]


def test_stream_functions_agree_and_look_uniform():
    """The Python and numpy forms of the stream give the same numbers; they are spread over [0, 1)."""
    keys = [deal_key(2**64 - 3, j, k) for j in range(40) for k in range(3)]
    a = np.array([uniform(key, c) for key in keys for c in range(50)])
    b = uniforms(np.repeat(np.array(keys, np.uint64), 50), np.tile(np.arange(50, dtype=np.uint64), len(keys)))
    assert np.array_equal(a, b)
    assert abs(a.mean() - 0.5) < 0.01 and np.histogram(a, 10, (0, 1))[0].min() > 500
    cards, counter = shuffled(list(range(30)), keys[0], 5)
    assert sorted(cards) == list(range(30)) and cards != list(range(30)) and counter == 5 + 29
    s = DealStream(keys[0])
    s.counter = 5
    assert s.shuffle(list(range(30))) == cards and s.counter == counter


def test_option_numbers_do_not_depend_on_slots():
    """Per-deal streams: deal j's shuffles depend on the seed and j only, not on the slot count."""
    rules = make_rules("czech", 4, {"reshuffle": "shuffle", "last_card_call": True, "forget_rate": 0.5})
    strats = [get_strategy("greedy")] * 4
    a = simulate_deals(rules, strats, 600, 5, slots=17)
    b = simulate_deals(rules, strats, 600, 5, slots=600)
    assert all(a.row(i) == b.row(i) for i in range(600))
