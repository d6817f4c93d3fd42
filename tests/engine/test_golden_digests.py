"""Golden digests: a regression guard on the rules themselves (STYLE.md section 7, pokerkit's md5 pin).

For each variant, the readable engine plays a fixed set of decks with fixed
deterministic strategies; every decision (seat, phase, action, suit) and every
outcome (points, winner, loser, end, turns, last card, turn-overs) is hashed.
The simulators are held equal to the engine by the equivalence tests, so this
one digest per variant pins the game all of them play.

If a change is *meant* to change the rules (a fixed rule bug, a new
interpretation), the digest changes: run this file, check the new game by hand
(``durak replay`` a deal), and replace the hex strings below with the printed
ones in the same commit, saying why.  Any other change that moves a digest is a
regression.  Decks come from a fixed ``SeedSequence`` so the digests do not
depend on numpy's default generator.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from analyzer.core.cards import deck
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, forced_action

DEALS = 150
LINEUP = ("greedy", "wild-keeper", "suit-keeper", "aggressive")

GOLDEN = {
    ("czech", 4, ()): "640cddbe4269ef9c",
    ("czech", 3, (("sevens", True), ("seven_chain", "accumulate"), ("eight_stop", True))): "81392fd4498d5de4",
    ("czech", 2, (("queen_needs_king", True), ("jack_finish_doubles", True))): "71e295394bab87f3",
    ("prague", 3, ()): "1e163e3bcdfbc3aa",
    ("svinya", 2, ()): "657fdf3679211fb4",
}


def digest(variant: str, players: int, options: tuple[tuple[str, object], ...]) -> str:
    rules = make_rules(variant, players, dict(options))
    strategies = [get_strategy(LINEUP[s % len(LINEUP)]) for s in range(players)]
    cards = np.array(deck(rules.deck_size))
    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence([2026, 12, players])))
    h = hashlib.sha256()
    for d in range(DEALS):
        order = [int(c) for c in gen.permutation(cards)]
        deal = Deal.from_deck(rules, order, rng=np.random.default_rng(d))
        while not deal.done:
            seat, phase = deal.current, deal.phase
            action, suit = forced_action(deal), None
            if action is None:
                action, suit = strategies[seat].choose(deal.view(), deal.rng)
            deal.apply(action, suit)
            h.update(f"{seat}{phase}{action}{suit};".encode())
        o = deal.outcome
        assert o is not None
        h.update(repr((o.points, o.winner, o.loser, o.end, o.turns, o.last_card, o.turnovers)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("key", list(GOLDEN), ids=[f"{v}{p}" + "".join(f"-{k}" for k, _ in o) for v, p, o in GOLDEN])
def test_golden_digest(key: tuple[str, int, tuple[tuple[str, object], ...]]) -> None:
    got = digest(*key)
    assert got == GOLDEN[key], f"the game changed: digest {got} (expected {GOLDEN[key]}); see the module docstring"
