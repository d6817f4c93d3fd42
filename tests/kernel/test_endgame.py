"""The exact endgame (analyzer.kernel.endgame) against a brute-force minimax over the readable engine.

Small deals of perfect information (every card in a hand, the talon or the pile: a few cards each, a short
talon, a low turn cap so that every line ends) are solved both ways; every candidate action must get the
same value for the player to act: +1 a win, -1 a loss, 0 a capped deal (G10).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from analyzer.core.cards import DRAW, TAKE
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.kernel.endgame import MAX_OPTIONS, new_table, options, solve_actions
from analyzer.kernel.params import rule_params
from analyzer.kernel.positions import encode_deal


def state_of(deal: Deal) -> tuple:
    """Everything of an engine deal that decides what follows (the memo's key)."""
    return (tuple(map(tuple, deal.hands)), tuple(deal.talon), tuple(deal.pile), deal.current, deal.phase,
            deal.active_suit, deal.pending_draw, deal.pending_skip, deal.pending_seven, deal.drawn_card,
            deal.drew_this_turn, deal.stuck, deal.turns, deal.done)


def brute(deal: Deal, me: int, memo: dict | None = None) -> int:
    """Minimax over the engine: ``me`` maximises, every other seat minimises; every action, a wild once per suit
    (positions met again are looked up in ``memo``)."""
    if deal.done:
        out = deal.outcome
        assert out is not None
        return 1 if out.winner == me else -1 if out.loser == me else 0
    memo = {} if memo is None else memo
    key = state_of(deal)
    if key in memo:
        return memo[key]
    hand = deal.hands[deal.current]
    values = []
    for a in deal.legal_actions():
        names = a not in (DRAW, TAKE) and deal.is_wild(a) and (deal.phase == "lead_suit" or len(hand) > 1)
        for suit in (range(4) if names else [None]):
            child = copy.deepcopy(deal)
            child.apply(a, suit)
            values.append(brute(child, me, memo))
    memo[key] = max(values) if deal.current == me else min(values)
    return memo[key]


def solve(deal: Deal, p: np.ndarray, budget: int, tk: np.ndarray, tv: np.ndarray) -> tuple[bool, list, list[int]]:
    """The solver on the deal's position: whether every action is proven, the actions, their values."""
    pos = encode_deal(deal)
    opts = np.zeros((MAX_OPTIONS, 2), np.int64)
    k = options(pos.st[0], pos.m[0], p, opts)
    values = np.zeros(k, np.int64)
    solved, _nodes = solve_actions(pos.st[0], pos.m[0], pos.ring[0], opts[:k, 0].copy(), opts[:k, 1].copy(), k, p,
                                   deal.current, budget, values, tk, tv)
    return bool(solved), opts[:k].tolist(), values.tolist()


def small_deal(rules, rng: np.random.Generator, most: int = 3, talon: int = 2) -> Deal:
    """A deal of a few cards: hands of 1 to ``most``, a talon of 0 to ``talon``, the starter; the rest of the deck
    is out of play."""
    deck = rng.permutation(rules.deck_size).tolist()
    h0, h1, t = int(rng.integers(1, most + 1)), int(rng.integers(1, most + 1)), int(rng.integers(0, talon + 1))
    hands = [deck[:h0], deck[h0:h0 + h1]]
    talon = deck[h0 + h1:h0 + h1 + t]
    return Deal.start(rules, hands, talon, deck[h0 + h1 + t])


CONFIGS = [("czech", {}), ("czech", {"sevens": True, "eight_stop": True}), ("czech", {"queen_needs_king": True}),
           ("czech", {"sevens": True, "seven_chain": "accumulate"}), ("prague", {})]


@pytest.mark.parametrize("variant,options_,most,talon,cap,count", [(v, o, 3, 2, 9, 40) for v, o in CONFIGS] + [
    ("czech", {}, 6, 6, 24, 30), ("czech", {"eight_stop": True, "queen_needs_king": True}, 6, 6, 24, 30)])
def test_the_exact_values_are_the_engine_minimax(variant: str, options_: dict, most: int, talon: int, cap: int,
                                                 count: int) -> None:
    """Short deals under five rule configurations, and longer ones (hands of up to six, lines of up to 24 turns:
    past the first passes of the iterative deepening, where a table entry must hold for the depth asked)."""
    rules = make_rules(variant, 2, {**options_, "turn_cap": cap})
    p = rule_params(rules)
    rng = np.random.default_rng(7)
    tk, tv = new_table()
    checked = wins = losses = 0
    while checked < count:
        deal = small_deal(rules, rng, most, talon)
        if deal.done or not deal.has_choice():
            continue
        solved, acts, values = solve(deal, p, 1_000_000, tk, tv)
        me = deal.current
        expect = []
        memo: dict = {}
        for a, s in acts:
            child = copy.deepcopy(deal)
            child.apply(a, None if s < 0 else s)
            expect.append(brute(child, me, memo))
        assert values == expect, (deal.hands, deal.talon, deal.pile, acts)
        assert solved == all(v != 0 for v in expect)
        wins += expect.count(1)
        losses += expect.count(-1)
        checked += 1
    assert wins and losses  # the positions are not all one-sided


def test_a_budget_too_small_proves_nothing_false() -> None:
    """Out of budget, the values kept are those of the last complete pass: a proven value is never wrong."""
    rules = make_rules("czech", 2, {"turn_cap": 9})
    p = rule_params(rules)
    rng = np.random.default_rng(3)
    tk, tv = new_table()
    cut = 0
    for _ in range(30):
        deal = small_deal(rules, rng)
        if deal.done or not deal.has_choice():
            continue
        tk[:] = 0
        solved, acts, values = solve(deal, p, 3, tk, tv)
        cut += not solved
        for (a, s), v in zip(acts, values):
            if v:
                child = copy.deepcopy(deal)
                child.apply(a, None if s < 0 else s)
                assert brute(child, deal.current) == v
    assert cut  # the budget did bind
