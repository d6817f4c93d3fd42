"""Python strategies on the compiled kernel, paused at their decisions.

The kernel plays forced moves, compiled strategies, penalties, refills and
scoring itself and stops a deal only at a real decision of a Python strategy
(analyzer.kernel.pause).  On a chunk's decks and deal streams a deterministic
line-up gives the rules engine's results deal by deal, every field, and a
strategy on the simple path sees the engine's views: the built-ins' Python
forms (forced onto the pause path as subclasses, which have no compiled form),
the README's plugin, mixed with compiled seats, over every variant and a spread
of options.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields

import numpy as np
import pytest

from analyzer.core.bits import highest_card, lowest_card
from analyzer.core.cards import DRAW, TAKE, shuffled_decks
from analyzer.core.contract import BatchView, DecisionView
from analyzer.core.outcomes import DealResults, MatchResults
from analyzer.core.registry import get_strategy
from analyzer.core.rules import RuleSet, make_rules
from analyzer.core.streams import base_key, child_seed, deal_key
from analyzer.engine.deal import Deal, play_deal
from analyzer.kernel.lineup import policy_code
from analyzer.kernel.pause import simulate_paused
from analyzer.kernel.serve import deck_generator, simulate_chunk
from analyzer.stats.intervals import wilson
from tests.plugin_example import HighestCard

_FORMS: dict[type, type] = {}


def python_form(spec: str) -> object:
    """Built-in ``spec`` as a subclass of its class: the same Python code, no compiled form (exact classes only)."""
    s = get_strategy(spec)
    cls = type(s)
    s.__class__ = _FORMS.setdefault(cls, type(cls.__name__, (cls,), {"__module__": __name__}))
    assert policy_code(s) is None
    return s


class SimpleOnly:
    """A strategy through the simple path only (``choose`` per decision, no ``choose_batch``)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "simple")

    def choose(self, view, rng):
        return self.inner.choose(view, rng)


def paused(rules: RuleSet, strats, n: int, ss: np.random.SeedSequence, slots: int = 64) -> DealResults:
    """The pause path seeded as a chunk is (analyzer.kernel.serve)."""
    return simulate_paused(rules, strats, n, base_key(ss), play_rng=np.random.default_rng(child_seed(ss, 0)),
                           deck_rng=deck_generator(ss), slots=slots)


def engine_rows(rules: RuleSet, strats, n: int, ss: np.random.SeedSequence) -> list[dict]:
    """The rules engine's deals on the decks and deal streams of a chunk seeded ``ss`` (analyzer.kernel.serve),
    by position (simple path: ``choose``)."""
    decks = shuffled_decks(rules.deck_size, n, deck_generator(ss))
    p, base = rules.players, base_key(ss)
    record = any(getattr(s, "uses_history", False) for s in strats)  # a history reader needs the deal's record
    return [play_deal(Deal.from_deck(rules, decks[j].tolist(), stream_key=deal_key(base, j), record=record),
                      [strats[(s - 1) % p] for s in range(p)], np.random.default_rng(0)).by_position()
            for j in range(n)]


def differing(a: DealResults, b: DealResults) -> list[str]:
    return [f.name for f in fields(a) if not np.array_equal(getattr(a, f.name), getattr(b, f.name))]


CONFIGS: list[tuple[str, int, dict[str, object]]] = [
    ("czech", 4, {}),
    ("czech", 3, {"sevens": True, "seven_chain": "accumulate", "starter_effects": True, "last_card_call": True,
                  "forget_rate": 0.4}),  # CZ8: chains, TAKE, a forgotten last-card call from the deal's stream
    ("czech", 2, {"no_card": "draw_until_play", "serve_last_effect": True, "sevens": True, "voluntary_draw": True}),
    ("czech", 5, {"queen_needs_king": True, "jack_finish_doubles": True, "eight_stop": True}),
    ("prague", 4, {"reshuffle": "shuffle", "hand_size": 5}),  # G8 shuffles from the stream; PR2 Jack leads
    ("prague", 3, {"voluntary_draw": True, "wild_rule": "off"}),
    ("svinya", 2, {}),
    ("svinya", 2, {"lone_wild_points": 35, "turn_cap": 60}),
]
FORMS = ["greedy", "weighted", "suit-keeper", "wild-keeper", "aggressive", "wild-dumper"]


