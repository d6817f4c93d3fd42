"""Reproducing a strategy fault as a scenario file (issue 6, point 2).

When a strategy raises or returns an illegal move inside the batch simulator,
the deal is played again in the rules engine from the same deck order with the
same strategies, recording one token per decision.  The tokens up to the
faulty decision, with the hands, starter and talon, make a scenario file that
``durak replay`` plays to exactly that point.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from analyzer.core.cards import DRAW, TAKE, card_str
from analyzer.engine.deal import Deal, IllegalMove, deal_hands, forced_action
from analyzer.core.rules import RuleSet


def token(action: int, suit: int | None) -> str:
    """The replay token of an action: ``8C``, ``JH>S``, ``draw`` or ``take``."""
    if action == DRAW:
        return "draw"
    if action == TAKE:
        return "take"
    return card_str(action) + ("" if suit is None else ">" + "SCHD"[suit])


def _toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(s) for s in items) + "]"


def reproduce(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
              rng_seed: int = 0) -> tuple[list[str], str | None, int | None]:
    """Play the deal in the engine; return the tokens before the first fault, its description,
    and the suit the dealer named for a prague Jack lead (it belongs in the starter token)."""
    hands, starter, talon = deal_hands(list(deck), rules)
    rng = np.random.default_rng(rng_seed)
    deal = Deal.start(rules, hands, talon, starter, rng=rng)
    tokens: list[str] = []
    lead_suit: int | None = None
    while not deal.done:
        forced = forced_action(deal)
        if forced is not None:
            deal.apply(forced)
            tokens.append(token(forced, None))
            continue
        strat = seat_strategies[deal.current]
        name = getattr(strat, "name", repr(strat))
        try:
            action, suit = strat.choose(deal.view(), rng)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 — the fault being reproduced
            return tokens, f"strategy {name!r} raised {type(exc).__name__}: {exc}", lead_suit
        leading = deal.phase == "lead_suit"
        try:
            s = None if suit is None or int(suit) < 0 else int(suit)
            deal.apply(int(action), s)
        except (IllegalMove, TypeError, ValueError) as exc:
            return tokens, f"strategy {name!r} returned {action!r}, {suit!r}: {exc}", lead_suit
        if leading:
            lead_suit = s
        else:
            tokens.append(token(int(action), s))
    return tokens, None, lead_suit


def write_fault_scenario(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
                         folder: Path, label: str) -> tuple[Path, bool]:
    """Reproduce the deal in the engine and write it; return the path and whether the fault recurred."""
    tokens, fault, lead_suit = reproduce(rules, seat_strategies, deck)
    note = fault or "the engine did not meet the fault again (a random strategy?); all moves of its own replay are listed"
    return _write(rules, seat_strategies, deck, tokens, lead_suit, folder, label, note), fault is not None


def write_trace_scenario(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
                         tokens: Sequence[str], lead_suit: int | None, folder: Path, label: str) -> Path:
    """Write the simulator's own trace of the deal, up to the faulty decision."""
    return _write(rules, seat_strategies, deck, tokens, lead_suit, folder, label,
                  "the moves the simulator played, up to the decision where the strategy failed")


def _write(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int], tokens: Sequence[str],
           lead_suit: int | None, folder: Path, label: str, note: str) -> Path:
    """``folder/fault-<label>.toml``: hands, starter, talon and tokens (written atomically)."""
    hands, starter, talon = deal_hands(list(deck), rules)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"fault-{label}.toml"
    names = [f"seat {s} ({getattr(st, 'name', st)})" for s, st in enumerate(seat_strategies)]
    lines = [
        f"# Replays the deal up to the faulty decision: durak replay {path}",
        f"# {note}",
        f'variant = "{rules.variant}"',
        f"players = {rules.players}",
        f"names = {_toml_list(names)}",
        "[rules]",
        *[f"{k} = {json.dumps(v) if v is not None else json.dumps('none')}" for k, v in rules.changed().items()],
        "[deal]",
        "hands = [" + ", ".join(_toml_list([card_str(c) for c in h]) for h in hands) + "]",
    ]
    if starter is not None:
        named = "" if lead_suit is None or lead_suit < 0 else ">" + "SCHD"[lead_suit]
        lines.append(f'starter = "{card_str(starter)}{named}"')
    lines += [f"talon = {_toml_list([card_str(c) for c in talon])}", f"moves = {_toml_list(list(tokens))}", ""]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(path)
    return path
