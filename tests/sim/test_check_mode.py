"""The simulator's check mode: card conservation verified on every step.

* Over a few thousand deals of every variant and a spread of rule options, with
  random and greedy strategies (and over matches), ``check=True`` finds nothing
  and does not change a single result.
* It really catches a broken invariant: a BatchSim method patched to lose or to
  duplicate a card makes ``simulate_deals``/``simulate_matches`` raise
  SimulationError naming the variant, the deal and the turn -- and without check
  mode the same fault goes unnoticed.
* ``durak simulate ... --check`` through the CLI: exit 0 when all is well, and a
  one-line ``durak: error:`` with exit 2 when the invariant breaks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.bits import BIT, U64
from analyzer.core.outcomes import END_BLOCKED, END_CAPPED, END_OUT
from analyzer.core.rules import make_rules
from analyzer.sim.simulator import BatchSim, SimulationError, simulate_deals, simulate_matches
from strategies import get_strategy

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
except TypeError:
    RUNNER = CliRunner()

# (variant, players, overrides): every variant at several player counts, and each option switched.
CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("czech", 2, {}),
    ("czech", 4, {}),
    ("czech", 6, {}),
    ("czech", 8, {}),
    ("czech", 7, {"deck_size": 48}),
    ("czech", 4, {"sevens": True}),
    ("czech", 4, {"sevens": True, "seven_chain": "accumulate", "starter_effects": True}),
    ("czech", 3, {"eight_stop": True, "queen_needs_king": True, "jack_finish_doubles": True}),
    ("czech", 4, {"last_card_call": True, "forget_rate": 0.3}),
    ("czech", 5, {"no_card": "draw_until_play", "voluntary_draw": True}),
    ("czech", 4, {"reshuffle": "shuffle", "serve_last_effect": True, "sevens": True, "eight_stop": True}),
    ("czech", 4, {"wild_on_anything": False, "hand_size": 7}),
    ("czech", 6, {"deck_size": 52, "hand_size": 8}),
    ("czech", 2, {"hand_size": 1, "deck_size": 32}),
    ("czech", 4, {"turn_cap": 12}),  # most deals capped
    ("czech", 4, {"wild_rule": "deal"}),
    ("prague", 2, {}),
    ("prague", 3, {}),
    ("prague", 5, {}),
    ("prague", 3, {"starter_effects": False, "hand_size": 2}),
    ("prague", 4, {"reshuffle": "shuffle", "serve_last_effect": True, "deck_size": 52}),
    ("prague", 3, {"wild_on_anything": False, "no_card": "draw_until_play", "voluntary_draw": True}),
    ("prague", 4, {"wild_rule": "off"}),
    ("svinya", 2, {}),
    ("svinya", 2, {"lone_wild_points": 50, "hand_size": 10}),
    ("svinya", 2, {"wild_on_anything": False, "no_card": "draw_one", "voluntary_draw": False}),
    ("svinya", 2, {"reshuffle": "shuffle", "deck_size": 32, "serve_last_effect": True}),
]
DEALS = 2000


@pytest.fixture(autouse=True)
def _numpy_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy simulator's check mode (tests break its BatchSim); the kernel's check is in
    tests/execution/test_engine_choice.py."""
    monkeypatch.setenv("DURAK_ENGINE", "numpy")


def _lineup(players: int, kind: str) -> list[object]:
    """All random, all greedy, or mixed by position (one object per distinct strategy)."""
    r, g = get_strategy("random"), get_strategy("greedy")
    if kind == "random":
        return [r] * players
    if kind == "greedy":
        return [g] * players
    return [r if p % 2 else g for p in range(players)]


def _same(a, b) -> None:
    for name, x in vars(a).items():
        np.testing.assert_array_equal(x, getattr(b, name), err_msg=name)


