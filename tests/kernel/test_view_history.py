"""The public history in the strategy views.

* The paused kernel's history (``BatchView.history`` and, on the simple
  path, ``DecisionView.history``; analyzer.kernel.history) equals the scalar observer's
  :class:`~analyzer.knowledge.observer.Knowledge` deal by deal at every
  decision -- what each opponent may hold (hence its voids, G6/G7/SV4), the
  cards it is known to hold, the cards seen, the hidden pool, a talon of known
  order (G8), hand sizes -- on line-ups of view-driven players over every
  variant and a spread of options.
* A view never reveals a hidden card (what it names as known or seen is public; the inference's soundness
  against the true hands is the observer's, tests/knowledge/test_knowledge.py, which the history equals); the
  history is read-only; line-ups without a history-reading strategy record nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from analyzer.core.bits import SUIT_MASK
from analyzer.core.cards import DRAW, deck, shuffled_decks
from analyzer.core.contract import BatchHistory, DecisionView, History
from analyzer.core.public import unpack_events
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.core.streams import base_key, deal_keys
from analyzer.engine.deal import Deal, play_deal
from analyzer.execution.executor import simulate_deals
from analyzer.kernel.pause import _table as paused_table
from analyzer.knowledge.observer import Knowledge, cards_in, mask
from analyzer.knowledge.table import play_observed

CONFIGS = [
    ("czech", 2, {}), ("czech", 4, {}), ("czech", 3, {"sevens": True, "seven_chain": "accumulate"}),
    ("czech", 2, {"reshuffle": "shuffle"}), ("czech", 3, {"queen_needs_king": True, "eight_stop": True}),
    ("czech", 2, {"last_card_call": True, "forget_rate": 0.5}),
    ("prague", 3, {}), ("prague", 2, {"reshuffle": "shuffle"}), ("svinya", 2, {}),
    # draws by choice under draw_one, and draw_until_play without them: what each proves (core.public)
    ("czech", 2, {"voluntary_draw": True}), ("czech", 3, {"no_card": "draw_until_play"}),
]


def hashed_choice(view: DecisionView) -> tuple[int, int | None]:
    """A move that looks random but depends on the view alone (so both engines make it): exercises
    voluntary draws, takes and suits named."""
    k = (sum(view.hand) * 7 + (view.top or 0) * 13 + view.talon_size * 31 + len(view.played) * 3)
    a = view.legal[k % len(view.legal)]
    return a, (k // 7 % 4 if a < DRAW and view.is_wild(a) else None)


def summary_of_history(view: DecisionView, h: History) -> tuple:
    n = len(view.hand_sizes)
    full = mask(list(deck(view.rules.deck_size)))
    may = tuple(full & ~mask(tuple(h.cannot_hold[k])) for k in range(1, n))
    return (tuple(sorted(view.hand)), view.hand_sizes, may, tuple(mask(tuple(h.known[k])) for k in range(1, n)), mask(tuple(h.seen)),
            mask(tuple(h.hidden)), h.talon or ())


def summary_of_knowledge(view: DecisionView, k: Knowledge) -> tuple:
    n = len(view.hand_sizes)
    seats = [(k.me + j) % n for j in range(1, n)]
    may = tuple(_or(k.slot_masks(s)) | mask(k.known_cards[s]) for s in seats)
    return (tuple(sorted(view.hand)), view.hand_sizes, may, tuple(mask(k.known_cards[s]) for s in seats), k.seen, k.pool(),
            tuple(k.talon_order or ()))


def _or(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class SimProbe:
    """Plays :func:`hashed_choice` (or a built-in) and keeps what the simple path's view told it."""

    name = "probe"
    uses_history = True

    def __init__(self, log: list, inner: object | None = None) -> None:
        self.log, self.inner = log, inner

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        assert view.history is not None
        self.log.append(summary_of_history(view, view.history))
        return self.inner.choose(view, rng) if self.inner is not None else hashed_choice(view)  # type: ignore[attr-defined]


class TableProbe(SimProbe):
    """The same player on the engine's table runner, keeping what its Knowledge told it."""

    def choose_known(self, view: DecisionView, knowledge: Knowledge, table: Deal,
                     rng: np.random.Generator) -> tuple[int, int | None]:
        self.log.append(summary_of_knowledge(view, knowledge))
        return self.inner.choose(view, rng) if self.inner is not None else hashed_choice(view)  # type: ignore[attr-defined]


