"""The kernel paused at Python strategies' decisions plays exactly the rules engine's game.

Deterministic built-ins seen as a user's Python strategies (:class:`~analyzer.execution.benchmark.PythonForm`:
``choose_batch`` and ``choose``, no compiled form), the same deck orders (at least 2,000 deals of every variant,
seeded by configuration): the engine (simple path, ``choose``) and the paused kernel (fast path,
``choose_batch``) must give identical results deal by deal, every field, in deals and in matches; the simple
path's adapter plays what the fast path plays.  The compiled kernel alone is held to the engine in
tests/kernel/test_kernel_equals_engine.py (the same configurations and more).
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, play_deal, play_match
from analyzer.execution.benchmark import PythonForm, SimpleOnly
from analyzer.execution.executor import simulate_deals, simulate_matches
from analyzer.kernel.serve import not_compiled
from strategies import get_strategy

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("czech", 4, {}),
    ("czech", 2, {"sevens": True}),
    ("czech", 5, {"sevens": True, "seven_chain": "accumulate", "eight_stop": True}),
    ("czech", 3, {"queen_needs_king": True, "jack_finish_doubles": True}),
    ("czech", 4, {"starter_effects": True, "sevens": True, "last_card_call": True, "forget_rate": 1.0}),
    ("czech", 8, {"hand_size": 6}),
    ("czech", 7, {"deck_size": 48, "voluntary_draw": True, "wild_on_anything": False}),
    ("czech", 2, {"no_card": "draw_until_play", "serve_last_effect": True, "sevens": True}),
    ("prague", 3, {}),
    ("prague", 5, {"wild_on_anything": False, "turn_cap": 300}),
    ("prague", 2, {"serve_last_effect": True, "starter_effects": False}),
    ("prague", 4, {"voluntary_draw": True, "hand_size": 5}),
    ("prague", 4, {"wild_rule": "off"}),
    ("czech", 4, {"wild_rule": "deal"}),
    ("svinya", 2, {}),
    ("svinya", 2, {"no_card": "draw_one", "voluntary_draw": False}),
    ("svinya", 2, {"turn_cap": 60, "deck_size": 52}),
]

IDS = [f"{v}-{p}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}" for v, p, o in CONFIGS]

#: configurations whose deals run to the turn cap (2,000 turns) all the time (forget_rate=1.0: the call is always
#: forgotten, CZ8) or now and then (SV4's draw-until-play, svinya's cycles): fewer deals, each a pause of the
#: kernel per decision (37 deals of czech's forget_rate=1.0 are 74,000 turns, more than any other configuration of
#: czech plays); the variant's other configurations make up its 2,000 deals
LONG_DEALS = {"czech-4-starter_effects=True-sevens=True-last_card_call=True-forget_rate=1.0": 37,
              "czech-2-no_card=draw_until_play-serve_last_effect=True-sevens=True": 150,
              "svinya-2-default": 200}


def _deals_per_config() -> dict[str, int]:
    """Deals of each configuration (by id): at least 2,000 deals of every variant over its configurations."""
    out = {}
    for variant in ("czech", "prague", "svinya"):
        ids = [i for c, i in zip(CONFIGS, IDS) if c[0] == variant]
        rest = [i for i in ids if i not in LONG_DEALS]
        each = -(-(2000 - sum(LONG_DEALS.get(i, 0) for i in ids)) // len(rest))
        out.update({i: LONG_DEALS.get(i, each) for i in ids})
    return out


#: deals per configuration (by id)
DEALS_PER_CONFIG = _deals_per_config()

LINEUPS = ["greedy", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper", "weighted"]


def engine_outcome(rules, deck, strats):
    """One deal in the engine, strategies by position (position q is seat q + 1)."""
    n = rules.players
    return play_deal(Deal.from_deck(rules, deck), [strats[(s - 1) % n] for s in range(n)],
                     np.random.default_rng(0))


def engine_by_position(rules, deck, strats, out=None) -> dict:
    """Play one deal in the engine and express it by position (as the kernel's results are)."""
    out = out if out is not None else engine_outcome(rules, deck, strats)
    return out.by_position()




def python_forms(strats: list[Any]) -> list[Any]:
    """The built-ins as Python strategies: the kernel pauses at every one of their decisions."""
    out = [PythonForm(s) for s in strats]
    assert not_compiled(out) is not None
    return out


@pytest.mark.parametrize("variant,players,overrides,n", [(*c, DEALS_PER_CONFIG[i]) for c, i in zip(CONFIGS, IDS)],
                         ids=IDS)
def test_the_paused_kernel_equals_the_engine_deal_by_deal(variant, players, overrides, n):
    rules = make_rules(variant, players, overrides)
    # a seed fixed by the configuration (str hashes change with every interpreter run)
    rng = np.random.default_rng(zlib.crc32(f"{variant}-{players}-{sorted(overrides.items())}".encode()))
    decks = shuffled_decks(rules.deck_size, n, rng)
    # a different mix of deterministic strategies at the positions in each config
    start = rng.integers(len(LINEUPS))
    strats = [get_strategy(LINEUPS[(start + p) % len(LINEUPS)]) for p in range(players)]
    res = simulate_deals(rules, python_forms(strats), n, decks=decks, check=True)
    outs = [engine_outcome(rules, decks[i].tolist(), strats) for i in range(n)]
    mismatches = [i for i in range(n) if res.row(i) != engine_by_position(rules, None, strats, outs[i])]
    assert not mismatches, f"deal {mismatches[0]}: kernel {res.row(mismatches[0])} != engine " \
                           f"{engine_by_position(rules, None, strats, outs[mismatches[0]])}"
    # the wilds each position was dealt (G4, PR2), deal by deal
    dealt = np.array([[o.wilds_dealt[(q + 1) % players] for q in range(players)] for o in outs])
    assert res.wilds_dealt.dtype == np.int8 and np.array_equal(res.wilds_dealt, dealt)


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 3, {"target": 150}), ("svinya", 2, {}), ("prague", 3, {"target": 200}),
    ("czech", 4, {"target": 100, "wild_rule": "off"}), ("prague", 4, {"target": 150, "wild_rule": "match"}),
])
def test_paused_match_play_equals_the_engines_match_driver(variant, players, overrides):
    """G11, CZ2, CZ7, PR7, SV2, SV7 on the paused kernel and in the engine's match driver."""
    rules = make_rules(variant, players, overrides)
    rng = np.random.default_rng(5)
    m, k = 60, 120
    decks = shuffled_decks(rules.deck_size, m * k, rng).reshape(m, k, -1)
    strats = [get_strategy(LINEUPS[p % 3]) for p in range(players)]
    res = simulate_matches(rules, python_forms(strats), m, decks=decks)
    for i in range(m):
        it = iter(decks[i].tolist())
        out = play_match(rules, strats, np.random.default_rng(0), lambda it=it: next(it))
        assert res.totals[i].tolist() == out.totals
        assert res.deals[i] == out.deals
        assert np.allclose(res.win_share[i], out.win_share)
        assert np.allclose(res.loss_share[i], out.loss_share)
        assert bool(res.loser_by_wild[i]) == out.loser_by_wild
        assert res.wild_held[i].tolist() == out.wild_held
        assert res.wilds_dealt[i].tolist() == out.wilds_dealt  # in the last deal, by player


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 4, {"sevens": True}), ("prague", 3, {}), ("svinya", 2, {}),
    ("czech", 7, {"deck_size": 48, "voluntary_draw": True}),
])
def test_the_simple_path_adapter_plays_what_the_fast_path_plays(variant, players, overrides):
    """The same strategies seen only through ``choose`` (the adapter over the batch) play the same deals as
    through ``choose_batch``, in deals and in matches."""
    rules = make_rules(variant, players, overrides)
    fast = python_forms([get_strategy(LINEUPS[(p + 2) % len(LINEUPS)]) for p in range(players)])
    simple = [SimpleOnly(s) for s in fast]
    a = simulate_deals(rules, fast, 300, seed=8)
    b = simulate_deals(rules, simple, 300, seed=8)
    assert all(a.row(i) == b.row(i) for i in range(300))
    if rules.target is not None:
        ma = simulate_matches(rules, fast, 20, seed=9)
        mb = simulate_matches(rules, simple, 20, seed=9)
        assert (ma.totals == mb.totals).all() and (ma.deals == mb.deals).all()


