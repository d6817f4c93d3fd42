"""The strategy registry: built-in names, module/file plugins, entry points, parameters."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import analyzer.core.registry
import strategies
from analyzer.core.cards import DRAW, parse_card, parse_cards
from analyzer.core.registry import FunctionStrategy, parse_spec, validate_strategy
from analyzer.core.rules import make_rules
from strategies import (
    DecisionView,
    StrategyLoadError,
    StrategySpecError,
    UnknownStrategy,
    available,
    get_strategy,
    register,
)

BUILTINS = {"random", "greedy", "wild-keeper", "wild-dumper", "aggressive", "suit-keeper", "weighted"}
PLUGIN = Path(__file__).resolve().parents[1] / "plugin_example.py"
ROOT = Path(__file__).resolve().parents[2]


def view(hand: str = "8H 9H KH 10C", top: str = "7H") -> DecisionView:
    rules = make_rules("czech", 4)
    h = tuple(parse_cards(hand))
    t = parse_card(top)
    legal = tuple(sorted(c for c in h if c % 4 == t % 4 or c // 4 == t // 4 or c // 4 == 9))
    return DecisionView(rules=rules, seat=0, hand=h, legal=legal or (DRAW,), top=t,
                        active_suit=t % 4, pending_seven=0, hand_sizes=(len(h), 5, 5, 5),
                        talon_size=10, played=frozenset())


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    eps = [importlib.metadata.EntryPoint(name=n, value=v, group="durak.strategies") for n, v in targets.items()]

    def entry_points(**kw: Any) -> list[importlib.metadata.EntryPoint]:
        return eps if kw.get("group") == "durak.strategies" else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_exports() -> None:
    for name in ("get_strategy", "available", "register", "UnknownStrategy", "DecisionView",
                 "BatchView", "Strategy", "BatchStrategy", "StrategyError"):
        assert hasattr(strategies, name)


def test_available_lists_builtins_with_one_line_descriptions() -> None:
    av = available()
    assert BUILTINS <= set(av)
    for name in BUILTINS:
        assert av[name] and "\n" not in av[name]


def test_builtins_build_fresh_batch_capable_instances() -> None:
    for name in BUILTINS:
        a, b = get_strategy(name), get_strategy(name)
        assert a is not b and a.name == name
        assert isinstance(a, strategies.BatchStrategy)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownStrategy) as e:
        get_strategy("grredy")
    msg = str(e.value)
    assert "grredy" in msg and "greedy" in msg and "wild-keeper" in msg and "\n" not in msg
    assert isinstance(e.value, ValueError)


def test_plugin_by_file_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PLUGIN.parent.parent)
    s = get_strategy(f"{PLUGIN}:HighestCard")
    assert s.name == "highest-card"
    assert s.choose(view(), np.random.default_rng(0)) == (parse_card("KH"), None)
    rel = get_strategy("tests/plugin_example.py:HighestCard")
    assert rel.choose(view(), np.random.default_rng(0)) == (parse_card("KH"), None)


def test_plugin_by_module_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGIN.parent.parent))
    s = get_strategy("tests.plugin_example:HighestCard")
    assert s.name == "highest-card"
    assert s.choose(view("8S 9S", "7D"), np.random.default_rng(0)) == (DRAW, None)


def test_plugin_function_and_instance(tmp_path: Path) -> None:
    f = tmp_path / "mine.py"
    f.write_text(
        "from analyzer.core.cards import DRAW\n"
        "def lowest(view, rng):\n"
        "    '''plays the lowest legal card'''\n"
        "    return min(view.legal), None\n"
        "class _S:\n"
        "    name = 'inst'\n"
        "    def choose(self, view, rng):\n"
        "        return view.legal[0], None\n"
        "INSTANCE = _S()\n"
        "NOT_A_STRATEGY = 42\n"
    )
    fn = get_strategy(f"{f}:lowest")
    assert isinstance(fn, FunctionStrategy)
    assert fn.name == f"{f}:lowest" and fn.description == "plays the lowest legal card"
    assert fn.choose(view(), np.random.default_rng(0)) == (parse_card("8H"), None)
    assert get_strategy(f"{f}:INSTANCE").name == "inst"
    with pytest.raises(StrategyLoadError, match="NOT_A_STRATEGY|int"):
        get_strategy(f"{f}:NOT_A_STRATEGY")
    with pytest.raises(StrategyLoadError, match="no attribute 'Missing'"):
        get_strategy(f"{f}:Missing")
    with pytest.raises(StrategyLoadError, match="parameters need a class"):
        get_strategy(f"{f}:INSTANCE?x=1")


def test_plugin_import_failures_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text("import no_such_module_xyz\n")
    for spec, words in [
        (f"{bad}:X", ["broken.py", "no_such_module_xyz"]),
        (f"{tmp_path}/absent.py:X", ["no such file"]),
        ("no_such_pkg_xyz.mod:X", ["no_such_pkg_xyz"]),
    ]:
        with pytest.raises(StrategyLoadError) as e:
            get_strategy(spec)
        msg = str(e.value)
        assert spec in msg and "\n" not in msg
        assert all(w in msg for w in words), msg
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def f(:\n    pass\n")
    with pytest.raises(StrategyLoadError, match="SyntaxError") as e:
        get_strategy(f"{syntax}:f")
    assert "\n" not in str(e.value)


def test_file_without_attribute_gets_a_hint() -> None:
    with pytest.raises(UnknownStrategy, match=":Name"):
        get_strategy("tests/plugin_example.py")


def test_class_that_is_not_a_strategy(tmp_path: Path) -> None:
    f = tmp_path / "nochoose.py"
    f.write_text("class A:\n    name = 'a'\nclass B:\n    def choose(self, v, r):\n        return 0, None\n"
                 "class C:\n    def __init__(self):\n        raise RuntimeError('boom\\nsecond line')\n")
    with pytest.raises(StrategyLoadError, match="choose"):
        get_strategy(f"{f}:A")
    with pytest.raises(StrategyLoadError, match="name"):
        get_strategy(f"{f}:B")
    with pytest.raises(StrategyLoadError, match="boom second line"):
        get_strategy(f"{f}:C")


def test_spec_parameters() -> None:
    assert parse_spec("weighted?w_points=1.5,w_wild=-2, flag=true,n=3,s=abc,z=none") == (
        "weighted", {"w_points": 1.5, "w_wild": -2, "flag": True, "n": 3, "s": "abc", "z": None}
    )
    assert parse_spec(" greedy ") == ("greedy", {})
    s = get_strategy("weighted?w_points=1.5,w_wild=-2")
    assert s.name == "weighted?w_points=1.5,w_wild=-2"
    assert s.weights["w_points"] == 1.5 and s.weights["w_wild"] == -2.0  # type: ignore[attr-defined]
    assert get_strategy("weighted").name == "weighted"
    with pytest.raises(StrategyLoadError, match="w_nope"):
        get_strategy("weighted?w_nope=1")
    with pytest.raises(StrategySpecError, match="name=value"):
        get_strategy("weighted?w_points")
    with pytest.raises(StrategySpecError):
        get_strategy("?a=1")


def test_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, highest="tests.plugin_example:HighestCard",
                      broken="no_such_pkg_xyz:Thing", greedy="tests.plugin_example:HighestCard")
    av = available()
    assert "highest" in av and "broken" in av
    assert av["greedy"] == get_strategy("greedy").description
    assert get_strategy("highest").name == "highest-card"
    assert get_strategy("greedy").name == "greedy"  # built-ins win
    with pytest.raises(StrategyLoadError, match="broken.*no_such_pkg_xyz"):
        get_strategy("broken")
    with pytest.raises(UnknownStrategy, match="highest"):
        get_strategy("nothing-here")


def test_register_and_validate() -> None:
    @register("test-only-first-legal")
    class FirstLegal:
        """plays the first legal action"""

        name = "test-only-first-legal"

        def choose(self, view: DecisionView, rng: np.random.Generator) -> tuple[int, None]:
            return view.legal[0], None

    try:
        assert available()["test-only-first-legal"] == "plays the first legal action"
        assert get_strategy("test-only-first-legal").choose(view(), np.random.default_rng(0))[0] == parse_card("8H")
        with pytest.raises(ValueError, match="already registered"):
            register("test-only-first-legal")(type("Other", (), {}))
    finally:
        analyzer.core.registry._REGISTRY.pop("test-only-first-legal")

    assert validate_strategy(FirstLegal()) is not None
    with pytest.raises(StrategyLoadError):
        validate_strategy(object())
    with pytest.raises(StrategyLoadError, match="choose_batch"):
        validate_strategy(type("X", (), {"name": "x", "choose": lambda s, v, r: (0, None), "choose_batch": 3})())


def test_builtins_map_names_each_registration_and_its_module() -> None:
    """strategies.BUILTINS, which the registry imports from, names every built-in and the module whose
    @register makes it: a name added, moved or renamed in a module without the map fails here."""
    available()  # every built-in module imported
    registered = {name: f.__module__ for name, f in analyzer.core.registry._REGISTRY.items()
                  if f.__module__.startswith("strategies.")}
    assert registered == strategies.BUILTINS


def test_a_light_builtin_imports_no_search_strategy() -> None:
    """Building greedy or weighted (what a report's wild-twin check does) imports their modules alone, not the
    search strategies and their compiled kernels (numba), which take a second to import."""
    code = ("import sys\nfrom strategies import get_strategy\nfrom analyzer.core.registry import wild_twins\n"
            "get_strategy('greedy'); get_strategy('weighted?w_wild=-2'); get_strategy('random')\n"
            "assert wild_twins('wild-keeper', 'wild-dumper')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite')\n"
            "             or m.startswith(('analyzer.kernel', 'strategies.expert', 'strategies.pimc', 'strategies.ismcts'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_builtin_whose_module_fails_to_import_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(analyzer.core.registry._LAZY, "test-only-missing", "strategies.no_such_module")
    with pytest.raises(StrategyLoadError, match="no_such_module") as e:
        get_strategy("test-only-missing")
    assert "\n" not in str(e.value)