def _lineup(players: int, rng: np.random.Generator) -> list[object | None]:
    """One inner player per seat: None (the hashed player) or a deterministic built-in."""
    names = [None, None, "weighted", "greedy", "aggressive"]
    return [None if (x := names[int(rng.integers(len(names)))]) is None else get_strategy(x) for _ in range(players)]


def compare_deal(rules: RuleSet, deck_order: NDArray[np.int8], seed: int, inner: list[object | None]) -> list[list]:
    """Play one deal on the paused kernel and on the table runner (same deck, same deal stream);
    assert the two agree at every decision; return the kernel's views' summaries by position."""
    players = rules.players
    sim_logs: list[list] = [[] for _ in range(players)]
    tab_logs: list[list] = [[] for _ in range(players)]
    simulate_deals(rules, [SimProbe(sim_logs[q], inner[q]) for q in range(players)], 1, seed,
                   decks=deck_order[None, :])
    # the engine deals the same deck with the kernel's stream key for deal 0 of this seed (shuffles, CZ8 calls)
    key = int(deal_keys(base_key(np.random.SeedSequence(seed)), np.array([0]), np.array([0]))[0])
    deal = Deal.from_deck(rules, [int(c) for c in deck_order], stream_key=key)
    play_observed(deal, [TableProbe(tab_logs[(s - 1) % players], inner[(s - 1) % players]) for s in range(players)],
                  np.random.default_rng(0))
    for q in range(players):
        assert len(sim_logs[q]) == len(tab_logs[q]), f"seed {seed}, position {q}: different decisions"
        for i, (a, b) in enumerate(zip(sim_logs[q], tab_logs[q])):
            assert a == b, f"seed {seed}, position {q}, decision {i}: history {a} != knowledge {b}"
    return sim_logs


@pytest.mark.parametrize("variant,players,options", CONFIGS, ids=[f"{v}{p}-{o}" for v, p, o in CONFIGS])
def test_batch_history_equals_the_observers_knowledge_at_every_decision(variant: str, players: int,
                                                                         options: dict) -> None:
    rules = make_rules(variant, players, options)
    rng = np.random.default_rng([players, len(options), 13])
    decks = shuffled_decks(rules.deck_size, 6, rng).astype(np.int8)
    inner = _lineup(players, rng)
    full = mask(list(deck(rules.deck_size)))
    narrowed = 0
    for j in range(len(decks)):
        logs = compare_deal(rules, decks[j], j, inner)
        narrowed += sum(m != full for log in logs for summary in log for m in summary[2])
    if not rules.voluntary_draw:
        assert narrowed > 0, "no opponent was ever narrowed: the inference paths were not exercised"


def test_fast_path_history_equals_the_simple_paths() -> None:
    """``BatchView.history`` (arrays by row) says what the simple path's ``History`` says, row by row."""
    from analyzer.core.public import row_histories
    rules = make_rules("czech", 3, {"sevens": True})
    seen: list[tuple[BatchHistory, list[History]]] = []

    class Batch:
        name, uses_history = "batch", True

        def choose_batch(self, view, rng):
            seen.append((view.history, row_histories(view.history)))
            return get_strategy("weighted").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError("the fast path is used")

    simulate_deals(rules, [Batch()] * 3, 40, 3)
    assert seen
    rows = 0
    for h, per_row in seen:
        for i, r in enumerate(per_row):
            assert mask(tuple(r.cannot_hold[1])) == int(h.cannot_hold[i, 1])
            assert [v >> s & 1 for v in [int(h.voids[i, 1])] for s in range(4)] == \
                [int(s in r.voids[1]) for s in range(4)]
            assert len(r.events) == int(h.n_events[i])
            turn, seat, kind, card, suit = unpack_events(h.events[i, : h.n_events[i]])
            assert [e.turn for e in r.events] == turn.tolist() and [e.seat for e in r.events] == seat.tolist()
            rows += 1
    assert rows > 100


@pytest.mark.parametrize(("variant", "players", "options"), [
    ("svinya", 2, {}), ("czech", 3, {"sevens": True}), ("prague", 2, {}), ("czech", 2, {"reshuffle": "shuffle", "hand_size": 10})])
