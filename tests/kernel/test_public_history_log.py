"""The public history on the compiled kernel: its event log read into the public record.

A strategy that reads the public history (``uses_history = True``) plays on the pause path with the kernel's
event log on (analyzer.kernel.events); Python feeds the log to the PublicRecord (analyzer.kernel.history).  A
log nearly full stops a deal without losing an event: every decision shows the same history -- every field of
the BatchHistory, over every variant and the options that make public events (G6/G7 forced draws, G8 turn-overs
and shuffles, CZ8 sevens chains and forgotten calls, PR2 Jack leads, SV4 passes) -- whatever the log's room; a
history reader (``tracker``, fast and simple path) plays the rules engine's deals.  That the history is what
the rules make public is held at every decision against the rules engine's (tests/engine/test_engine_history.py)
and the observer's (tests/kernel/test_view_history.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from analyzer.core.cards import DRAW, TAKE
from analyzer.core.contract import BatchView
from analyzer.core.outcomes import DealResults
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.executor import choose_engine
from analyzer.kernel import events
from analyzer.kernel.state import HANDS
from tests.kernel.test_pause_at_python_decisions import CONFIGS, differing, engine_rows, paused

#: the BatchHistory fields a probe records at each decision (every field the contract gives)
FIELDS = ("pile", "pile_size", "seen", "known", "may_hold", "cannot_hold", "voids", "hidden", "talon", "drawn",
          "passes", "takes", "named", "events", "n_events", "turn", "turnovers", "slots", "talon_may")


def _row(x: object, i: int) -> object:
    a = np.asarray(x)[i]
    return tuple(a.ravel().tolist()) if np.ndim(a) else a.item()


class HistoryProbe:
    """Reads the whole public history at every decision and keeps it; plays its lowest legal card (else takes or
    draws), so what it sees is all that could differ between engines."""

    uses_history = True
    name = "history-probe"

    def __init__(self) -> None:
        self.seen: list[tuple[object, ...]] = []

    def choose(self, view: object, rng: np.random.Generator) -> object:
        raise AssertionError("the probe is asked on the fast path only")

    def choose_batch(self, view: BatchView, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        h = view.history
        assert h is not None, "a strategy that reads the history got none"
        cols = {f: getattr(h, f) for f in FIELDS}
        acts = []
        for i in range(len(view.seat)):
            row = {f: _row(cols[f], i) for f in FIELDS}
            row["events"] = row["events"][:row["n_events"]]  # the padding's width is the record's capacity
            self.seen.append((int(view.seat[i]), int(view.hand[i]), int(view.legal[i]), int(view.top[i]),
                              *row.values()))
            legal = int(view.legal[i])
            acts.append((legal & -legal).bit_length() - 1 if legal else (TAKE if view.can_take[i] else DRAW))
        return np.array(acts, np.int64), np.full(len(acts), -1, np.int64)


def _both(variant: str, players: int, options: dict[str, object], line: Sequence[object], second: Sequence[object],
          n: int, seed: int, room: int | None = events.MARGIN + 6,
          between: Callable[[], None] | None = None) -> tuple[DealResults, DealResults]:
    """``line`` on the kernel with the event log's own room, ``second`` with ``room`` (a deal stopped for a read
    at almost every step), on the same chunk seed; ``between`` is called between the two runs."""
    rules = make_rules(variant, players, options)
    ss = np.random.SeedSequence(seed)
    res = paused(rules, list(line), n, ss)
    if between is not None:
        between()
    with pytest.MonkeyPatch.context() as mp:
        if room is not None:
            mp.setattr(events, "ROOM", room)
        return res, paused(rules, list(second), n, ss)


def _engine_equal(variant: str, players: int, options: dict[str, object], line: Sequence[object], n: int,
                  seed: int) -> None:
    """The line-up's deals on the kernel are the rules engine's, deal by deal, on the same chunk seed."""
    rules = make_rules(variant, players, options)
    ss = np.random.SeedSequence(seed)
    res, want = paused(rules, list(line), n, ss), engine_rows(rules, list(line), n, ss)
    bad = [j for j in range(n) if res.row(j) != want[j]]
    assert not bad, (bad[0], res.row(bad[0]), want[bad[0]])


@pytest.mark.parametrize("variant,players,options", CONFIGS, ids=[f"{v}{p}-{o}" for v, p, o in CONFIGS])
def test_every_decision_sees_the_same_history_whatever_the_logs_room(variant: str, players: int,
                                                                    options: dict[str, object]) -> None:
    a, b = HistoryProbe(), HistoryProbe()
    others = [get_strategy("greedy") for _ in range(players - 1)]
    res_a, res_b = _both(variant, players, options, [a, *others], [b, *others], 150, 11)
    assert not differing(res_a, res_b)
    assert len(a.seen) > 100
    assert sorted(a.seen) == sorted(b.seen)


def _longest_log(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The most events any read found in one slot's log, kept in a list as reads happen."""
    from analyzer.kernel import history

    most = [0]
    read = history.EventReader.read

    def counting(self, m):  # type: ignore[no-untyped-def]
        most[0] = max(most[0], int(m[:, HANDS + self.n].max()))
        read(self, m)

    monkeypatch.setattr(history.EventReader, "read", counting)
    return most


