"""The public history in the rules engine's own play loop (``play_deal``, ``play_match``,
fault scenarios).

* At every decision of engine play, a strategy that reads the history
  (``uses_history = True``) is shown the same view and the same
  :class:`~analyzer.core.contract.History` -- pile, cards seen and known,
  what each opponent cannot hold (G6/G7 forced draws, SV4 passes after
  drawing), voids, the hidden cards, a talon of known order (G8), the
  counters and every event -- as on the paused kernel's simple path, for the
  same deck and deal stream, on several variants and option sets.
* ``tracker`` plays the same deals on the engine as on the paused kernel's simple
  path, deal by deal, and in matches; a fault among trackers is reproduced by the
  engine (``faults.write_fault_scenario``) move for move as the kernel traced it,
  and ``durak replay`` plays the scenario to the faulty decision.
* Line-ups without a history reader record nothing (tests/kernel/test_view_history.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.typing import NDArray

from analyzer.core.cards import DRAW, card_id, shuffled_decks
from analyzer.core.contract import DecisionView
from analyzer.core.faults import SimulationError
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.core.streams import base_key, deal_key, deal_keys
from analyzer.engine.deal import Deal, MoveHistory, play_deal, play_match
from analyzer.engine.faults import reproduce, write_fault_scenario
from analyzer.engine.replay import load_scenario, replay
from analyzer.execution.executor import simulate_deals, simulate_matches
from tests.kernel.test_view_history import hashed_choice

#: (variant, players, options, the kinds of event the deals must meet, a hoarder in the last position?)
CONFIGS: list[tuple[str, int, dict[str, object], set[str], bool]] = [
    ("czech", 2, {"sevens": True, "voluntary_draw": True}, {"take"}, False),
    ("czech", 4, {"sevens": True, "voluntary_draw": True, "seven_chain": "accumulate"}, {"take", "turn_over"}, False),
    ("czech", 2, {}, set(), False),
    ("czech", 3, {"no_card": "draw_until_play"}, {"turn_over"}, False),
    # a hoarder draws whenever it may: the talon and the pile run dry, players pass (SV4 inference)
    ("czech", 3, {"voluntary_draw": True, "no_card": "draw_until_play", "turn_cap": 150}, {"pass", "turn_over"}, True),
    ("czech", 2, {"reshuffle": "shuffle", "last_card_call": True, "forget_rate": 0.5}, set(), False),
    ("prague", 3, {}, {"name", "turn_over"}, False),  # deck 0 has a Jack lead (PR2)
    ("svinya", 2, {"turn_cap": 300}, {"turn_over"}, False),
]
IDS = [f"{v}{p}-" + ("-".join(f"{k}={x}" for k, x in o.items()) or "default") for v, p, o, _, _ in CONFIGS]


def snapshot(view: DecisionView) -> tuple:
    """Everything a view says (the rules aside), its history field by field, events decoded."""
    h = view.history
    assert h is not None
    return (view.seat, tuple(sorted(view.hand)), view.legal, view.top, view.active_suit, view.pending_seven,
            view.hand_sizes, view.talon_size, view.played, view.scores,
            h.pile, h.seen, h.known, h.cannot_hold, h.voids, h.hidden, h.talon, h.drawn, h.passes, h.takes,
            h.named, tuple(h.events))


class Probe:
    """Reads the history; keeps a snapshot of every view; plays ``hashed_choice`` (voluntary draws, takes,
    suits named) or a deterministic built-in."""

    uses_history = True

    def __init__(self, log: list, inner: object | None = None) -> None:
        self.log, self.inner = log, inner
        self.name = "probe"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        self.log.append(snapshot(view))
        return self.inner.choose(view, rng) if self.inner is not None else hashed_choice(view)  # type: ignore[attr-defined]


def _key(seed: int) -> int:
    """The simulator's deal-stream key of deal 0 of a run seeded ``seed`` (reshuffle=shuffle, forget_rate)."""
    return int(deal_keys(base_key(np.random.SeedSequence(seed)), np.array([0]), np.array([0]))[0])


def engine_deal(rules: RuleSet, deck_order: NDArray[np.int8], seed: int, by_position: list, *, record: bool = True,
                history: MoveHistory | None = None):
    """One deal on the engine's play loop: the simulator's deck and stream key, strategies by position."""
    n = rules.players
    deal = Deal.from_deck(rules, [int(c) for c in deck_order], stream_key=_key(seed), record=record)
    play_deal(deal, [by_position[(s - 1) % n] for s in range(n)], np.random.default_rng(0), history=history)
    return deal