@pytest.mark.parametrize("variant,players,overrides", CONFIGS,
                         ids=[f"{v}-{p}-{'-'.join(o) or 'default'}" for v, p, o in CONFIGS])
def test_python_forms_on_the_pause_path_equal_the_rules_engine_deal_by_deal(variant, players, overrides):
    """Python forms (fast path), the plugin (simple path) and compiled seats mixed: every field equal."""
    rules = make_rules(variant, players, overrides)
    ss = np.random.SeedSequence(11, spawn_key=(players, len(overrides)))
    for start in range(2):
        strats: list[object] = [python_form(FORMS[(start + p) % len(FORMS)]) for p in range(players)]
        strats[-1] = HighestCard() if start else get_strategy("weighted")  # the plugin, or a compiled seat
        a = paused(rules, strats, 300, ss, slots=37)  # a few slots: many deals per slot, refills mid-call
        want = engine_rows(rules, strats, 300, ss)
        bad = [j for j in range(300) if a.row(j) != want[j]]
        assert not bad, (start, [getattr(s, "name", s) for s in strats], bad[0], a.row(bad[0]), want[bad[0]])
        assert (a.turns > 0).all()


def test_the_simple_path_and_slot_counts_give_the_same_deals():
    """choose per decision (the simple path) and choose_batch give the same deals; so do 1 or 500 slots."""
    rules = make_rules("czech", 4, {"sevens": True})
    ss = np.random.SeedSequence(3)
    fast = [python_form("weighted"), python_form("greedy")] * 2
    simple = [SimpleOnly(s) for s in fast]
    want = paused(rules, fast, 400, ss, 64)
    for strats, slots in ((fast, 500), (simple, 500), (fast, 1)):
        assert differing(paused(rules, strats, 400, ss, slots), want) == [], slots


def test_the_kernel_compiled_for_the_rules_plays_the_same_deals():
    """analyzer.kernel.pause.ADVANCE (the rules folded in as constants) gives the generic kernel's deals, random
    Python forms and compiled seats included (the same pauses in the same order, so the same draws)."""
    rules = make_rules("czech", 3, {"sevens": True, "voluntary_draw": True, "last_card_call": True,
                                    "forget_rate": 0.5})
    strats = [python_form("random"), SimpleOnly(python_form("greedy")), get_strategy("random")]
    ss = np.random.SeedSequence(8)
    runs = [simulate_paused(rules, strats, 300, base_key(ss), play_rng=np.random.default_rng(child_seed(ss, 0)),
                            deck_rng=deck_generator(ss), slots=50, specialise=special) for special in (False, True)]
    assert differing(*runs) == []
    assert len(set(runs[0].turns.tolist())) > 10


VIEW_FIELDS = [f for f in BatchView.FIELDS if f not in ("rules", "scores", "history")]


class Recorder:
    """greedy's Python form that writes down every view it is shown, field by field (lazy ones too)."""

    name = "recorder"

    def __init__(self) -> None:
        self.inner = python_form("greedy")
        self.rows: list[tuple] = []
        self.dtypes: set[tuple[str, str]] = set()
        self.writeable = False

    def choose(self, view, rng):
        return self.inner.choose(view, rng)

    def choose_batch(self, view, rng):
        cols = []
        for f in VIEW_FIELDS:
            a = getattr(view, f)
            self.dtypes.add((f, str(a.dtype)))
            self.writeable |= a.flags.writeable
            cols.append([tuple(x) if isinstance(x, list) else x for x in a.tolist()])
        assert view.scores is None and getattr(view, "history", None) is None  # no uses_history here
        self.rows += zip(*cols)
        return self.inner.choose_batch(view, rng)


