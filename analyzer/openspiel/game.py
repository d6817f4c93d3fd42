"""czech, prague and svinya as OpenSpiel Python games: one deal each, on the readable engine.

``pyspiel.load_game("durak_czech(players=3,sevens=True)")``: the parameters are ``players`` and every rule
option of the variant by its RULES.md name (docs/rules.md, "Options"), with the variant's defaults; ``deck_size``
0 and ``target`` 0 mean the variant's own (CZ1; no target).  A game is one deal (G9, G10), so ``target`` (G11)
changes nothing in it.  ``cards`` (not a RULES.md option) plays a research deck: card tokens, e.g.
``"JS JC JH JD AS AC AH AD KS KC KH KD"`` (analyzer.exact.research).

Player k is position k (G2: position 0 acts first, the dealer is the last).  The game tree, actions and returns
are :class:`analyzer.exact.position.Position`'s: chance deals the cards one at a time and places talon cards
when they are drawn.  Information-state strings list exactly what a player knows: its own cards as they came
to it, and every public move with the hand sizes and talon after it.  The tensors are fixed-size summaries of
the same knowledge (own hand, cards ever held, cards played, top card, suit, phase, hand sizes, talon), not the
order of events.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from analyzer.core.cards import N_CARDS, parse_cards
from analyzer.core.rules import OPTIONS, PLAYERS, VARIANTS, RuleSet, make_rules
from analyzer.exact.position import CHANCE, NUM_ACTIONS, STREAM_KEYS, TERMINAL, Position, action_text

#: OpenSpiel's value for "the variant's own" where ours is None or depends on the player count.
_OWN = 0
PHASES = ("play", "drawn", "seven", "lead_suit")


def _spec(variant: str) -> dict[str, Any]:
    """The parameter specification of one variant: players, every option (typed defaults), cards."""
    base = make_rules(variant, PLAYERS[variant].start)
    spec: dict[str, Any] = {"players": PLAYERS[variant].start}
    for name, (kind, _, defaults) in OPTIONS.items():
        if variant not in defaults:
            continue
        value = defaults[variant]
        if name == "deck_size" or (kind == "target" and value is None):
            value = _OWN
        elif kind == "float":
            value = float(value)
        elif value is None:
            value = getattr(base, name)
        spec[name] = value
    spec["cards"] = ""
    return spec


def rules_of(variant: str, params: dict[str, Any]) -> tuple[RuleSet, tuple[int, ...] | None]:
    """The rule set and research deck (None: the rules' deck) of OpenSpiel parameters."""
    p = dict(params)
    players = int(p.pop("players"))
    cards_text = str(p.pop("cards", "") or "")
    over: dict[str, Any] = {}
    for k, v in p.items():
        if k in ("deck_size", "target") and v == _OWN:
            continue
        over[k] = v
    if variant == "czech" and "target" not in over:
        over["target"] = None
    cards = tuple(parse_cards(cards_text)) if cards_text else None
    if cards is not None and "deck_size" not in over:
        # the hand-size check of make_rules is against the research deck, which is no RULES.md size
        rules = make_rules(variant, players, {**over, "deck_size": 52})
        return rules, cards
    return make_rules(variant, players, over), cards


class DurakGame(pyspiel.Game):
    """One deal of a variant (see the module docstring)."""

    def __init__(self, variant: str, params: dict[str, Any] | None = None) -> None:
        full = {**_spec(variant), **(params or {})}
        self.rules, self.cards = rules_of(variant, full)
        n = self.rules.players
        size = len(self.cards) if self.cards is not None else self.rules.deck_size
        key = self.rules.reshuffle == "shuffle" or self.rules.last_card_call
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=max(N_CARDS, STREAM_KEYS if key else 0),
            num_players=n, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.rules.turn_cap * (size + 3) + size + 1)
        super().__init__(GAME_TYPES[variant], info, full)

    def new_initial_state(self) -> DurakState:
        return DurakState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> DurakObserver:
        return DurakObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params)