def _sane_deals(res, rules) -> None:
    n = len(res.end)
    assert n == DEALS
    assert set(np.unique(res.end).tolist()) <= {END_OUT, END_BLOCKED, END_CAPPED}
    assert (res.points >= 0).all()
    out = res.end == END_OUT
    assert (res.went_out[out] >= 0).all()
    assert (res.points[out, res.went_out[out]] == 0).all()  # who went out holds nothing
    assert (res.winner[res.end != END_CAPPED] >= 0).all()
    assert (res.turns[res.end == END_CAPPED] >= rules.turn_cap).all()


@pytest.mark.parametrize("variant, players, overrides", CONFIGS,
                         ids=[f"{v}{p}-" + ",".join(f"{k}={x}" for k, x in o.items()) for v, p, o in CONFIGS])
def test_check_mode_passes_and_changes_nothing(variant: str, players: int, overrides: dict[str, Any]) -> None:
    rules = make_rules(variant, players, overrides)
    kind = ("random", "greedy", "mixed")[len(overrides) % 3]
    checked = simulate_deals(rules, _lineup(players, kind), DEALS, 11, check=True)
    _sane_deals(checked, rules)
    plain = simulate_deals(rules, _lineup(players, kind), DEALS, 11, check=False)
    _same(checked, plain)


@pytest.mark.parametrize("variant, players, overrides", [
    ("czech", 4, {"target": 150}),
    ("czech", 3, {"target": 100, "sevens": True, "jack_finish_doubles": True}),
    ("prague", 3, {"target": 100}),
    ("czech", 4, {"target": 100, "wild_rule": "off"}),
    ("prague", 3, {"target": 100, "wild_rule": "match"}),
    ("svinya", 2, {}),
    ("svinya", 2, {"target": 60, "reshuffle": "shuffle"}),
])
@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_check_mode_over_matches(variant: str, players: int, overrides: dict[str, Any], kind: str) -> None:
    rules = make_rules(variant, players, overrides)
    checked = simulate_matches(rules, _lineup(players, kind), 150, 5, check=True)
    plain = simulate_matches(rules, _lineup(players, kind), 150, 5, check=False)
    _same(checked, plain)
    assert (checked.deals >= 1).all()


# --------------------------------------------------------------------------- broken invariants


def _lose_a_card(monkeypatch, every_deal: bool = False) -> None:
    """Patch BatchSim._deal: seat 1 of the first dealt slot (or of every slot) loses its lowest card."""
    original = BatchSim._deal

    def broken(self, rows, decks):
        original(self, rows, decks)
        for row in (rows if every_deal else rows[:1]):
            hand = int(self.hands[row, 1])
            if hand:
                self.hands[row, 1] &= ~BIT[(hand & -hand).bit_length() - 1]

    monkeypatch.setattr(BatchSim, "_deal", broken)


def _duplicate_a_card(monkeypatch) -> None:
    """Patch BatchSim._draw_one (every card drawn passes there): after the first draw, the
    drawer also gets the pile's top card."""
    original = BatchSim._draw_one
    done = []

    def broken(self, rows):
        cards = original(self, rows)
        if not done and len(rows) and self.top[rows[0]] >= 0:
            row = rows[0]
            self.hands[row, self.cur[row]] |= BIT[int(self.top[row])]
            done.append(row)
        return cards

    monkeypatch.setattr(BatchSim, "_draw_one", broken)


@pytest.mark.parametrize("variant, players", [("czech", 4), ("prague", 3), ("svinya", 2)])
def test_check_catches_a_lost_card(monkeypatch, variant: str, players: int) -> None:
    _lose_a_card(monkeypatch)
    rules = make_rules(variant, players)
    with pytest.raises(SimulationError, match=rf"invariant broken: cards not conserved in {variant} deal \d+ at turn"):
        simulate_deals(rules, _lineup(players, "random"), 50, 1, check=True)