@pytest.mark.parametrize("variant,players,overrides", [
    ("czech", 3, {"sevens": True, "voluntary_draw": True, "last_card_call": True, "forget_rate": 0.5}),
    ("prague", 4, {}),
    ("svinya", 2, {}),
])
def test_a_strategy_sees_the_same_views_on_the_fast_path_as_on_the_simple_path(variant, players, overrides):
    """Every decision's batch view, every field, read-only, in the contract's dtypes: the same decisions the
    simple path is shown (whose views the next test holds to the rules engine's)."""
    rules = make_rules(variant, players, overrides)
    ss = np.random.SeedSequence(8)
    rec = Recorder()
    strats = [rec, get_strategy("greedy"), get_strategy("weighted"), rec][-players:]  # rec deals (seat 0)
    paused(rules, strats, 250, ss)
    assert not rec.writeable and len(rec.rows) > 500
    assert {f for f, _ in rec.dtypes} == set(VIEW_FIELDS)
    assert all(d in ("int8", "int16", "int32", "int64", "uint64", "bool") for _, d in rec.dtypes), rec.dtypes
    simple = SimpleRecorder(python_form("greedy"))
    paused(rules, [simple, get_strategy("greedy"), get_strategy("weighted"), simple][-players:], 250, ss)
    assert len(simple.rows) == len(rec.rows)  # the same decisions, one view each
    a = rec
    col = {f: i for i, f in enumerate(VIEW_FIELDS)}
    if rules.sevens:
        assert any(r[col["pending_seven"]] > 0 and r[col["can_take"]] for r in a.rows)  # CZ8 answers
        assert any(r[col["can_draw"]] and r[col["legal"]] for r in a.rows)  # G7 voluntary draws
    if variant == "prague":
        assert any(r[col["top"]] == -1 for r in a.rows)  # PR2: the dealer names his Jack lead's suit


class SimpleRecorder:
    """weighted's Python form through the simple path, writing down every DecisionView it is shown."""

    name = "simple-recorder"

    def __init__(self, inner: object | None = None) -> None:
        self.inner = inner if inner is not None else python_form("weighted")
        self.rows: list[tuple] = []

    def choose(self, view, rng):
        assert isinstance(view, DecisionView) and view.scores is None  # a PausedView on the pause path
        fields = tuple(getattr(view, f) for f in DecisionView._fields)
        assert fields == tuple(view) == view[:] and view == DecisionView(*fields)  # fields and tuple agree
        self.rows.append(tuple(tuple(sorted(x)) if isinstance(x, frozenset) else x for x in fields[1:]))
        return self.inner.choose(view, rng)


def test_the_simple_path_sees_the_rules_engines_decision_views():
    """Every field of every DecisionView (the cards played as a set), as the rules engine shows it on the same
    decks and deal streams."""
    rules = make_rules("prague", 3, {"voluntary_draw": True, "reshuffle": "shuffle"})
    ss = np.random.SeedSequence(12)
    seen = []
    rec = SimpleRecorder()
    paused(rules, [rec, get_strategy("greedy"), rec], 300, ss)
    seen.append(rec.rows)
    rec = SimpleRecorder()
    engine_rows(rules, [rec, get_strategy("greedy"), rec], 300, ss)
    seen.append(rec.rows)
    assert len(seen[0]) > 1000 and Counter(seen[0]) == Counter(seen[1])
    assert any(len(r[8]) > 20 for r in seen[0])  # long deals: sets of played cards extended many times