def test_the_turn_and_the_turnovers_are_what_the_event_log_says(variant: str, players: int, options: dict) -> None:
    """G8, G10a: ``turn`` (the last event's turn, one on when another seat made it; 1 before any) and
    ``turnovers`` (TURN_OVER events) read off the log's last entry and a counter equal the whole log's count,
    at every decision of deals long enough to turn the pile over; and ``one_row_view`` (pimc's simple path)
    gives the row the same."""
    from analyzer.core.public import TURN_OVER, row_histories
    from strategies.pimc import one_row_view

    rules = make_rules(variant, players, options)
    checked = {"rows": 0, "turnovers": 0}

    class Batch:
        name, uses_history = "batch", True

        def choose_batch(self, view, rng):
            h = view.history
            for i, r in enumerate(row_histories(h)):
                ne = int(h.n_events[i])
                ev = h.events[i, :ne]
                turn = int((ev[-1] >> 16) + (((ev[-1] >> 12) & 15) != 0)) if ne else 1
                turnovers = int(((ev >> 9) & 7 == TURN_OVER).sum())
                assert (int(h.turn[i]), int(h.turnovers[i])) == (turn, turnovers)
                dv = DecisionView(rules=rules, seat=int(view.seat[i]), hand=(), legal=(), top=None, active_suit=None,
                                  pending_seven=0, hand_sizes=tuple(int(x) for x in view.hand_sizes[i]),
                                  talon_size=int(view.talon_size[i]), played=frozenset(), history=r)
                one = one_row_view(dv).history
                assert (int(one.turn[0]), int(one.turnovers[0])) == (turn, turnovers)
                checked["rows"] += 1
                checked["turnovers"] += turnovers > 0
            return get_strategy("greedy").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError("the fast path is used")

    simulate_deals(rules, [Batch()] * players, 120, 5)
    assert checked["rows"] > 500 and checked["turnovers"] > 0, checked


@pytest.mark.parametrize("options", [{}, {"voluntary_draw": True}, {"no_card": "draw_until_play"},
                                     {"reshuffle": "shuffle"}])
def test_a_view_never_reveals_a_hidden_card(options: dict) -> None:
    """Everything a history names as seen or in a known talon is public, and nothing it calls hidden is in the
    player's own hand; what it says an opponent holds or cannot hold is the observer's inference
    (tests/knowledge/test_knowledge.py holds it to the true hands; the equality above holds the kernel to it)."""
    rules = make_rules("czech", 2, options)
    checked = 0

    class Spy:
        name, uses_history = "spy", True

        def choose_batch(self, view, rng):
            nonlocal checked
            h = view.history
            for i in range(len(view.seat)):
                assert int(h.hidden[i]) & int(view.hand[i]) == 0
                assert int(h.may_hold[i, 0]) == int(view.hand[i]), "a player may hold exactly its own hand"
                assert int(h.seen[i]) == int(view.played[i])
                assert int(h.cannot_hold[i, 1]) & int(h.known[i, 1]) == 0, "an opponent cannot hold a card it holds"
                talon = [c for c in h.talon[i].tolist() if c >= 0]
                assert all(int(h.seen[i]) >> c & 1 for c in talon), "a known talon holds only cards seen"
                checked += 1
            return get_strategy("greedy").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError

    simulate_deals(rules, [Spy(), Spy()], 60, 4)
    assert checked > 200


def test_the_history_is_read_only() -> None:
    rules = make_rules("prague", 3, {})
    tried = []

    class Vandal:
        name, uses_history = "vandal", True

        def choose_batch(self, view, rng):
            h = view.history
            for field in ("cannot_hold", "seen", "known", "events", "pile", "voids", "hidden"):
                with pytest.raises(ValueError):
                    getattr(h, field)[...] = 0
            with pytest.raises(AttributeError):
                h.seen = None
            with pytest.raises(AttributeError):
                view.history = None
            tried.append(1)
            return get_strategy("weighted").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError

    simulate_deals(rules, [Vandal()] * 3, 10, 1)
    assert tried

    class SimpleVandal:
        name, uses_history = "simple", True

        def choose(self, view, rng):
            with pytest.raises(AttributeError):
                view.history.events.x = 1
            with pytest.raises(AttributeError):
                view.history.known[1].add(0)
            tried.append(2)
            return get_strategy("weighted").choose(view, rng)

    simulate_deals(rules, [SimpleVandal()] * 3, 5, 1)
    assert 2 in tried