@pytest.mark.parametrize("room", [None, events.MARGIN + 6])
def test_a_nearly_full_log_stops_the_deal_and_loses_no_event(monkeypatch: pytest.MonkeyPatch, room: int | None
                                                            ) -> None:
    """A log of ROOM events stops a deal once fewer than MARGIN are free; a log just over MARGIN stops it at
    almost every step (the compiled MARGIN stays; the room is the ``m`` row's width, set from Python): the
    logs read are then short, and the histories are still those of the log's own room."""
    most = _longest_log(monkeypatch)
    a, b = HistoryProbe(), HistoryProbe()
    line = [get_strategy("greedy"), get_strategy("weighted"), get_strategy("suit-keeper")]
    res_a, res_b = _both("czech", 4, {"sevens": True, "last_card_call": True, "forget_rate": 0.5},
                         [a, *line], [b, *line], 60, 4, room=room, between=lambda: most.__setitem__(0, 0))
    assert not differing(res_a, res_b)
    assert sorted(a.seen) == sorted(b.seen) and a.seen
    if room is None:  # the longest log of the second run only (the counter starts again between the runs)
        assert most[0] > 20  # a stretch of play between a slot's pauses
    else:
        assert most[0] <= 6 + 30  # stopped once 7 were logged, each read after at most one more step


@pytest.mark.parametrize("variant,players,options", CONFIGS[::2], ids=[f"{v}{p}" for v, p, _ in CONFIGS[::2]])
def test_tracker_plays_the_rules_engines_deals_on_the_kernel(variant: str, players: int,
                                                             options: dict[str, object]) -> None:
    _engine_equal(variant, players, options,
                  [get_strategy("tracker"), *[get_strategy("greedy") for _ in range(players - 1)]], 300, 23)


def test_the_kernel_serves_a_history_reader() -> None:
    line = [get_strategy("tracker"), get_strategy("greedy")]
    assert choose_engine(line) == "compiled+python"
    assert choose_engine(line, unit="match") == "compiled+python"