class DurakState(pyspiel.State):
    """A :class:`Position` behind OpenSpiel's state interface."""

    def __init__(self, game: DurakGame, position: Position | None = None) -> None:
        super().__init__(game)
        self.position = position if position is not None else Position(game.rules, game.cards)

    def current_player(self) -> int:
        p = self.position.current_player()
        if p == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if p == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return p

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_actions() if player == self.position.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.position.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.position.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            return f"chance:{action}"
        return action_text(int(action), self.position.rules)

    def is_terminal(self) -> bool:
        return self.position.is_terminal()

    def returns(self) -> list[float]:
        return self.position.returns()

    def __str__(self) -> str:
        p = self.position
        if p.deal is None:
            return f"dealing: {len(p.dealt)} cards dealt"
        d = p.deal
        hands = " | ".join(" ".join(action_text(c, p.rules) for c in p.hand(q)) for q in range(p.n))
        top = action_text(d.top, p.rules) if d.top is not None else "-"
        return f"hands {hands}; top {top}; talon {len(d.talon)}; phase {d.phase}; moves {len(p.public)}"


class DurakObserver:
    """Observations as strings and flat tensors with named views (OpenSpiel's PyObserver interface)."""

    def __init__(self, iig_obs_type: Any, game: DurakGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        n = game.rules.players
        pieces = [("player", n), ("top", N_CARDS), ("active_suit", 4), ("phase", len(PHASES)),
                  ("hand_sizes", n), ("talon", 1), ("played", N_CARDS)]
        if self.private:
            pieces += [("hand", N_CARDS), ("held", N_CARDS)]
        self.tensor = np.zeros(sum(s for _, s in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        i = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[i:i + size]
            i += size

    def set_from(self, state: DurakState, player: int) -> None:
        self.tensor.fill(0)
        p = state.position
        self.dict["player"][player] = 1
        if self.private:
            for c in p.hand(player):
                self.dict["hand"][c] = 1
            for _, c in p.private[player]:
                self.dict["held"][c] = 1
        d = p.deal
        if d is None:
            return
        if d.top is not None:
            self.dict["top"][d.top] = 1
        if d.active_suit is not None:
            self.dict["active_suit"][d.active_suit] = 1
        if d.phase in PHASES:
            self.dict["phase"][PHASES.index(d.phase)] = 1
        for q in range(p.n):
            self.dict["hand_sizes"][q] = len(p.hand(q))
        self.dict["talon"][0] = len(d.talon)
        for c in d.played:
            self.dict["played"][c] = 1

    def string_from(self, state: DurakState, player: int) -> str:
        p = state.position
        if self.perfect_recall:
            got: dict[int, list[str]] = {}
            for idx, c in p.private[player] if self.private else []:
                got.setdefault(idx, []).append(action_text(c, p.rules))
            events = [f"p{player}"]
            for i, (actor, text, sizes, talon) in enumerate(p.public):
                who = "start" if actor == CHANCE else f"p{actor}"
                line = f"{who} {text} sizes {'/'.join(map(str, sizes))} talon {talon}"
                events.append(line + (f" got {' '.join(got.pop(i))}" if i in got else ""))
            if got:  # cards dealt before the deal started
                events.append("got " + " ".join(t for ts in got.values() for t in ts))
            return "; ".join(events)
        d = p.deal
        hand = " ".join(action_text(c, p.rules) for c in p.hand(player)) if self.private else "?"
        if d is None:
            return f"p{player} hand {hand} dealing"
        top = action_text(d.top, p.rules) if d.top is not None else "-"
        size_text = "/".join(str(len(p.hand(q))) for q in range(p.n))
        suit = "-" if d.active_suit is None else "SCHD"[d.active_suit]
        return f"p{player} hand {hand} top {top} suit {suit} phase {d.phase} sizes {size_text} talon {len(d.talon)}"


def _game_type(variant: str) -> pyspiel.GameType:
    r = PLAYERS[variant]
    return pyspiel.GameType(
        short_name=f"durak_{variant}", long_name=f"Durak ({variant}), one deal",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=r.stop - 1, min_num_players=r.start,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_spec(variant))


GAME_TYPES = {v: _game_type(v) for v in VARIANTS}


def _factory(variant: str) -> type[DurakGame]:
    """A game class of one variant, as pyspiel.register_game wants it (a callable of the parameters)."""

    class _Game(DurakGame):
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(variant, params)

    _Game.__name__ = _Game.__qualname__ = f"Durak{variant.capitalize()}Game"
    return _Game


GAMES = {v: _factory(v) for v in VARIANTS}


def register() -> None:
    """Register durak_czech, durak_prague and durak_svinya with pyspiel (once)."""
    known = set(pyspiel.registered_names())
    for v in VARIANTS:
        if f"durak_{v}" not in known:
            pyspiel.register_game(GAME_TYPES[v], GAMES[v])
