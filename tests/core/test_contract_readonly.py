"""Nothing a strategy does to what it is handed defeats the legality check,
and only exact action types are accepted.

Each case below ran to exit 0 with wrong numbers before: a ``choose_batch``
that wrote into ``view.legal``/``view.can_draw`` or replaced them through
``view.__dict__`` and then played cards it did not hold; a plugin that changed
the shared rules object; ``choose`` answers such as ``42.7``, ``"42"``, ``True``
or a suit of ``1.5``, which were converted silently.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.bits import BIT
from analyzer.core.cards import DRAW
from analyzer.core.contract import BatchView, StrategyError
from analyzer.core.faults import SimulationError
from analyzer.core.rules import make_rules
from analyzer.engine.deal import Deal, play_deal
from analyzer.execution.executor import simulate_deals
from strategies import get_strategy


class _Cheat:
    """A fast-path cheat: tampers with its view, then plays the lowest card of the whole deck it can name."""

    name = "cheat"

    def __init__(self, how: str) -> None:
        self.how = how

    def choose(self, view, rng):  # pragma: no cover - the batch path is used
        raise AssertionError

    def choose_batch(self, view, rng):
        full = np.full(len(view.seat), ~np.uint64(0), np.uint64)
        if self.how == "write":
            view.legal[:] = full
            view.can_draw[:] = True
        elif self.how == "flip-flag":  # make the copy writeable again, then write
            legal = view.legal
            legal.flags.writeable = True
            legal[:] = full
        elif self.how == "dict":
            view.__dict__["legal"] = full
        elif self.how == "setattr":
            object.__setattr__(view, "legal", full)
        # play a card not in hand: the first card id the player does not hold
        hand = view.hand
        act = np.array([next(c for c in range(52) if not int(h) >> c & 1) for h in hand], np.int16)
        return act, np.full(len(act), -1, np.int8)


@pytest.mark.parametrize("how", ["write", "flip-flag", "dict", "setattr"])
def test_tampering_with_the_view_cannot_switch_off_the_check(tmp_path, monkeypatch, how):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 4)
    with pytest.raises(SimulationError, match=r"strategy 'cheat'") as err:
        simulate_deals(rules, [_Cheat(how)] + [get_strategy("greedy")] * 3, 300, 1)
    msg = str(err.value)
    assert "\n" not in msg
    assert "is not legal" in msg or "raised" in msg  # the check, or the read-only view itself


def test_view_is_frozen():
    """No attribute can be set or deleted, there is no __dict__, arrays are not writeable."""
    v = BatchView(make_rules("czech", 2), np.zeros(2, np.int8), np.ones(2, np.uint64), np.ones(2, np.uint64),
                  np.zeros(2, bool), np.zeros(2, bool), np.zeros(2, np.int8), np.zeros(2, np.int8),
                  np.zeros(2, np.int16), lambda: np.ones((2, 2), np.int16), np.zeros(2, np.int16),
                  np.zeros(2, np.uint64))
    assert not hasattr(v, "__dict__")
    with pytest.raises(AttributeError):
        v.legal = np.zeros(2, np.uint64)
    with pytest.raises(AttributeError):
        del v.hand
    for field in ("legal", "can_draw", "hand", "hand_sizes"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(v, field)[0] = 0


class _RulesBreaker:
    """Changes the rules object it is handed (turn cap 1) and plays greedy otherwise."""

    name = "rules-breaker"

    def __init__(self) -> None:
        self.inner = get_strategy("greedy")

    def choose(self, view, rng):
        object.__setattr__(view.rules, "turn_cap", 1)
        view.rules.__dict__["hand_size"] = 1
        return self.inner.choose(view, rng)


def test_changing_the_rules_handed_to_a_strategy_changes_nothing():
    rules = make_rules("czech", 3)
    clean = simulate_deals(rules, [get_strategy("greedy")] * 3, 300, 4)
    broken = simulate_deals(rules, [_RulesBreaker()] + [get_strategy("greedy")] * 2, 300, 4)
    assert rules.turn_cap == 2000 and rules.hand_size == 5
    assert (broken.end != 2).all() and np.array_equal(clean.turns, broken.turns)
    # the engine hands out a copy as well
    deal = Deal.from_deck(rules, list(range(12, 52)))
    play_deal(deal, [_RulesBreaker()] * 3, np.random.default_rng(0))
    assert deal.rules.turn_cap == 2000 and deal.outcome.end != 2


class _Answers:
    """Plays its first legal card, but answers as ``kind`` says."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.name = f"answers-{kind}"

    def choose(self, view, rng):
        cards = [a for a in view.legal if a < DRAW]
        a = cards[0] if cards else view.legal[0]
        if self.kind == "float":
            return a + 0.7, None
        if self.kind == "text":
            return str(a), None
        if self.kind == "bool":
            return True, None
        if self.kind == "suit-float":
            return a, 1.5
        if self.kind == "numpy":
            return np.int64(a), None
        return a, None


@pytest.mark.parametrize("kind,shown", [("float", r"\.7, None\)"), ("text", r"\('\d+', None\)"),
                                        ("bool", r"\(True, None\)"), ("suit-float", r", 1\.5\)")])
def test_wrong_answer_types_stop_the_run(tmp_path, monkeypatch, kind, shown):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("prague", 3)
    strat = _Answers(kind)
    with pytest.raises(SimulationError, match=rf"strategy 'answers-{kind}'.*choose returned .*{shown}, not an action"):
        simulate_deals(rules, [strat, get_strategy("greedy"), get_strategy("greedy")], 50, 1)
    # the engine's play loop refuses the same answers
    with pytest.raises(StrategyError, match=rf"answers-{kind}.*not an action"):
        play_deal(Deal.from_deck(rules, list(range(16, 52))), [strat] * 3, np.random.default_rng(0))


def test_numpy_integers_are_actions():
    rules = make_rules("prague", 3)
    a = simulate_deals(rules, [_Answers("numpy")] * 3, 200, 2)
    b = simulate_deals(rules, [_Answers("int")] * 3, 200, 2)
    assert all(a.row(i) == b.row(i) for i in range(200))


class _WideBatch:
    """A fast path answering card + 65536: int16 would wrap it to a legal card."""

    name = "wide-batch"

    def choose(self, view, rng):  # pragma: no cover
        raise AssertionError

    def choose_batch(self, view, rng):
        from strategies.masks import lowest_card

        legal = view.legal
        act = np.where(legal != 0, lowest_card(legal), DRAW).astype(np.int64) + 65536
        return act, np.full(len(act), -1, np.int64)


def test_fast_path_values_beyond_int16_do_not_wrap(tmp_path, monkeypatch):
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    with pytest.raises(SimulationError, match=r"'wide-batch'.*is not legal"):
        simulate_deals(make_rules("czech", 2), [_WideBatch()] * 2, 20, 1)
    assert BIT is not None