class ConsistentHistory(HistoryProbe):
    """A probe that checks, at every decision, what its view and its history must agree on."""

    def choose_batch(self, view: BatchView, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        h = view.history
        assert h is not None
        seen, played = np.asarray(h.seen), np.asarray(view.played)
        assert np.array_equal(seen, played), "the history's seen cards are not the cards played"
        slots = np.asarray(h.slots)
        known = np.asarray(h.known)
        sizes = np.asarray(view.hand_sizes)
        for j in range(1, sizes.shape[1]):  # another hand: its known cards and one slot per unknown card
            count = np.array([bin(int(x)).count("1") for x in known[:, j]]) + (slots[:, j] != 0).sum(axis=1)
            assert np.array_equal(count, sizes[:, j]), f"seat offset {j}: cards in the history != hand size"
        return super().choose_batch(view, rng)


@pytest.mark.parametrize("variant,players,options", [("czech", 3, {"sevens": True}), ("svinya", 2, {}),
                                                     ("prague", 2, {"target": 60})])
def test_matches_on_the_kernel_show_each_deal_its_own_history(variant: str, players: int,
                                                             options: dict[str, object]) -> None:
    """Every decision's history agrees with its view (cards seen, hand sizes), deal after deal of a match."""
    from analyzer.core.streams import child_seed
    from analyzer.kernel.pause import simulate_paused_matches

    rules = make_rules(variant, players, options)
    probe = ConsistentHistory()
    line = [probe, *[get_strategy("greedy") for _ in range(players - 1)]]
    ss = np.random.SeedSequence(8)
    res = simulate_paused_matches(rules, line, 40, 99, play_rng=np.random.default_rng(child_seed(ss, 0)))
    assert int(res.deals.sum()) > 40  # matches of several deals
    assert len(probe.seen) > 200


def test_the_probe_would_see_a_wrong_history() -> None:
    """The comparison is not vacuous: on the kernel, a record that misses the sevens chains taken (CZ8) shows
    other histories than the full record does."""
    from analyzer.kernel import history

    a, b = HistoryProbe(), HistoryProbe()
    line = [get_strategy("greedy"), get_strategy("greedy")]
    apply = history.EventReader._apply

    def skip_takes(self, kind, r, w0, mask, extra):  # type: ignore[no-untyped-def]
        if kind != events.TAKE:
            apply(self, kind, r, w0, mask, extra)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(history.EventReader, "_apply", skip_takes)
        rules, ss = make_rules("czech", 3, {"sevens": True, "seven_chain": "accumulate"}), np.random.SeedSequence(2)
        paused(rules, [b, *line], 100, ss)
    paused(rules, [a, *line], 100, ss)
    assert any(row[FIELDS.index("takes") + 4] != (0, 0, 0) for row in a.seen)
    assert sorted(a.seen) != sorted(b.seen)


#: the options that make the most events in one step: a sevens chain taken whole, effects drawn on the last card,
#: forgotten last-card calls every time, on a table of six (turn-overs come often)
HEAVY = ("czech", 6, {"sevens": True, "seven_chain": "accumulate", "starter_effects": True, "serve_last_effect": True,
                      "last_card_call": True, "forget_rate": 1.0})


@pytest.mark.parametrize("variant,players,options", [*CONFIGS, HEAVY],
                         ids=[*(f"{v}{p}-{o}" for v, p, o in CONFIGS), "heavy"])
def test_no_step_of_play_writes_more_than_the_margin(monkeypatch: pytest.MonkeyPatch, variant: str, players: int,
                                                    options: dict[str, object]) -> None:
    """A deal stops for a read once 7 events are logged into room for MARGIN + 6: had any one step written more
    than MARGIN events, the log would overflow and the read refuse it (LogOverflow), under every rule set."""
    monkeypatch.setattr(events, "ROOM", events.MARGIN + 6)
    _engine_equal(variant, players, options,
                  [get_strategy("tracker"), *[get_strategy("greedy") for _ in range(players - 1)]], 80, 17)


def test_a_log_without_room_beyond_its_margin_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "ROOM", events.MARGIN)
    with pytest.raises(ValueError, match="must exceed its margin"):
        events.log_words(2)


class SimpleTracker:
    """tracker through the simple path only (``choose`` per decision, its DecisionView carrying the history)."""

    uses_history = True
    name = "simple-tracker"

    def __init__(self) -> None:
        self.inner = get_strategy("tracker")

    def choose(self, view: object, rng: np.random.Generator) -> object:
        return self.inner.choose(view, rng)  # type: ignore[attr-defined]


@pytest.mark.parametrize("variant,players,options", [("czech", 3, {"sevens": True}), ("prague", 2, {}),
                                                     ("svinya", 2, {})])
def test_a_simple_path_history_reader_plays_the_rules_engines_deals(variant: str, players: int,
                                                                    options: dict[str, object]) -> None:
    _engine_equal(variant, players, options, [SimpleTracker(), *[get_strategy("greedy") for _ in range(players - 1)]],
                  200, 3)