@pytest.mark.parametrize("variant,players", [("czech", 4), ("prague", 3), ("prague", 5), ("svinya", 2)])
def test_wilds_dealt_counts_the_hands_as_dealt(variant, players):
    """wilds_dealt is the number of wild cards (G4) among each hand's dealt cards (G10a): card i goes to
    seat (i + 1) mod n; prague's dealer turns the last card up as the lead (PR2), so it is not counted."""
    rules = make_rules(variant, players)
    n, h = players, rules.hand_size
    decks = shuffled_decks(rules.deck_size, 400, np.random.default_rng(21))
    res = simulate_deals(rules, [get_strategy("greedy")] * n, len(decks), decks=decks)
    wild = np.array([[c // 4 + 2 == rules.wild_rank for c in d] for d in decks])
    want = np.zeros((len(decks), n), int)
    for i in range(n * h):
        want[:, (i + 1) % n] += wild[:, i]
    if variant == "prague":
        want[:, 0] -= wild[:, n * h - 1]  # the dealer's sixth card is the lead
    by_position = want[:, [(q + 1) % n for q in range(n)]]
    assert np.array_equal(res.wilds_dealt, by_position)
    assert (by_position >= 2).any() and (by_position == 0).any()
    if variant == "prague":
        assert wild[:, n * h - 1].any()  # some dealer led a Jack, which the count left out