class Keeper:
    """Keeps every view it is handed, and the plain DecisionView of each as it was when handed over."""

    name = "keeper"

    def __init__(self) -> None:
        self.inner = python_form("greedy")
        self.kept: list[tuple[DecisionView, DecisionView]] = []

    def choose(self, view, rng):
        self.kept.append((view, DecisionView(*(getattr(view, f) for f in DecisionView._fields))))
        return self.inner.choose(view, rng)


def test_a_kept_view_does_not_change_when_the_kernel_pauses_again():
    """A view holds its own copy of its batch's hand and played masks: views kept across many kernel calls (few
    slots, so the paused rows are written again and again) still show what they showed when handed over (fails
    when a view reads the kernel's rows)."""
    rules = make_rules("czech", 4)
    keeper = Keeper()
    paused(rules, [keeper, get_strategy("random"), keeper, get_strategy("greedy")], 60, np.random.SeedSequence(5),
           slots=4)
    assert len(keeper.kept) > 300
    assert all(view == then and view.hand == then.hand and view.played == then.played for view, then in keeper.kept)
    assert len({then.hand for _, then in keeper.kept}) > 100  # the views differ: each shows its own decision


def test_a_paused_view_is_a_decision_view_whatever_is_asked_of_it():
    """PausedView holds hand and played as masks and decodes them when read: fields, indexing, slices,
    iteration, unpacking, equality and hashing both ways, repr, _asdict, _replace, copies and pickles all show a
    DecisionView's values; it is read-only; the legal tuple comes from the kernel's mask with DRAW/TAKE after it."""
    import copy
    import pickle

    from analyzer.core.bits import cards_tuple
    from analyzer.core.cards import DRAW, TAKE
    from analyzer.kernel.views import _LEGAL, _SIZES, Masks, PausedView, pack_sizes

    rules = make_rules("czech", 4, {"sevens": True})
    hand, played = (1 << 20) | (1 << 33) | (1 << 51), (1 << 24) | (1 << 40)
    masks = Masks(np.array([0, hand], np.uint64), np.array([0, played], np.uint64))  # the view's row: 1
    pv = tuple.__new__(PausedView, (rules, 2, masks, (33, DRAW), 40, 1, 0, (3, 5, 4, 6), 9, 1, None, None))
    dv = DecisionView(rules, 2, (20, 33, 51), (33, DRAW), 40, 1, 0, (3, 5, 4, 6), 9, frozenset({24, 40}))
    assert isinstance(pv, DecisionView) and pv.hand == dv.hand and pv.played == dv.played
    assert pv == dv and dv == pv and not pv != dv and hash(pv) == hash(dv) and {pv: 1}[dv] == 1
    assert tuple(pv) == tuple(dv) and list(pv) == list(dv) and pv[2] == dv[2] and pv[:] == dv[:] and pv[-3] == dv[-3]
    _, _, h, *_, p, _, _ = pv
    assert h == (20, 33, 51) and p == frozenset({24, 40}) and (20, 33, 51) in pv and pv.index(9) == 8
    assert repr(pv) == repr(dv) and pv._asdict() == dv._asdict() and pv.suit_counts() == dv.suit_counts()
    assert type(pv._replace(seat=3)) is DecisionView and pv._replace(seat=3) == dv._replace(seat=3)
    assert pickle.loads(pickle.dumps(pv)) == dv and copy.copy(pv) == dv and copy.deepcopy(pv) == dv
    assert pv.legal_cards == (33,) and pv.can_draw and not pv.can_take
    for name in ("hand", "played", "legal", "extra"):
        with pytest.raises(AttributeError):
            setattr(pv, name, ())
    assert not hasattr(pv, "__dict__")
    assert _LEGAL[(1 << 33) | (1 << 20) | (3 << DRAW)] == (20, 33, DRAW, TAKE) and _LEGAL[1 << TAKE] == (TAKE,)
    assert _LEGAL[hand] == cards_tuple(hand)
    sizes = np.array([[3, 5, 4, 6], [0, 52, 1, 0]], np.int16)
    assert [_SIZES[k] for k in pack_sizes(sizes).tolist()] == [(3, 5, 4, 6), (0, 52, 1, 0)]


