"""The game tree with explicit chance plays exactly the readable engine's game (analyzer.exact.position).

Same deck order, same moves: a :class:`Position` fed the deck's cards as its chance outcomes and a
:class:`Deal` dealt that deck agree on the legal moves at every decision and on the outcome, deal by deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from analyzer.core.cards import KING, card_id, deck, rank_of, shuffled_decks
from analyzer.core.outcomes import END_OUT
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.exact.position import CHANCE, NUM_ACTIONS, Position, decode_action
from analyzer.exact.research import research_cards, research_rules

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("czech", 2, {}),
    ("czech", 4, {"sevens": True, "seven_chain": "accumulate", "eight_stop": True}),
    ("czech", 3, {"queen_needs_king": True, "jack_finish_doubles": True, "starter_effects": True}),
    ("czech", 3, {"sevens": True, "last_card_call": True, "forget_rate": 0.5, "reshuffle": "shuffle"}),
    ("prague", 2, {}),
    ("prague", 4, {"serve_last_effect": True, "wild_on_anything": False}),
    ("svinya", 2, {"turn_cap": 80}),
    ("svinya", 2, {"no_card": "draw_one", "voluntary_draw": False}),
]


def _play_both(rules: Any, order: list[int], key: int, rng: np.random.Generator) -> tuple[Position, Deal]:
    """Random moves on a Position fed ``order`` as chance, mirrored on the engine dealt ``order``."""
    pos = Position(rules)
    deal = Deal.from_deck(rules, order, stream_key=key)
    fed = 0
    while not pos.is_terminal():
        if pos.current_player() == CHANCE:
            if pos.needs_key and pos.key is None:
                pos.apply(key)
            else:
                pos.apply(order[fed])
                fed += 1
            continue
        assert (pos.deal.current, pos.deal.phase) == (deal.current, deal.phase)
        legal = pos.legal_actions()
        assert sorted({decode_action(a, rules)[0] for a in legal}) == deal.legal_actions()
        assert all(0 <= a < NUM_ACTIONS for a in legal)
        a = legal[int(rng.integers(len(legal)))]
        pos.apply(a)
        deal.apply(*decode_action(a, rules))
    assert deal.done
    return pos, deal


@pytest.mark.parametrize("variant,players,options", CONFIGS)
def test_same_deck_and_moves_give_the_engines_outcome(variant: str, players: int, options: dict[str, Any]) -> None:
    rules = make_rules(variant, players, options)
    rng = np.random.default_rng(players * 1000 + len(options))
    orders = shuffled_decks(rules.deck_size, 40, rng)
    for i, order in enumerate(orders):
        pos, deal = _play_both(rules, [int(c) for c in order], key=i * 7919 + 1, rng=rng)
        assert pos.deal.outcome.by_position() == deal.outcome.by_position(), f"deck {i}"
        ret = pos.returns()
        o = deal.outcome
        assert abs(sum(ret)) < 1e-9
        if o.winner is not None:
            assert ret[(o.winner - 1) % players] > 0
            assert ret[(o.loser - 1) % players] < 0


def test_a_capped_deal_pays_nothing() -> None:
    rules = make_rules("svinya", 2, {"turn_cap": 3})
    rng = np.random.default_rng(5)
    pos, deal = _play_both(rules, [int(c) for c in shuffled_decks(36, 1, rng)[0]], key=0, rng=rng)
    assert deal.outcome.end == 2 and pos.returns() == [0.0, 0.0]


def test_a_tie_for_the_durak_is_shared() -> None:
    """G9 with the reports' CZ7 sharing: one goes out, the other two hold equal points and share the loss."""
    rules = make_rules("czech", 3)
    kings = [card_id(KING, s) for s in range(4)]
    pos = Position(rules)
    pos.deal = Deal.start(rules, [[kings[0]], [kings[1]], [kings[2]]], [], kings[3])
    pos.deal.hands[1].clear()  # seat 1 (position 0) has gone out
    pos.deal._finish(END_OUT, went_out=1, last_card=kings[1])
    assert pos.returns() == [1.0, -0.5, -0.5]


def test_chance_deals_one_card_at_a_time_from_the_cards_left() -> None:
    rules = research_rules("czech", 2)
    cards = research_cards(rules, 12)
    pos = Position(rules, cards)
    assert [c for c, _ in pos.chance_outcomes()] == list(cards)
    pos.apply(cards[0])
    out = pos.chance_outcomes()
    assert [c for c, _ in out] == list(cards[1:]) and abs(sum(p for _, p in out) - 1) < 1e-12


def test_an_information_key_holds_own_cards_and_public_moves_only() -> None:
    """Two deals differing only in the opponent's hand look the same to position 0, and not to position 1."""
    rules = research_rules("czech", 2)
    cards = research_cards(rules, 12)  # J A K of four suits
    a, b = Position(rules, cards), Position(rules, cards)
    mine, starter = [cards[0], cards[4]], cards[8]
    others = [c for c in cards if c not in (*mine, starter)]
    for p, theirs in ((a, others[:2]), (b, others[2:4])):
        for k in range(2):  # card i goes to position i % 2
            p.apply(mine[k])
            p.apply(theirs[k])
        p.apply(starter)
    assert a.current_player() == 0
    assert a.info_key(0) == b.info_key(0)
    assert a.info_key(1) != b.info_key(1)


def test_research_decks_keep_the_wild_and_the_effect_ranks() -> None:
    czech, prague, svinya = (research_rules(v, 2) for v in ("czech", "prague", "svinya"))
    assert {rank_of(c) for c in research_cards(czech, 12)} == {11, 13, 14}  # J, K, A
    assert {rank_of(c) for c in research_cards(prague, 16)} == {6, 7, 11, 14}  # J, A, 7, 6 (PR5)
    assert {rank_of(c) for c in research_cards(svinya, 20)} == {6, 7, 12, 13, 14}  # Q, A, 7, 6, K (SV5)
    assert len(set(research_cards(czech, 20))) == 20 and set(research_cards(czech, 20)) <= set(deck(52))
