"""Scenario files: replay a deal card by card (PR8).

A scenario (TOML) gives the variant, the players, optional rule overrides, the
hands (seat 0 = dealer), the starter, the talon (top first; unlisted cards
follow in id order) and one token per decision of the player to act:
``8C``, ``JH>S`` (a wild and the suit it names), ``draw`` or ``take``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.core.cards import DRAW, TAKE, CardError, card_str, deck, parse_card, parse_suit, rank_of
from analyzer.core.inputs import loads_toml, read_user_text
from analyzer.core.rules import RulesError, RuleSet, make_rules
from analyzer.engine.deal import Deal, DealOutcome, IllegalMove


class ScenarioError(ValueError):
    """A malformed scenario or an illegal move in it; the message is one line."""


@dataclass
class Scenario:
    rules: RuleSet
    names: list[str]
    hands: list[list[int]]
    starter: int | None
    starter_suit: int | None
    talon: list[int]
    moves: list[str]
    source: str = "<scenario>"
    #: a fault scenario: the moves end at the decision where a strategy failed (this text)
    fault: str | None = None
    #: the deal's random stream key (reshuffle=shuffle, forget_rate), as the simulator used it
    stream_key: int | None = None


def parse_token(token: str) -> tuple[int, int | None]:
    """``8C`` -> (card, None); ``JH>S`` -> (card, suit); ``draw``/``take``."""
    t = str(token).strip()
    low = t.lower()
    if low == "draw":
        return DRAW, None
    if low == "take":
        return TAKE, None
    if ">" in t:
        c, s = t.split(">", 1)
        return parse_card(c), parse_suit(s)
    return parse_card(t), None


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; ScenarioError names the file and the key."""
    p = Path(path)
    try:
        data = loads_toml(read_user_text(p))  # bounded: size, file kind, nesting depth
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such file") from None
    except OSError as exc:
        raise ScenarioError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{p}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{p}: not valid TOML: {exc}") from None
    return scenario_from_dict(data, str(p))