def test_random_python_form_agrees_statistically_with_the_compiled_random():
    """random's Python form draws from the chunk's play generator, the compiled one from each deal's stream:
    win rates and mean turns within 99.9% intervals of each other."""
    rules = make_rules("czech", 4)
    n = 20_000
    ss = np.random.SeedSequence(21)
    a = paused(rules, [python_form("random")] * 4, n, ss, slots=4096)
    b = simulate_chunk(rules, [get_strategy("random")] * 4, n, ss, matches=False)
    assert differing(a, b)  # another order of draws: other deals
    wa = np.bincount(a.winner[a.winner >= 0], minlength=4)
    wb = np.bincount(b.winner[b.winner >= 0], minlength=4)
    ra, rb = wilson(wa, n, z=3.29), wilson(wb, n, z=3.29)
    assert np.all((ra.lo <= rb.hi) & (rb.lo <= ra.hi)), (wa, wb)
    ta, tb = a.turns.astype(float), b.turns.astype(float)
    assert abs(ta.mean() - tb.mean()) < 3.29 * np.sqrt((ta.var() + tb.var()) / n)


def test_the_compiled_answer_check_passes_exactly_what_the_numpy_check_passes():
    """pause.answers_legal gates StrategyCalls._check_answers: on random answers (cards, DRAW, TAKE, out of range;
    suits for wilds and others) it accepts a row exactly when the numpy check does."""
    from analyzer.core.calls import StrategyCalls
    from analyzer.core.faults import StrategyFault
    from analyzer.kernel.pause import answers_legal

    class Check(StrategyCalls):
        def __init__(self, rules):
            self.r, self.n = rules, rules.players

        def _where(self, name, row):
            return name

    rng = np.random.default_rng(4)
    for rules in (make_rules("czech", 3), make_rules("prague", 2, {"wild_rule": "off"})):
        k = 3000
        a = rng.integers(-2, 56, k)
        a[: k // 2] = rng.integers(20, 52, k // 2)  # many cards
        s = np.where(rng.random(k) < 0.6, -1, rng.integers(-2, 6, k))
        legal = rng.integers(0, 1 << 52, k, dtype=np.uint64) | (np.uint64(1) << (a.clip(0, 51).astype(np.uint64)))
        legal[rng.random(k) < 0.3] = 0
        draw, take = rng.random(k) < 0.5, rng.random(k) < 0.5
        check = Check(rules)
        mine, theirs = [], []
        for i in range(k):
            row = slice(i, i + 1)
            mine.append(answers_legal(a[row], s[row], legal[row], draw[row], take[row], rules.wild_rank))
            try:
                check._check_answers("x", a[row], s[row], np.arange(1), legal[row], draw[row], take[row])
                theirs.append(True)
            except StrategyFault:
                theirs.append(False)
        assert mine == theirs and 0.2 < np.mean(mine) < 0.8
        assert answers_legal(a, s, legal, draw, take, rules.wild_rank) is all(theirs)


# --------------------------------------------------------------------------- matches


class ScoreMinded:
    """Deterministic and reading the match scores: the highest legal card while behind the leader, else the
    lowest (both paths), so wrong scores in the views change the matches."""

    name = "score-minded"

    def choose(self, view, rng):
        cards = view.legal_cards
        if not cards:
            return (TAKE if view.can_take else DRAW), None
        behind = view.scores[0] < max(view.scores)
        return (cards[-1] if behind else cards[0]), None

    def choose_batch(self, view, rng):
        legal = np.asarray(view.legal, np.uint64)
        behind = view.scores[:, 0] < view.scores.max(axis=1)
        hi, lo = highest_card(legal).astype(np.int64), lowest_card(legal).astype(np.int64)
        act = np.where(legal == 0, np.where(view.can_take, TAKE, DRAW), np.where(behind, hi, lo))
        return act, np.full(len(act), -1, np.int64)


MATCH_CONFIGS = [
    ("czech", 3, {"target": 80, "sevens": True, "last_card_call": True, "forget_rate": 0.3}),
    ("prague", 3, {"target": 100, "reshuffle": "shuffle"}),
    ("svinya", 2, {}),
]


@pytest.mark.parametrize("variant,players,overrides", MATCH_CONFIGS, ids=[c[0] for c in MATCH_CONFIGS])
def test_matches_on_the_pause_path_equal_the_kernels_and_the_scores_reach_both_paths(variant, players, overrides):
    """G11 (CZ2/SV2 rotation, CZ7/PR7/SV7 outcome): Python forms on the pause path play the compiled kernel's
    matches (same seed), field for field; on given decks a strategy reading the scores plays the same matches
    through the fast path as through the simple path, and other matches than one blind to them."""
    from analyzer.kernel.matches import simulate_matches as kernel_matches
    from analyzer.kernel.pause import simulate_paused_matches

    rules = make_rules(variant, players, overrides)
    names = ["greedy", "weighted", "aggressive"][:players]
    forms = [python_form(s) for s in names]
    forms[-1] = SimpleOnly(forms[-1])  # one seat through the simple path
    a = simulate_paused_matches(rules, forms, 60, 11, play_rng=np.random.default_rng(0), slots=16)
    b = kernel_matches(rules, [get_strategy(s) for s in names], 60, 11, threads=1)
    assert differing(a, b) == [] and a.deals.max() > 1

    ss = np.random.SeedSequence(6)
    decks = shuffled_decks(rules.deck_size, 40 * 40, np.random.default_rng(2)).reshape(40, 40, -1)
    hands = list(range(players)) if variant == "svinya" else None  # by player, as compare deals svinya (SV2)

    def play(lineup: list[object]) -> MatchResults:
        return simulate_paused_matches(rules, lineup, 40, base_key(ss), play_rng=np.random.default_rng(0), decks=decks,
                                       hands=hands, slots=8)

    rest = [get_strategy(s) for s in names[1:]]
    fast, simple = play([ScoreMinded(), *rest]), play([SimpleOnly(ScoreMinded()), *rest])
    assert differing(fast, simple) == [] and fast.deals.max() > 2
    assert differing(fast, play([python_form("greedy"), *rest])) != []  # the scores change its play


def test_matches_with_a_python_strategy_run_paused_through_the_executor():
    """durak simulate --matches with the README's plugin: engine compiled+python, numbers independent of --jobs,
    and those of the compiled kernel's matches when the plugin's line-up is the Python forms of built-ins."""
    from analyzer.execution.executor import choose_engine
    from analyzer.kernel.serve import simulate_chunk

    rules = make_rules("czech", 4, {"target": 60})
    lineup = [HighestCard(), get_strategy("greedy"), SimpleOnly(python_form("weighted")), get_strategy("random")]
    assert choose_engine(lineup, unit="match") == "compiled+python"
    ss = np.random.SeedSequence(3)
    a = simulate_chunk(rules, lineup, 50, ss, matches=True)
    forms = [python_form("greedy"), python_form("weighted"), get_strategy("random"), python_form("aggressive")]
    b = simulate_chunk(rules, forms, 50, ss, matches=True, check=True)
    c = simulate_chunk(rules, [get_strategy(s) for s in ("greedy", "weighted", "random", "aggressive")], 50, ss,
                       matches=True)
    assert differing(b, c) == [] and (a.totals.max(axis=1) >= 60).all()


# --------------------------------------------------------------------------- through the executor, faults, --check


def test_the_cli_plays_a_plugin_on_the_pause_path_whatever_the_jobs():
    """durak simulate with the README's plugin: engine compiled+python (recorded in --json); results do not
    depend on --jobs."""
    import json

    from typer.testing import CliRunner

    from analyzer.cli.app import app

    args = ["simulate", "--deals", "900", "--players", "3", "--json", "--strategies",
            "greedy,tests/plugin_example.py:HighestCard,weighted"]
    outs = []
    for extra in (["--jobs", "1"], ["--jobs", "2"]):
        res = CliRunner().invoke(app, [*args, *extra])
        assert res.exit_code == 0, res.output
        out = json.loads(res.stdout)
        out.pop("deals_per_second")
        outs.append(out)
    assert outs[0]["engine"] == "compiled+python" and outs[0] == outs[1]


class IllegalAtTurn:
    """Plays greedy, then a card it does not hold at its first decision from turn 9 on (the simple path)."""

    name = "illegal-late"

    def __init__(self) -> None:
        self.inner = python_form("greedy")

    def choose(self, view, rng):
        if view.hand_sizes[0] and len(view.played) >= 8:
            return next(c for c in range(52) if c not in view.hand), None
        return self.inner.choose(view, rng)


class RaisesOnSeven:
    """choose_batch that raises when it must answer a sevens chain."""

    name = "raises-on-seven"

    def __init__(self) -> None:
        self.inner = python_form("weighted")

    def choose(self, view, rng):
        return self.inner.choose(view, rng)

    def choose_batch(self, view, rng):
        if view.pending_seven.any():
            raise ValueError("no sevens, please")
        return self.inner.choose_batch(view, rng)


def test_a_fault_names_the_deal_and_its_scenario_replays_to_the_faulty_decision(tmp_path, monkeypatch):
    """An illegal move: one line naming strategy, variant, global deal (cell, chunk), turn and position; the
    scenario file replays to that decision with that strategy to act."""
    import re

    from analyzer.core.faults import FaultContext, SimulationError
    from analyzer.engine.replay import fault_state, load_scenario, replay
    from analyzer.kernel.serve import simulate_chunk

    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules("czech", 3, {"last_card_call": True, "forget_rate": 0.5})
    strats = [get_strategy("greedy"), IllegalAtTurn(), python_form("suit-keeper")]
    where = FaultContext("czech 3p", 4, 2, 200)
    with pytest.raises(SimulationError) as err:
        simulate_chunk(rules, strats, 100, np.random.SeedSequence(9), matches=False, where=where)
    msg = str(err.value)
    m = re.search(r"^strategy 'illegal-late' \(czech, deal (\d+) \(cell 4 'czech 3p', chunk 2\), turn (\d+), "
                  r"position 1\): move \S+ is not legal", msg)
    assert m and 200 <= int(m.group(1)) < 300 and "\n" not in msg, msg
    path = re.search(r"replays to the faulty decision: durak replay (\S+)$", msg).group(1)
    assert path.endswith(f"fault-czech-cell4-chunk2-deal{m.group(1)}.toml")
    sc = load_scenario(path)
    deal, out = replay(sc)
    assert out is None and deal.turns == int(m.group(2)) and (deal.current - 1) % 3 == 1
    assert "illegal-late" in sc.names[deal.current] and fault_state(sc, deal)[0].endswith("is to act")

    strats = [RaisesOnSeven(), get_strategy("random")]
    with pytest.raises(SimulationError, match=r"^strategy 'raises-on-seven' \(czech, deal \d+, turn \d+, position 0\): "
                                              r"the strategy raised ValueError: no sevens, please; scenario "):
        simulate_chunk(make_rules("czech", 2, {"sevens": True}), strats, 200, np.random.SeedSequence(1), matches=False)


@pytest.mark.parametrize("variant,players,overrides,unit", [
    ("czech", 3, {"sevens": True}, "deal"), ("prague", 4, {}, "deal"), ("czech", 3, {"target": 40, "sevens": True}, "match")])
def test_a_fault_among_compiled_random_seats_replays_to_the_faulty_decision(tmp_path, monkeypatch, variant, players,
                                                                           overrides, unit):
    """Compiled ``random`` draws from the kernel's streams, which the rules engine cannot follow: the run is
    played again tracing the faulty deal (of a match) in the kernel, and the scenario holds the kernel's own
    moves up to the faulty decision (a prague Jack lead's suit included, PR2)."""
    import re

    from analyzer.core.faults import SimulationError
    from analyzer.engine.replay import fault_state, load_scenario, replay
    from analyzer.kernel.serve import simulate_chunk

    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path))
    rules = make_rules(variant, players, overrides)
    strats = [get_strategy("random"), IllegalAtTurn(), *[get_strategy("random")] * (players - 2)]
    with pytest.raises(SimulationError) as err:
        simulate_chunk(rules, strats, 300, np.random.SeedSequence(5), matches=unit == "match")
    msg = str(err.value)
    m = re.search(rf"^strategy 'illegal-late' \((\w+), {unit} (\d+), turn (\d+), position \d\): move \S+ is not legal",
                  msg)
    assert m and "\n" not in msg, msg
    path = re.search(r"replays to the faulty decision: durak replay (\S+)$", msg).group(1)
    assert path.endswith(f"{unit}{m.group(2)}.toml")
    sc = load_scenario(path)
    deal, out = replay(sc)
    assert out is None and deal.turns == int(m.group(3))
    assert "illegal-late" in sc.names[deal.current] and fault_state(sc, deal)[0].endswith("is to act")


