"""Shared helpers for the rules-engine tests (RULES.md ids are cited by the tests).

Cards are written in the project notation (``10S JH QD``); a deal is built with
:func:`make_deal` from hands given as strings, and moves are played with
:func:`play` from replay tokens (``8C``, ``JH>S``, ``draw``, ``take``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from analyzer.core.cards import DRAW, TAKE, card_str, parse_card, parse_cards
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal
from analyzer.engine.replay import parse_token


def C(token: str) -> int:
    """One card id from its token."""
    return parse_card(token)


def cards(text: str) -> list[int]:
    return parse_cards(text) if text.strip() else []


def make_deal(variant: str, hands: Iterable[str], *, talon: str = "", starter: str | None = None,
              starter_suit: str | None = None, seed: int = 0, players: int | None = None,
              **options: Any) -> Deal:
    """Deal.start with hands/talon/starter written as card strings; ``options`` are rule overrides (an option
    that cannot act is kept, as a grid keeps it, so a test can show that it does nothing)."""
    hands = list(hands)
    rules = make_rules(variant, players or len(hands), options, inactive_ok=True)
    suit = None if starter_suit is None else "SCHD".index(starter_suit)
    return Deal.start(rules, [cards(h) for h in hands], cards(talon),
                      None if starter is None else C(starter),
                      rng=np.random.default_rng(seed), starter_suit=suit)


def play(deal: Deal, *tokens: str) -> Deal:
    """Apply replay tokens in order (each must be legal)."""
    for tok in tokens:
        action, suit = parse_token(tok)
        deal.apply(action, suit)
    return deal


def hand(deal: Deal, seat: int) -> set[str]:
    return {card_str(c) for c in deal.hands[seat]}


def top(deal: Deal) -> str | None:
    return None if deal.top is None else card_str(deal.top)


def legal(deal: Deal) -> set[str]:
    """Legal actions as tokens."""
    return {"draw" if a == DRAW else "take" if a == TAKE else card_str(a) for a in deal.legal_actions()}


def strs(ids: Iterable[int]) -> list[str]:
    return [card_str(c) for c in ids]


#: the per-deal result fields two paths must agree on, deal by deal
DEAL_FIELDS = ("points", "turns", "last_card", "turnovers", "winner", "loser", "end")


def assert_deals_alike(a: Any, b: Any, n: int, label: str = "") -> None:
    """Two DealResults of ``n`` deals end every deal alike; the message names the first deal and field that differ."""
    for field in DEAL_FIELDS:
        x, y = getattr(a, field), getattr(b, field)
        bad = np.nonzero(np.any(np.asarray(x).reshape(n, -1) != np.asarray(y).reshape(n, -1), axis=1))[0]
        assert not len(bad), f"{label}deal {bad[0]} differs in {field}: {x[bad[0]]} vs {y[bad[0]]}"