class Hoarder:
    """Draws whenever it may (voluntary_draw), else plays its first legal card."""

    name = "hoarder"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        return (DRAW, None) if DRAW in view.legal else (view.legal[0], None)


@pytest.mark.parametrize("variant,players,options,kinds,hoarder", CONFIGS, ids=IDS)
def test_engine_history_equals_the_simple_paths_at_every_decision(variant: str, players: int, options: dict,
                                                                  kinds: set[str], hoarder: bool) -> None:
    rules = make_rules(variant, players, options)
    rng = np.random.default_rng([players, len(options), 31])
    decks = shuffled_decks(rules.deck_size, 5, rng).astype(np.int8)
    if rules.starter_kind == "dealer_lead":  # PR2: the dealer's last card is a Jack lead, whose suit he names
        lead, jack = players * rules.hand_size - 1, card_id(rules.wild_rank, 2)
        k = int(np.nonzero(decks[0] == jack)[0][0])
        decks[0, [lead, k]] = decks[0, [k, lead]]
    names = [None, None, "weighted", "greedy", "aggressive"]
    inner = [None if (x := names[int(rng.integers(len(names)))]) is None else get_strategy(x) for _ in range(players)]
    if hoarder:
        inner[-1] = Hoarder()
    met: set[str] = set()
    narrowed = 0
    for j in range(len(decks)):
        sim_logs: list[list] = [[] for _ in range(players)]
        eng_logs: list[list] = [[] for _ in range(players)]
        simulate_deals(rules, [Probe(sim_logs[q], inner[q]) for q in range(players)], 1, j, decks=decks[j][None, :])
        engine_deal(rules, decks[j], j, [Probe(eng_logs[q], inner[q]) for q in range(players)])
        for q in range(players):
            assert len(sim_logs[q]) == len(eng_logs[q]), f"deal {j}, position {q}: different decisions"
            for i, (a, b) in enumerate(zip(sim_logs[q], eng_logs[q])):
                assert a == b, f"deal {j}, position {q}, decision {i}: the engine's view differs"
            met.update(e.kind for snap in eng_logs[q][-1:] for e in snap[-1])
        # the inference paths are exercised: the next player cannot hold a card that is neither seen nor ours
        narrowed += sum(bool(snap[13][1] - snap[11] - set(snap[1])) for log in eng_logs for snap in log)
    assert {"play", "draw"} | kinds <= met, f"events met: {met}"
    assert narrowed > 0 or rules.voluntary_draw, "no opponent was ever narrowed"


TRACKER_LINEUPS: list[tuple[str, int, dict[str, object], tuple[str, ...]]] = [
    ("czech", 2, {"sevens": True, "voluntary_draw": True}, ("tracker", "weighted")),
    ("czech", 4, {"sevens": True}, ("tracker", "greedy", "tracker", "weighted")),
    ("prague", 3, {}, ("weighted", "tracker", "aggressive")),
    ("svinya", 2, {"turn_cap": 300}, ("tracker", "tracker")),
    ("czech", 3, {"no_card": "draw_until_play", "turn_cap": 300}, ("tracker", "weighted", "tracker")),
]


class SimplePath:
    """``tracker`` without its batch method: the simulator asks it row by row (the simple path)."""

    uses_history = True

    def __init__(self) -> None:
        self.inner = get_strategy("tracker")
        self.name = "tracker"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        return self.inner.choose(view, rng)


@pytest.mark.parametrize("variant,players,options,names", TRACKER_LINEUPS,
                         ids=[f"{v}{p}-{'-'.join(o) or 'default'}" for v, p, o, _ in TRACKER_LINEUPS])
