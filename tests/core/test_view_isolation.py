"""Nothing a strategy does to its view reaches the game or another strategy's play.

A frozen dataclass does not stop ``object.__setattr__``: a plugin that wrote
``turn_cap = 3`` into the rules of its view changed how its ``pimc`` opponent
played (the seats shared one copy).  Each seat now reads its own deep copy,
and arrays that view someone else's memory are copied before a strategy sees
them.  The plugin below writes to everything it can reach from its views
(every rule, every effect, the public history, the arrays and masks) and must
give the numbers of its twin that writes nothing, against the search players
and the compiled built-ins.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import History
from analyzer.core.rules import Effect, RuleSet, make_rules, private_copy
from analyzer.execution.executor import choose_engine, play_decks
from analyzer.execution.runs.tune import decks_for
from strategies import get_strategy


def _garbage(value: object) -> object:
    """Something of another shape than ``value``, to write in its place."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 3
    if isinstance(value, str):
        return "svinya"
    return None


def _deface_rules(rules: RuleSet) -> None:
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        if f.name == "effects":
            for eff in value:
                with pytest.raises(AttributeError):  # an Effect is a tuple: no write gets through
                    object.__setattr__(eff, "draw", 9)
            object.__setattr__(rules, "effects", tuple(Effect(5, True) for _ in value))
        elif f.name == "points":
            object.__setattr__(rules, "points", tuple(-p for p in value))
        else:
            object.__setattr__(rules, f.name, _garbage(value))
    rules.__dict__["_hash"] = 0


def _deface(value: object) -> None:
    """Write into ``value`` and everything under it that Python lets through."""
    if isinstance(value, RuleSet):
        _deface_rules(value)
    elif isinstance(value, np.ndarray):
        value.flags.writeable = True if value.base is None or value.base.flags.writeable else False
        if value.flags.writeable:
            value[...] = 0
        if isinstance(value.base, np.ndarray) and value.base.flags.writeable:
            value.base[...] = 0
    elif isinstance(value, History):
        for name in History.FIELDS:
            try:
                object.__setattr__(value, name, None)
            except AttributeError:
                pass
        object.__getattribute__(value, "_lazy").clear()
    elif hasattr(value, "__slots__") and not isinstance(value, tuple):  # the paused views' card masks
        for name in value.__slots__:
            inner = getattr(value, name, None)
            if isinstance(inner, np.ndarray):
                _deface(inner)


class Writer:
    """Plays its highest legal card, then writes over everything its view reaches."""

    name = "writer"

    def __init__(self, write: bool) -> None:
        self.write = write

    def choose(self, view, rng):
        cards = [a for a in view.legal if a < DRAW]
        answer = (max(cards), None) if cards else ((TAKE if TAKE in view.legal else DRAW), None)
        if self.write:
            for item in tuple.__iter__(view):  # the raw fields (a paused view keeps masks where its hand is)
                _deface(item)
            if view.history is not None:
                _deface(view.history)
        return answer


def _tables(rules: RuleSet, lineup: list[object], n: int) -> pd.DataFrame:
    res = play_decks(rules, lineup, decks_for(np.arange(n), rules.deck_size, 7), np.random.SeedSequence(7))
    return pd.DataFrame({"winner": res.winner, "loser": res.loser, "turns": res.turns, "end": res.end})


@pytest.mark.parametrize("variant,players,others,engine", [
    ("czech", 2, ["pimc?worlds=8,budget=2000"], "compiled+python"),
    ("prague", 3, ["ismcts?iterations=40,budget=2000", "greedy"], "compiled+python"),
    ("czech", 4, ["greedy", "weighted", "suit-keeper"], "compiled+python"),
])
def test_a_strategy_writing_to_its_view_changes_no_other_play(variant, players, others, engine):
    rules = make_rules(variant, players, {"sevens": "on"} if variant == "czech" else None)
    kept = private_copy(rules)
    lineups = {w: [Writer(w)] + [get_strategy(s) for s in others] for w in (False, True)}
    assert choose_engine(lineups[True]) == engine
    clean = _tables(rules, lineups[False], 16)
    written = _tables(rules, lineups[True], 16)
    pd.testing.assert_frame_equal(clean, written)
    assert rules == kept and rules.effects == kept.effects  # the game's rules are as they were


def test_each_seat_reads_its_own_copy_of_the_rules():
    """Down to the effect table: a write to one copy reaches no other copy, and an Effect takes no write."""
    rules = make_rules("czech", 4, {"sevens": "on"})
    a, b = private_copy(rules), private_copy(rules)
    object.__setattr__(a, "turn_cap", 3)
    a.__dict__["hand_size"] = 1
    object.__setattr__(a, "effects", ())
    with pytest.raises(AttributeError):
        object.__setattr__(b.effects[7], "draw", 9)
    assert b.effects[7].draw == rules.effects[7].draw == 1 and b.turn_cap == rules.turn_cap == 2000
    assert b.hand_size == rules.hand_size == 5 and a != rules and b == rules
