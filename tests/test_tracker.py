"""``tracker`` (issue 13 item 3): uses known voids of the next player; plays weighted without history."""

from __future__ import annotations

import numpy as np

from analyzer.core.cards import DRAW, parse_card, suit_of
from analyzer.core.registry import get_strategy
from analyzer.knowledge.observer import Knowledge, Public
from analyzer.knowledge.table import public_table
from strategies.tracker import Tracker, known_voids
from tests.helpers_engine import make_deal, play


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