def test_tracker_plays_the_same_deals_on_the_engine_as_on_the_simple_path(variant, players, options, names) -> None:
    """Every field of every deal's outcome (points, turns, turnovers, the last card, winner, дурак): the kernel
    paused at the trackers' simple path and the engine's play loop, the same decks and deal streams."""
    rules = make_rules(variant, players, options)
    n = 20
    decks = shuffled_decks(rules.deck_size, n, np.random.default_rng(11)).astype(np.int8)
    lineup = [SimplePath() if x == "tracker" else get_strategy(x) for x in names]
    ss = np.random.SeedSequence(9)
    res = simulate_deals(rules, lineup, n, ss, decks=decks)
    weighted_differs = 0
    for i in range(n):
        hist = MoveHistory()
        deal = Deal.from_deck(rules, decks[i].tolist(), stream_key=deal_key(base_key(ss), i), record=True)
        out = play_deal(deal, [lineup[(s - 1) % players] for s in range(players)], np.random.default_rng(0),
                        history=hist)
        assert res.row(i) == out.by_position(), f"deal {i}: kernel {res.row(i)} != engine {out.by_position()}"
        plain = MoveHistory()
        as_weighted = [get_strategy("weighted") if x == "tracker" else get_strategy(x) for x in names]
        play_deal(Deal.from_deck(rules, decks[i].tolist(), stream_key=deal_key(base_key(ss), i)),
                  [as_weighted[(s - 1) % players] for s in range(players)], np.random.default_rng(0), history=plain)
        weighted_differs += plain.tokens != hist.tokens
    # the history matters: without it (weighted play) some deals go otherwise
    assert weighted_differs > 0


def test_tracker_matches_on_the_engine_equal_the_kernels() -> None:
    """G11: play_match records each deal's history for the trackers, as the paused kernel's matches do."""
    rules = make_rules("czech", 3, {"target": 60})
    m, k = 6, 40
    decks = shuffled_decks(rules.deck_size, m * k, np.random.default_rng(2)).reshape(m, k, -1)
    lineup = [SimplePath(), get_strategy("weighted"), SimplePath()]
    res = simulate_matches(rules, lineup, m, 3, decks=decks)
    for i in range(m):
        it = iter(decks[i].tolist())
        out = play_match(rules, lineup, np.random.default_rng(0), it.__next__)
        assert res.totals[i].tolist() == out.totals, f"match {i}"


class FaultsLate:
    """Deterministic and faulty: plays weighted until 20 cards have been played and its hand is down to three,
    then draws, legal or not (late in a deal, where the trackers' memory has changed their moves)."""

    name = "faults-late"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, int | None]:
        if len(view.played) >= 20 and len(view.hand) <= 3 and DRAW not in view.legal:
            return DRAW, None
        return get_strategy("weighted").choose(view, rng)


def test_a_fault_among_trackers_is_reproduced_by_the_engine_and_replays(tmp_path, capsys, monkeypatch) -> None:
    """faults.write_fault_scenario plays the deal on the engine, trackers with their history: it meets the
    kernel's fault again, move for move as the kernel traced it, and ``durak replay`` stops at it."""
    from analyzer.cli.app import main

    rules = make_rules("czech", 3, {"sevens": True})
    lineup = [get_strategy("tracker"), FaultsLate(), get_strategy("tracker")]
    decks = shuffled_decks(rules.deck_size, 40, np.random.default_rng(4)).astype(np.int8)
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path / "kernel"))
    with pytest.raises(SimulationError, match="faults-late") as caught:
        simulate_deals(rules, [SimplePath(), FaultsLate(), SimplePath()], 40, 1, decks=decks)
    traced = load_scenario(next((tmp_path / "kernel").glob("*.toml")))  # the kernel's moves up to its fault
    assert "scenario" in str(caught.value)
    dealt = [sorted(map(sorted, Deal.from_deck(rules, d.tolist()).hands)) for d in decks]
    job = dealt.index(sorted(map(sorted, traced.hands)))  # the deck the kernel's fault was dealt
    by_seat = [lineup[(s - 1) % 3] for s in range(3)]
    path, met = write_fault_scenario(rules, by_seat, decks[job].tolist(), tmp_path, "tracker")
    assert met, "the engine did not meet the fault again"
    sc = load_scenario(path)
    assert sc.moves == traced.moves, "the engine's trackers played otherwise than the kernel's"
    as_weighted = [get_strategy("weighted"), FaultsLate(), get_strategy("weighted")]
    assert reproduce(rules, [as_weighted[(s - 1) % 3] for s in range(3)], decks[job].tolist())[0] != sc.moves, \
        "in this deal the trackers' memory does not matter: the test would prove nothing"
    deal, out = replay(sc)
    assert out is None and "faults-late" in sc.names[deal.current]
    main(["replay", str(path), "--json"])
    shown = json.loads(capsys.readouterr().out)
    assert shown["stopped_at_fault"] is True and shown["moves"] == len(sc.moves)
