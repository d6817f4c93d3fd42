"""Our strategies as OpenSpiel bots, and one table for our strategies and OpenSpiel's bots together.

:func:`bot` wraps any strategy spec (``greedy``, ``weighted?w_wild=-2``, ``pimc``, a plugin path) as a
``pyspiel.Bot`` that plays a position of our games from the engine's own strategy view, exactly as the engine
asks it (forced moves are played without asking, as :func:`analyzer.engine.deal.play_deal` does).
:func:`play` seats spec strings and ready ``pyspiel.Bot`` objects (OpenSpiel's MCTS, ISMCTS, policy bots, ...)
at one table, which is how an OpenSpiel bot plays as one of our strategies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from analyzer.core.contract import StrategyError, describe_action
from analyzer.core.registry import get_strategy
from analyzer.engine.deal import checked_answer
from analyzer.exact.position import encode_action
from analyzer.openspiel.game import DurakState


class StrategyBot(pyspiel.Bot):
    """A strategy of ours seated at ``player`` (a position); ``rng`` is its own stream."""

    def __init__(self, player: int, strategy: object, rng: np.random.Generator) -> None:
        pyspiel.Bot.__init__(self)
        self._player = player
        self.strategy = strategy
        self.rng = rng
        self.history = getattr(strategy, "uses_history", False) is True

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset: every decision reads the state afresh."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """The strategy sees the whole view at its next decision; nothing to track."""

    def provides_policy(self) -> bool:
        return False

    def step(self, state: pyspiel.State) -> int:
        if not isinstance(state, DurakState):
            raise TypeError("a strategy bot plays durak_czech, durak_prague or durak_svinya states")
        pos = state.position
        legal = pos.legal_actions()
        if len(legal) == 1:
            return legal[0]
        source = pos.replayed(record=True) if self.history else pos
        view = source.view(history=self.history)
        name = getattr(self.strategy, "name", repr(self.strategy))
        action, suit = checked_answer(self.strategy.choose(view, self.rng), name)  # type: ignore[attr-defined]
        d = pos.deal
        assert d is not None
        code = encode_action(action, suit, pos.rules, last_card=len(d.hands[d.current]) == 1)
        if code not in legal:
            raise StrategyError(f"strategy {name!r} returned an illegal move {describe_action(action, suit)}")
        return code


def bot(game: pyspiel.Game, player: int, spec: str, seed: int) -> StrategyBot:
    """A ``pyspiel.Bot`` playing strategy ``spec`` as position ``player`` of ``game``, seeded by ``seed``."""
    if not 0 <= player < game.num_players():
        raise ValueError(f"player {player} is not a position of a {game.num_players()}-player game")
    return StrategyBot(player, get_strategy(spec), np.random.default_rng(seed))


def play(game: pyspiel.Game, players: Sequence[str | pyspiel.Bot], seed: int) -> list[float]:
    """One deal with ``players[k]`` (a spec or a bot) at position k; chance drawn from ``seed``'s stream."""
    rng = np.random.default_rng(seed)
    seeds = np.random.SeedSequence(seed).spawn(len(players))
    bots = [bot(game, k, p, int(seeds[k].generate_state(1)[0])) if isinstance(p, str) else p
            for k, p in enumerate(players)]
    state = game.new_initial_state()
    for b in bots:
        b.restart_at(state)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
        else:
            action = int(bots[state.current_player()].step(state))
        for k, b in enumerate(bots):
            if k != state.current_player():
                b.inform_action(state, state.current_player(), action)
        state.apply_action(action)
    return list(state.returns())