def test_check_keeps_the_numbers_and_names_a_strategy_that_is_not_deterministic():
    """--check on the pause path: the same results; a plugin drawing from the global np.random is named."""
    from analyzer.core.faults import SimulationError
    from analyzer.kernel.serve import simulate_chunk

    class NumpyGlobal:
        name = "np-global"

        def choose(self, view, rng):
            return view.legal[np.random.randint(len(view.legal))], None

    rules = make_rules("prague", 3)
    ss = np.random.SeedSequence(4)
    strats = [HighestCard(), python_form("greedy"), get_strategy("random")]
    plain = simulate_chunk(rules, strats, 300, ss, matches=False)
    assert differing(plain, simulate_chunk(rules, strats, 300, ss, matches=False, check=True)) == []
    with pytest.raises(SimulationError, match=r"strategy 'np-global' is not deterministic: the same seed played "
                                              r"prague deal \d+ differently"):
        simulate_chunk(rules, [NumpyGlobal(), *strats[1:]], 300, ss, matches=False, check=True)


def test_check_names_a_deal_that_loses_a_card(monkeypatch):
    """The kernel's end-of-deal check (every card exactly once) on the pause path: a broken deal is named."""
    from analyzer.core.faults import FaultContext, SimulationError
    from analyzer.kernel import pause
    from analyzer.kernel.serve import simulate_chunk

    calls = []

    def lose_a_card(*args):
        k = kernel(*args)
        if not calls:  # once, on the first deals: slot 0's deal loses its hand's cards
            args[9][1][0, HANDS] = 0  # args[9]: the slots' states (st, m, ...)
        calls.append(k)
        return k

    from analyzer.kernel.state import HANDS

    kernel = pause.advance_kernel
    monkeypatch.setattr(pause, "advance_kernel", lose_a_card)
    with pytest.raises(SimulationError, match=r"^invariant broken: cards not conserved in czech deal 50 "
                                              r"\(cell 1, chunk 5\) \(compiled kernel\)$"):
        # specialise=False: the generic kernel, the one patched here (a process that has played enough czech 4p
        # deals on the pause path, as a suite worker may have, would run the kernel compiled for those rules)
        simulate_chunk(make_rules("czech", 4), [HighestCard()] * 4, 30, np.random.SeedSequence(2), matches=False,
                       check=True, where=FaultContext(cell=1, chunk=5, first=50), specialise=False)