@pytest.mark.parametrize("variant, players", [("czech", 4), ("prague", 3), ("svinya", 2)])
def test_check_catches_a_duplicated_card(monkeypatch, variant: str, players: int) -> None:
    _duplicate_a_card(monkeypatch)
    rules = make_rules(variant, players)
    with pytest.raises(SimulationError, match=r"invariant broken: cards not conserved"):
        simulate_deals(rules, _lineup(players, "mixed"), 200, 1, check=True)


def test_check_catches_a_lost_card_in_matches(monkeypatch) -> None:
    _lose_a_card(monkeypatch)
    rules = make_rules("czech", 3, {"target": 100})
    with pytest.raises(SimulationError, match=r"cards not conserved in czech match \d+"):
        simulate_matches(rules, _lineup(3, "greedy"), 20, 1, check=True)


def test_without_check_the_lost_card_goes_unnoticed(monkeypatch) -> None:
    """The point of check mode: the same fault passes silently without it."""
    _lose_a_card(monkeypatch, every_deal=True)
    res = simulate_deals(make_rules("czech", 4), _lineup(4, "random"), 200, 1, check=False)
    assert len(res.end) == 200


def test_message_names_the_first_broken_deal(monkeypatch) -> None:
    """Only the first slot dealt is broken: the message names deal 0 at turn 0 (caught before a move)."""
    _lose_a_card(monkeypatch)
    with pytest.raises(SimulationError) as ei:
        simulate_deals(make_rules("czech", 4), _lineup(4, "random"), 10, 1, check=True)
    msg = str(ei.value)
    assert "\n" not in msg
    assert "czech deal 0 at turn 1" in msg or "czech deal 0 at turn 0" in msg, msg


# --------------------------------------------------------------------------- through the CLI


@pytest.mark.parametrize("args", [
    ["--variant", "czech", "--players", "4", "--rule", "sevens=on"],
    ["--variant", "czech", "--players", "7", "--strategies", "greedy,random,greedy,random,greedy,random,greedy"],
    ["--variant", "prague", "--players", "3", "--strategies", "random,greedy,random"],
    ["--variant", "svinya", "--players", "2", "--strategies", "greedy,random", "--rule", "reshuffle=shuffle"],
    ["--variant", "svinya", "--players", "2", "--matches", "20"],
])
def test_cli_check(args: list[str]) -> None:
    res = RUNNER.invoke(app, ["simulate", "--deals", "1000", "--jobs", "1", "--check", "--json", *args])
    assert res.exit_code == 0, (res.stderr, res.exception)
    assert res.stderr == ""
    plain = RUNNER.invoke(app, ["simulate", "--deals", "1000", "--jobs", "1", "--json", *args])
    strip = lambda s: {k: v for k, v in __import__("json").loads(s).items() if k != "deals_per_second"}  # noqa: E731
    assert strip(res.stdout) == strip(plain.stdout)


def test_cli_check_reports_a_broken_invariant_on_one_line(monkeypatch) -> None:
    _lose_a_card(monkeypatch)
    res = RUNNER.invoke(app, ["simulate", "--deals", "50", "--jobs", "1", "--check"])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("durak: error: invariant broken: cards not conserved in czech deal "), lines[0]


def test_check_catches_a_stale_accept_mask(monkeypatch) -> None:
    """The accept mask kept per slot must follow the top card: a play that leaves it stale is caught."""
    original = BatchSim._play
    done = []

    def stale(self, rows, card, *rest):
        out = original(self, rows, card, *rest)
        if not done and len(rows):
            self.acc[rows[0]] ^= U64(1 << 51)  # the first play's slot keeps a wrong mask
            done.append(int(rows[0]))
        return out

    monkeypatch.setattr(BatchSim, "_play", stale)
    with pytest.raises(SimulationError, match=r"invariant broken: pile position or accept mask out of date"):
        simulate_deals(make_rules("czech", 4), _lineup(4, "random"), 50, 1, check=True)
    assert done