def _need(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise ScenarioError(f"{where}: missing key {key!r}")
    v = data[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise ScenarioError(f"{where}: key {key!r} must be {kind.__name__}, got {v!r}")
    return v


def scenario_from_dict(data: dict[str, Any], source: str = "<scenario>") -> Scenario:
    known = {"variant", "players", "names", "rules", "deal", "fault"}
    for k in data:
        if k not in known:
            raise ScenarioError(f"{source}: unknown key {k!r}; known: {', '.join(sorted(known))}")
    variant = _need(data, "variant", str, source)
    players = _need(data, "players", int, source)
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ScenarioError(f"{source}: [rules] must be a table of option = value")
    try:
        rules = make_rules(variant, players, overrides)
    except RulesError as exc:
        raise ScenarioError(f"{source}: {exc}") from None
    names = data.get("names", [f"seat {i}" for i in range(players)])
    if not isinstance(names, list) or len(names) != players or not all(isinstance(x, str) for x in names):
        raise ScenarioError(f"{source}: key 'names' must list {players} names")
    d = _need(data, "deal", dict, source)
    for k in d:
        if k not in {"hands", "starter", "talon", "moves", "stream"}:
            raise ScenarioError(f"{source}: unknown key 'deal.{k}'")
    raw_hands = _need(d, "hands", list, source + " [deal]")
    if len(raw_hands) != players or not all(isinstance(h, list) for h in raw_hands):
        raise ScenarioError(f"{source}: key 'deal.hands' must hold {players} lists of cards")
    allowed = set(deck(rules.deck_size))
    seen: dict[int, str] = {}

    def card(tok: Any, key: str) -> int:
        try:
            c = parse_card(str(tok))
        except CardError as exc:
            raise ScenarioError(f"{source}: key {key!r}: {exc}") from None
        if c not in allowed:
            raise ScenarioError(f"{source}: key {key!r}: {card_str(c)} is not in the {rules.deck_size}-card deck")
        if c in seen:
            raise ScenarioError(f"{source}: key {key!r}: {card_str(c)} is dealt twice (also in {seen[c]})")
        seen[c] = key
        return c

    hands = [[card(t, f"deal.hands[{s}]") for t in h] for s, h in enumerate(raw_hands)]
    starter = starter_suit = None
    if rules.starter_kind == "none":
        if "starter" in d:
            raise ScenarioError(f"{source}: key 'deal.starter': {variant} turns no card up (SV2)")
    else:
        tok = str(_need(d, "starter", str, source + " [deal]"))
        if ">" in tok:
            c_tok, s_tok = tok.split(">", 1)
            starter = card(c_tok, "deal.starter")
            try:
                starter_suit = parse_suit(s_tok)
            except CardError as exc:
                raise ScenarioError(f"{source}: key 'deal.starter': {exc}") from None
            if rank_of(starter) != rules.wild_rank or not (rules.starter_effects and rules.starter_kind == "dealer_lead"):
                raise ScenarioError(f"{source}: key 'deal.starter': only a prague Jack lead with starter_effects names a suit")
        else:
            starter = card(tok, "deal.starter")
    raw_talon = d.get("talon", [])
    if not isinstance(raw_talon, list):
        raise ScenarioError(f"{source}: key 'deal.talon' must be a list of cards, got {raw_talon!r}")
    talon = [card(t, f"deal.talon[{i}]") for i, t in enumerate(raw_talon)]
    talon += sorted(allowed - set(seen))  # unlisted cards follow in id order
    moves = d.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ScenarioError(f"{source}: key 'deal.moves' must be a list of tokens")
    fault = data.get("fault")
    if fault is not None and not isinstance(fault, str):
        raise ScenarioError(f"{source}: key 'fault' must be a text, got {fault!r}")
    stream_key = None
    if "stream" in d:
        raw = d["stream"]
        try:
            stream_key = int(raw, 16) if isinstance(raw, str) else None
        except ValueError:
            stream_key = None
        if stream_key is None or not 0 <= stream_key < 2**64:
            raise ScenarioError(f"{source}: key 'deal.stream' must be a hex text like \"0x1f\", got {raw!r}")
    return Scenario(rules, names, hands, starter, starter_suit, talon, moves, source, fault, stream_key)


def start_deal(sc: Scenario, seed: int = 0) -> Deal:
    suit = sc.starter_suit
    if sc.starter is not None and suit is None and rank_of(sc.starter) == sc.rules.wild_rank:
        suit = sc.starter % 4  # a bare Jack lead names its own suit
    return Deal.start(sc.rules, sc.hands, sc.talon, sc.starter, rng=np.random.default_rng(seed),
                      names=sc.names, starter_suit=suit, stream_key=sc.stream_key)


def replay(sc: Scenario, seed: int = 0) -> tuple[Deal, DealOutcome | None]:
    """Play the scenario's tokens; ScenarioError names the token index, player, move and reason.

    A fault scenario (``fault`` set) stops at the faulty decision: the outcome
    is then None and :func:`fault_state` describes where the deal stands.
    """
    deal = start_deal(sc, seed)
    for i, tok in enumerate(sc.moves):
        if deal.done:
            raise ScenarioError(f"{sc.source}: move {i} ({tok!r}): the deal is already over; "
                                f"{len(sc.moves) - i} token(s) left over")
        who = sc.names[deal.current]
        try:
            action, suit = parse_token(tok)
        except CardError as exc:
            raise ScenarioError(f"{sc.source}: move {i} ({tok!r}) by {who}: {exc}") from None
        try:
            deal.apply(action, suit)
        except IllegalMove as exc:
            raise ScenarioError(f"{sc.source}: move {i} ({tok!r}) by {who}: illegal: {exc}") from None
    if not deal.done and sc.fault is not None:
        return deal, None
    if not deal.done:
        raise ScenarioError(f"{sc.source}: move {len(sc.moves)} missing: the deal is not over; "
                            f"{sc.names[deal.current]} is to act (legal: "
                            + " ".join(_tok(a) for a in deal.legal_actions()) + ")")
    assert deal.outcome is not None
    return deal, deal.outcome


def _tok(a: int) -> str:
    return "draw" if a == DRAW else "take" if a == TAKE else card_str(a)


def fault_state(sc: Scenario, deal: Deal) -> list[str]:
    """Where a fault scenario stops: who is to act, with what, on what, and what went wrong."""
    n = sc.rules.players
    s = deal.current
    top = deal.top
    suit = "" if deal.active_suit is None or top is None or deal.active_suit == top % 4 \
        else f" ({'SCHD'[deal.active_suit]} named)"
    who = sc.names[s] if sc.names[s].startswith("position ") else f"{sc.names[s]} (position {(s - 1) % n})"
    lines = [f"stopped at the faulty decision ({deal.phase}), move {len(sc.moves)}: {who} is to act",
             f"hand: {' '.join(card_str(c) for c in sorted(deal.hands[s])) or '-'}; top: "
             f"{'-' if top is None else card_str(top)}{suit}; talon: {len(deal.talon)} cards",
             "legal: " + " ".join(_tok(a) for a in deal.legal_actions())]
    if sc.fault:
        lines.append(f"fault: {sc.fault}")
    return lines


def fault_json(sc: Scenario, deal: Deal) -> dict[str, Any]:
    """The replay JSON of a fault scenario: the state at the faulty decision, by position."""
    n, s = sc.rules.players, deal.current
    return {"variant": sc.rules.variant, "stopped_at_fault": True, "moves": len(sc.moves),
            "position_to_act": (s - 1) % n, "phase": deal.phase,
            "hand": [card_str(c) for c in sorted(deal.hands[s])],
            "top": None if deal.top is None else card_str(deal.top),
            "legal": [_tok(a) for a in deal.legal_actions()], "fault": sc.fault}


def outcome_json(sc: Scenario, out: DealOutcome) -> dict[str, Any]:
    """The replay JSON, numbered by *position* like every output (position 0 acts first, the dealer last).

    The scenario file lists hands by seat from the dealer (seat 0, G2); here
    ``names[q]`` and ``points[q]`` belong to position ``q`` = seat ``q + 1``.
    """
    n = sc.rules.players
    seats = [(q + 1) % n for q in range(n)]

    def pos(seat: int | None) -> int | None:
        return None if seat is None else (seat - 1) % n

    return {"variant": sc.rules.variant, "names": [sc.names[s] for s in seats],
            "points": [out.points[s] for s in seats], "went_out": pos(out.went_out),
            "loser": pos(out.loser), "wild_holders": sorted(pos(s) for s in out.wild_holders),
            "blocked": out.end == 1, "capped": out.end == 2, "turns": out.turns,
            "winner": pos(out.winner)}
