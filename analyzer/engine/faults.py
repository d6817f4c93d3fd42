"""Reproducing a strategy fault as a scenario file.

When a strategy raises or returns an illegal move inside the batch simulator,
the deal is played again in the rules engine from the same deck order with the
same strategies, recording one token per decision.  The tokens up to the
faulty decision, with the hands, starter and talon, make a scenario file that
``durak replay`` plays to exactly that point.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analyzer.core.cards import action_token, card_str
from analyzer.core.contract import StrategyError
from analyzer.core.public import reads_history
from analyzer.core.rules import RuleSet
from analyzer.engine.deal import Deal, MoveHistory, deal_hands, play_deal

#: The replay token of an action (kept under its old name for callers).
token = action_token


def _toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(s) for s in items) + "]"


def reproduce(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
              rng_seed: int = 0, stream_key: int | None = None) -> tuple[list[str], str | None, int | None]:
    """Play the deal in the engine (the engine's one play loop, deal.play_deal); return the tokens
    before the first fault, its description, and the suit the dealer named for a prague Jack lead
    (it belongs in the starter token)."""
    hands, starter, talon = deal_hands(list(deck), rules)
    rng = np.random.default_rng(rng_seed)
    deal = Deal.start(rules, hands, talon, starter, rng=rng, stream_key=stream_key,
                      record=reads_history(seat_strategies))
    history = MoveHistory()
    try:
        play_deal(deal, seat_strategies, rng, history=history)
    except StrategyError as exc:
        return history.tokens, str(exc), history.lead_suit
    return history.tokens, None, history.lead_suit


def write_fault_scenario(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
                         folder: Path, label: str, stream_key: int | None = None,
                         message: str = "") -> tuple[Path, bool]:
    """Reproduce the deal in the engine and write it; return the path and whether the fault recurred."""
    tokens, fault, lead_suit = reproduce(rules, seat_strategies, deck, stream_key=stream_key)
    note = fault or ("the engine did not meet the fault again (a random strategy?); "
                     "all moves of its own replay are listed")
    path = _write(rules, seat_strategies, deck, tokens, lead_suit, folder, label, note, stream_key,
                  (message or fault) if fault else None)
    return path, fault is not None


def write_trace_scenario(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int],
                         tokens: Sequence[str], lead_suit: int | None, folder: Path, label: str,
                         stream_key: int | None = None, message: str = "") -> Path:
    """Write the simulator's own trace of the deal, up to the faulty decision."""
    return _write(rules, seat_strategies, deck, tokens, lead_suit, folder, label,
                  "the moves the simulator played, up to the decision where the strategy failed", stream_key,
                  message or "the strategy failed at the next decision")


def _write(rules: RuleSet, seat_strategies: Sequence[object], deck: Sequence[int], tokens: Sequence[str],
           lead_suit: int | None, folder: Path, label: str, note: str, stream_key: int | None,
           fault: str | None) -> Path:
    """``folder/fault-<label>.toml`` (``-2``, ``-3``... if taken: a fault never overwrites another).

    Hands are listed from the dealer (seat 0, who acts last: position n-1);
    names say each seat's *position* (0 acts first, G2), as messages and
    tables do.  ``fault`` marks that the moves end at the faulty decision
    (``durak replay`` then stops there and shows the state); ``stream`` keys
    the deal's random stream (reshuffle=shuffle, forget_rate).
    """
    hands, starter, talon = deal_hands(list(deck), rules)
    folder.mkdir(parents=True, exist_ok=True)
    n = rules.players
    names = [f"position {(s - 1) % n} ({getattr(st, 'name', st)})" for s, st in enumerate(seat_strategies)]
    lines = [
        "# Replays the deal up to the faulty decision: durak replay THIS_FILE",
        f"# {note}",
        "# hands are listed from the dealer (position n-1) on; position 0 acts first",
        f'variant = "{rules.variant}"',
        f"players = {rules.players}",
        f"names = {_toml_list(names)}",
    ]
    if fault is not None:
        lines.append(f"fault = {json.dumps(fault)}")
    lines += [
        "[rules]",
        *[f"{k} = {json.dumps(v) if v is not None else json.dumps('none')}" for k, v in rules.changed().items()],
        "[deal]",
        "hands = [" + ", ".join(_toml_list([card_str(c) for c in h]) for h in hands) + "]",
    ]
    if starter is not None:
        named = "" if lead_suit is None or lead_suit < 0 else ">" + "SCHD"[lead_suit]
        lines.append(f'starter = "{card_str(starter)}{named}"')
    lines += [f"talon = {_toml_list([card_str(c) for c in talon])}", f"moves = {_toml_list(list(tokens))}"]
    if stream_key is not None:
        lines.append(f'stream = "{stream_key:#x}"')
    return _write_unique(folder, f"fault-{label}", "\n".join(lines) + "\n")


def _write_unique(folder: Path, stem: str, text: str) -> Path:
    """Write ``text`` to ``stem.toml`` or the first free ``stem-K.toml``: complete files only
    (written aside, then hard-linked, which fails rather than replaces), safe across processes."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, prefix=".fault-", suffix=".tmp",
                                     delete=False) as tmp:
        tmp.write(text.replace("THIS_FILE", "<path>"))
    try:
        for k in range(1, 10_000):
            path = folder / (f"{stem}.toml" if k == 1 else f"{stem}-{k}.toml")
            Path(tmp.name).write_text(text.replace("THIS_FILE", str(path)), encoding="utf-8")
            try:
                os.link(tmp.name, path)
            except FileExistsError:
                continue
            return path
        raise FileExistsError(f"{folder}: too many fault files named {stem}")
    finally:
        os.unlink(tmp.name)
