"""knowledge.table's copies of a deal: a copy of a deal that records its public history
(engine.record.DealRecord) records on its own, never into the original's record."""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.knowledge.table import copy_deal, public_table


def history_of(deal: Deal) -> tuple:
    """What the player to act is shown of the history, field by field."""
    h = deal.view(history=True).history
    assert h is not None
    return (h.pile, h.seen, h.known, h.cannot_hold, h.hidden, h.talon, h.drawn, h.passes, tuple(h.events), h.slots,
            h.talon_may)


def first_legal(deal: Deal) -> tuple[int, None]:
    return deal.legal_actions()[0], None


def test_a_copy_of_a_recording_deal_keeps_its_own_record() -> None:
    """Moves made on copy_deal's copy (and a public table's) change the copy's history as the same moves change
    a deal played straight through, and leave the original's history as it was."""
    rules = make_rules("czech", 3, {"voluntary_draw": True})
    order = shuffled_decks(rules.deck_size, 1, np.random.default_rng(2))[0].tolist()
    deal, straight = Deal.from_deck(rules, order, record=True), Deal.from_deck(rules, order, record=True)
    for _ in range(6):
        action = first_legal(deal)
        deal.apply(*action)
        straight.apply(*action)
    before = history_of(deal)
    table = public_table(deal, deal.current)
    assert table.public is not deal.public and table.public is not None
    other = copy_deal(deal)
    moves = 0
    while not other.done and moves < 12:
        action = first_legal(other)
        other.apply(*action)
        straight.apply(*action)
        moves += 1
    assert moves > 3
    assert history_of(deal) == before, "a move on the copy reached the original deal's record"
    assert history_of(other) == history_of(straight)
    assert history_of(other) != before
