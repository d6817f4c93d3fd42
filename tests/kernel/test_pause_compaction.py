"""The pause path's tail (analyzer.kernel.pause._compact): once no deal is left to take, the slots still playing
move to the front in their order.  The pauses keep their order, so a line-up of Python strategies, random ones
included (their draws follow the pauses' order), plays the same deals as without the move, and a fault in the
tail still names its deal's deck."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from analyzer.core.faults import StrategyFault
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.core.streams import base_key, child_seed
from analyzer.kernel import pause
from analyzer.kernel.serve import deck_generator
from tests.plugin_example import HighestCard


class PythonRandom:
    """random's Python form (choose_batch), no compiled form."""

    name = "py-random"

    def __init__(self) -> None:
        inner: Any = get_strategy("random")
        self.choose, self.choose_batch = inner.choose, inner.choose_batch


def _run(rules, strats, n: int, slots: int = 48):
    ss = np.random.SeedSequence(41)
    return pause.simulate_paused(rules, strats, n, base_key(ss), play_rng=np.random.default_rng(child_seed(ss, 0)),
                                 deck_rng=deck_generator(ss), slots=slots)


def _no_compaction(state, live):
    return len(state[3])  # nothing moved, every slot still walked


@pytest.mark.parametrize("variant, players", [("czech", 4), ("svinya", 2)])
def test_the_tails_compaction_keeps_every_deal(monkeypatch, variant, players):
    rules = make_rules(variant, players)
    strats = [PythonRandom(), HighestCard(), get_strategy("random"), PythonRandom()][:players]
    moved = []
    real = pause._compact

    def spy(state, live):
        moved.append(live)
        return real(state, live)

    monkeypatch.setattr(pause, "_compact", spy)
    a = _run(rules, strats, 150)
    assert moved and min(moved) < 8  # the tail was compacted, down to its last few deals
    monkeypatch.setattr(pause, "_compact", _no_compaction)
    b = _run(rules, strats, 150)
    for f in fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


def _fault_at_call(monkeypatch, call: int) -> StrategyFault:
    """The run stopped at the first paused decision of the strategies' ``call``-th batch: the fault as Answers
    names it (its deal and deck)."""
    real = pause.Answers.answer
    calls = [0]

    def answer(self, k, act, suit):
        calls[0] += 1
        if calls[0] == call:
            fault = StrategyFault("late", 0)
            self._name(fault)
            raise fault
        return real(self, k, act, suit)

    monkeypatch.setattr(pause.Answers, "answer", answer)
    with pytest.raises(StrategyFault) as caught:
        _run(make_rules("czech", 4), [HighestCard()] * 4, 100, slots=32)
    monkeypatch.setattr(pause.Answers, "answer", real)
    return caught.value


def test_a_fault_in_the_tail_names_its_deals_deck(monkeypatch):
    calls = [0]
    moved = []
    real_answer, real_compact = pause.Answers.answer, pause._compact

    def answer(self, k, act, suit):
        calls[0] += 1
        return real_answer(self, k, act, suit)

    def spy(state, live):
        moved.append((calls[0], live))
        return real_compact(state, live)

    monkeypatch.setattr(pause.Answers, "answer", answer)
    monkeypatch.setattr(pause, "_compact", spy)
    _run(make_rules("czech", 4), [HighestCard()] * 4, 100, slots=32)
    monkeypatch.setattr(pause.Answers, "answer", real_answer)
    call = moved[-1][0] + 1  # the batch after the last compaction: slots renumbered more than once
    assert len(moved) > 1 and moved[-1][1] > 0
    a = _fault_at_call(monkeypatch, call)
    monkeypatch.setattr(pause, "_compact", _no_compaction)
    b = _fault_at_call(monkeypatch, call)
    assert a.job == b.job and a.deck == b.deck and sorted(a.deck) == list(range(20, 52))