def test_lineups_without_history_readers_record_nothing() -> None:
    """Neither the kernel nor the rules engine records for a line-up without a history reader, nor shows the
    history to a player that does not read it; the rules engine refuses a reader on a deal that does not record."""
    rules = make_rules("czech", 4, {})
    plain = [get_strategy(s) for s in ("weighted", "random", "greedy", "weighted")]
    assert not paused_table(rules, plain)[4]  # the kernel's event log off
    views: list = []

    class Reader:
        name = "reader"

        def choose(self, view, rng):
            views.append(view.history)
            return get_strategy("weighted").choose(view, rng)

    simulate_deals(rules, [Reader()] * 4, 5, 0)
    assert views and all(h is None for h in views)
    reader = Reader()
    reader.uses_history = True  # type: ignore[attr-defined]
    assert paused_table(rules, [reader, *plain[1:]])[4]  # on for a line-up with a reader
    # the rules engine's play loop (engine.deal.play_deal)
    order = shuffled_decks(rules.deck_size, 1, np.random.default_rng(0))[0].tolist()
    assert Deal.from_deck(rules, order).public is None
    views.clear()
    log: list = []
    play_deal(Deal.from_deck(rules, order, record=True), [Reader(), SimProbe(log), Reader(), Reader()],
              np.random.default_rng(0))
    assert views and all(h is None for h in views) and log
    with pytest.raises(ValueError, match="'probe' reads the public history: start the deal with record=True"):
        play_deal(Deal.from_deck(rules, order), [Reader(), SimProbe([]), Reader(), Reader()], np.random.default_rng(0))


def test_history_suits_and_voids_agree() -> None:
    """A suit is void exactly when every card of it is one the player cannot hold."""
    rules = make_rules("czech", 2, {})
    out: list = []

    class V:
        name, uses_history = "v", True

        def choose_batch(self, view, rng):
            out.append((view.history.voids.copy(), view.history.may_hold.copy()))
            return get_strategy("weighted").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError

    simulate_deals(rules, [V(), V()], 30, 2)
    any_void = False
    for voids, may in out:
        for s in range(4):
            expect = (may & SUIT_MASK[s]) == 0
            assert ((voids >> s) & 1).astype(bool).tolist() == expect.tolist()
            any_void |= bool(expect[:, 1].any())
    assert any_void
    assert cards_in(0) == []


@pytest.mark.parametrize("options", [{}, {"reshuffle": "shuffle", "voluntary_draw": True}])
def test_simple_path_slots_and_talon_may_are_the_batch_rows_lazily(options: dict) -> None:
    """``History.slots`` (one set of possible cards per unknown card of each opponent, by offset) and
    ``talon_may`` say what ``BatchHistory.slots`` / ``talon_may`` say for the same row; computed only when read,
    read-only."""
    from analyzer.core.bits import cards_tuple
    from analyzer.core.public import row_histories

    rules = make_rules("czech", 3, options)
    rows = narrowed = 0

    class Batch:
        name, uses_history = "batch", True

        def choose_batch(self, view, rng):
            nonlocal rows, narrowed
            h = view.history
            per_row = row_histories(h)
            for r in per_row:  # nothing computed before it is read
                assert {"slots", "talon_may"} <= set(object.__getattribute__(r, "_lazy"))
            for i, r in enumerate(per_row):
                for k in range(3):
                    want = tuple(frozenset(cards_tuple(int(m))) for m in h.slots[i, k] if m)
                    assert r.slots[k] == want
                    assert len(want) == (0 if k == 0 else int(view.hand_sizes[i, k]) - len(r.known[k]))
                    narrowed += any(len(s) < len(r.hidden) for s in want)
                assert r.talon_may == frozenset(cards_tuple(int(h.talon_may[i])))
                with pytest.raises(AttributeError):
                    r.slots = ()
                rows += 1
            return get_strategy("weighted").choose_batch(view, rng)

        def choose(self, view, rng):
            raise AssertionError("the fast path is used")

    simulate_deals(rules, [Batch()] * 3, 12, 5)
    assert rows > 100 and narrowed > 0
