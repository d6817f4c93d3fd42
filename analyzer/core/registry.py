"""Strategy registry: string specs -> strategy objects (STYLE.md section 4).

A *spec* names a strategy on the command line and in experiment files::

    greedy                              a built-in (see ``available()``)
    weighted?w_points=1.5,w_wild=-2     keyword arguments after '?', comma separated
                                        (in a line-up, strategies are separated by ';',
                                        ',' or blanks: analyzer.execution.lineup)
    mypkg.mymod:MyStrategy              an importable module and an attribute
    path/to/file.py:MyStrategy          a Python file (loaded by path) and an attribute
    mystrat                             an entry point of group ``durak.strategies``

The attribute may be a class (instantiated with the keyword arguments, none by
default), a factory function taking no required arguments (called likewise),
a ready instance, or a plain function ``choose(view, rng)`` (wrapped so that
its name is the spec).  The first '?' starts the parameters, so a plugin path
must not contain one.  Values in ``?k=v`` are read as int, float,
true/false or none, else kept as text.  A strategy made with arguments gets the
whole spec as its ``name``, so two tunings never share a name in results.

Built-ins take precedence over entry points of the same name.  Every failure is
a one-line ``StrategySpecError`` (a ValueError): ``UnknownStrategy`` lists the
known names, ``StrategyLoadError`` names the spec and the reason.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from analyzer.core.contract import Action, DecisionView, Strategy

ENTRY_POINT_GROUP = "durak.strategies"
#: The package(s) whose import registers the built-in strategies.  Declared as
#: entry points (pyproject.toml) so that the core never imports ``strategies``:
#: strategies depend on the core, not the reverse.  A package with a ``BUILTINS``
#: mapping (name -> the module that registers it) has its modules imported one by
#: one, when a name is first asked for: building ``greedy`` then does not import
#: the search strategies and their compiled kernels (numba), a second of a
#: report's time.  A package without one registers everything on its import.
BUILTIN_GROUP = "durak.builtins"

#: Built-in name -> factory (a class or a callable returning a strategy).
_REGISTRY: dict[str, Callable[..., Any]] = {}
#: Built-in name -> the module whose import registers it (not imported yet, or imported: see ``_builtin``).
_LAZY: dict[str, str] = {}

F = TypeVar("F", bound=Callable[..., Any])


class StrategySpecError(ValueError):
    """A strategy spec that cannot be turned into a strategy (one-line message)."""


class UnknownStrategy(StrategySpecError):
    """No built-in or entry point has this name."""


class StrategyLoadError(StrategySpecError):
    """A plugin that cannot be imported, built or is not a strategy."""


def register(name: str) -> Callable[[F], F]:
    """Class/factory decorator: make ``name`` a built-in spec (refuses a duplicate name)."""

    def deco(factory: F) -> F:
        if name in _REGISTRY and _REGISTRY[name] is not factory:
            raise ValueError(f"strategy name {name!r} is already registered")
        _REGISTRY[name] = factory
        return factory

    return deco


_builtins_loaded = False


def _load_builtins() -> None:
    """Import the packages that register the built-ins (entry-point group ``durak.builtins``) and note the
    modules their ``BUILTINS`` maps name, without importing those."""
    global _builtins_loaded
    if _builtins_loaded:
        return
    for ep in importlib.metadata.entry_points(group=BUILTIN_GROUP):
        lazy = getattr(ep.load(), "BUILTINS", None)
        if isinstance(lazy, Mapping):
            for name, module in lazy.items():
                _LAZY.setdefault(str(name), str(module))
    _builtins_loaded = True


def _builtin(name: str) -> Callable[..., Any] | None:
    """The factory of built-in ``name``, its module imported on first use; None if no built-in has the name."""
    _load_builtins()
    if name not in _REGISTRY and name in _LAZY:
        module = _LAZY[name]
        try:
            importlib.import_module(module)
        except Exception as e:
            raise StrategyLoadError(f"strategy {name}: cannot import module {module!r}: {_one_line(e)}") from e
        if name not in _REGISTRY:
            raise StrategyLoadError(f"strategy {name}: module {module!r} does not register it")
    return _REGISTRY.get(name)


def _load_all_builtins() -> None:
    """Every built-in registered: what listing them needs (their descriptions and parameters)."""
    _load_builtins()
    for name in sorted(_LAZY):
        _builtin(name)


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {ep.name: ep for ep in eps}


def _describe(obj: Any) -> str:
    """One-line description: the ``description`` attribute, else the docstring's first line."""
    desc = getattr(obj, "description", None)
    if isinstance(desc, str) and desc.strip():
        return desc.strip().splitlines()[0]
    doc = inspect.getdoc(obj) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def available() -> dict[str, str]:
    """Name -> one-line description of every built-in, then every entry point.

    Entry points are described by their target without importing it (a broken
    plugin must not break the listing).
    """
    _load_all_builtins()
    out = {name: _describe(f) for name, f in sorted(_REGISTRY.items())}
    for name, ep in sorted(_entry_points().items()):
        out.setdefault(name, f"plugin {ep.value}")
    return out


def parameters(name: str) -> list[str]:
    """``k=default`` for each keyword a built-in's factory takes, read off its signature.

    What ``durak strategies`` lists, so that a tunable strategy shows what
    ``name?k=v`` accepts.  An entry point is not imported (a broken plugin must
    not break the listing): it shows none.
    """
    factory = _builtin(name)
    if factory is None:
        return []
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return []
    return [f"{p.name}={p.default!r}" if p.default is not p.empty else p.name
            for p in sig.parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"]


@dataclass(frozen=True)
class Param:
    """What one numeric strategy parameter accepts: a whole number (``whole``) or any number, from ``lo`` to
    ``hi`` (``lo`` itself excluded with ``above``), as the compiled path takes it (int64 counts, float64
    weights); ``meaning`` follows "a whole number" in the message (e.g. " of rollout turns (0 = every world)").

    A strategy lists its parameters in ``params`` (name -> Param) and checks each in its constructor with
    :meth:`check`, so that a value the compiled search cannot take is refused there, on one line naming the
    parameter, and ``durak tune`` reads the same bounds.
    """

    whole: bool
    lo: float
    hi: float
    meaning: str = ""
    above: bool = False

    def check(self, name: str, value: Any) -> Any:
        """``value`` (an int for a whole number, a float otherwise), or ValueError naming ``name``."""
        ok = not isinstance(value, bool) and isinstance(value, (int, float) if not self.whole else int)
        if ok:
            try:
                x = float(value)
            except OverflowError:
                ok = False
            else:
                ok = math.isfinite(x) and (x > self.lo if self.above else x >= self.lo) and x <= self.hi
        if not ok:
            what = "a whole number" if self.whole else "a number"
            lo = f"above {self.lo:g}" if self.above else f"from {_num(self.lo)}"
            raise ValueError(f"{name} must be {what}{self.meaning} {lo} to {_num(self.hi)}, not {value!r}")
        return int(value) if self.whole else float(value)


def _num(x: float) -> str:
    """A bound as a person reads it: 4,096, 1e+12 for the huge, 0.5."""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:g}"


def check_params(params: Mapping[str, Param], values: Mapping[str, Any]) -> dict[str, Any]:
    """Each of ``values`` checked by its Param (a strategy constructor's arguments); the converted values."""
    return {k: params[k].check(k, v) if k in params else v for k, v in values.items()}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``target?k=v,k=v`` into the target and typed keyword arguments."""
    spec = spec.strip()
    target, sep, params = spec.partition("?")
    kwargs: dict[str, Any] = {}
    if sep:
        for item in filter(None, (p.strip() for p in params.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip().isidentifier():
                raise StrategySpecError(
                    f"bad strategy parameter {item!r} in {spec!r}: expected name=value, "
                    "e.g. weighted?w_points=1.5,w_wild=-2"
                )
            kwargs[key.strip()] = _parse_value(value.strip())
    if not target.strip():
        raise StrategySpecError(f"empty strategy name in {spec!r}")
    return target.strip(), kwargs


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "on", "yes"):
        return True
    if low in ("false", "off", "no"):
        return False
    if low == "none":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


class FunctionStrategy:
    """Adapter that makes a plain ``choose(view, rng)`` function a strategy."""

    description = "a plugin function"

    def __init__(self, fn: Callable[[DecisionView, np.random.Generator], Action], name: str) -> None:
        self.fn = fn
        self.name = name
        self.description = _describe(fn) or f"plugin function {name}"

    def choose(self, view: DecisionView, rng: np.random.Generator) -> Action:
        return self.fn(view, rng)

    def __repr__(self) -> str:
        return f"FunctionStrategy({self.name!r})"


def validate_strategy(obj: Any, spec: str | None = None) -> Strategy:
    """Return ``obj`` if it has a non-empty str ``name`` and callable ``choose``, else raise."""
    what = spec or repr(obj)
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name:
        raise StrategyLoadError(f"strategy {what}: has no non-empty str attribute 'name'")
    if not callable(getattr(obj, "choose", None)):
        raise StrategyLoadError(f"strategy {what}: has no method choose(view, rng)")
    batch = getattr(obj, "choose_batch", None)
    if batch is not None and not callable(batch):
        raise StrategyLoadError(f"strategy {what}: choose_batch is not callable")
    return obj


def _build(obj: Any, spec: str, kwargs: dict[str, Any]) -> Strategy:
    """Turn a loaded attribute (class, instance or function) into a validated strategy."""
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "choose") and _is_factory(obj)):
        try:
            inst = obj(**kwargs)
        except Exception as e:  # the plugin's own error, reported on one line
            raise StrategyLoadError(f"strategy {spec}: cannot build it: {_one_line(e)}") from e
        if kwargs:
            try:
                inst.name = spec
            except AttributeError:
                pass
        return validate_strategy(inst, spec)
    if kwargs:
        raise StrategyLoadError(f"strategy {spec}: parameters need a class, not {type(obj).__name__}")
    if hasattr(obj, "choose"):
        return validate_strategy(obj, spec)
    if callable(obj):
        return FunctionStrategy(obj, spec)
    raise StrategyLoadError(f"strategy {spec}: {type(obj).__name__} is neither a class, a strategy nor a function")


def _is_factory(obj: Any) -> bool:
    """A registered factory function takes no positional arguments; ``choose`` takes two."""
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in params
    )


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _load_file(path: str, spec: str) -> Any:
    p = Path(path).expanduser()
    if not p.is_file():
        raise StrategyLoadError(f"strategy {spec}: no such file {path!r}")
    mod_name = "durak_plugin_" + "".join(ch if ch.isalnum() else "_" for ch in str(p.resolve()))
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    mspec = importlib.util.spec_from_file_location(mod_name, p)
    if mspec is None or mspec.loader is None:
        raise StrategyLoadError(f"strategy {spec}: cannot load {path!r} as Python")
    module = importlib.util.module_from_spec(mspec)
    sys.modules[mod_name] = module
    try:
        mspec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[mod_name]
        raise StrategyLoadError(f"strategy {spec}: cannot import {path!r}: {_one_line(e)}") from e
    return module


def _load_module(name: str, spec: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception as e:
        raise StrategyLoadError(f"strategy {spec}: cannot import module {name!r}: {_one_line(e)}") from e


def _is_path(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def get_strategy(spec: str) -> Strategy:
    """Build a fresh strategy from a spec (module docstring); raises StrategySpecError."""
    if not isinstance(spec, str):
        raise StrategySpecError(f"strategy spec must be a string, not {type(spec).__name__}")
    target, kwargs = parse_spec(spec)
    factory = _builtin(target)
    if factory is not None:
        return _build(factory, spec.strip(), kwargs)
    where, colon, attr = target.rpartition(":")
    if colon and where and attr and not ("/" in attr or "\\" in attr):
        module = _load_file(where, spec) if _is_path(where) else _load_module(where, spec)
        if not hasattr(module, attr):
            raise StrategyLoadError(f"strategy {spec}: {where!r} has no attribute {attr!r}")
        return _build(getattr(module, attr), spec.strip(), kwargs)
    eps = _entry_points()
    if target in eps:
        try:
            obj = eps[target].load()
        except Exception as e:
            raise StrategyLoadError(
                f"strategy {spec}: cannot load entry point {eps[target].value!r}: {_one_line(e)}"
            ) from e
        return _build(obj, spec.strip(), kwargs)
    known = ", ".join(sorted(set(_REGISTRY) | set(_LAZY) | set(eps)))
    hint = " (a file needs :Name, e.g. my.py:MyStrategy)" if target.endswith(".py") else ""
    raise UnknownStrategy(
        f"unknown strategy {target!r}{hint}; known: {known}; or use module:Name or path/file.py:Name"
    )


def wild_twin_key(spec: str) -> tuple[Any, ...] | None:
    """What a strategy plays like apart from when its wilds go, or None if it declares nothing.

    A strategy declares it in one of two ways: ``wild_twin = "greedy"`` (wild-keeper, wild-dumper and
    greedy itself play greedy's moves but for the wild), or ``wild_params = ("w_wild",)`` (two specs of
    ``weighted`` whose parameters differ only in ``w_wild`` differ only in wild handling).  Only two
    strategies with the same key isolate the wild in a keeper-against-dumper comparison.  A spec that
    cannot be built here (a plugin file gone since the run) has no key.
    """
    try:
        obj = get_strategy(spec)
        target, kwargs = parse_spec(spec)
    except (StrategySpecError, TypeError, ValueError):
        return None
    wild_params = tuple(getattr(obj, "wild_params", ()) or ())
    if wild_params:
        factory = _REGISTRY.get(target)
        defaults: dict[str, Any] = {}
        if factory is not None:
            try:
                defaults = {p.name: p.default for p in inspect.signature(factory).parameters.values()
                            if p.default is not p.empty}
            except (TypeError, ValueError):
                defaults = {}
        rest = {k: v for k, v in kwargs.items() if k not in wild_params and defaults.get(k, object()) != v}
        return ("params", target, tuple(sorted((k, repr(v)) for k, v in rest.items())))
    twin = getattr(obj, "wild_twin", None)
    if isinstance(twin, str) and twin and not kwargs:
        return ("twin", twin)
    return None


def wild_twins(a: str, b: str) -> bool:
    """Do strategies ``a`` and ``b`` differ in wild handling alone (:func:`wild_twin_key`)?  Two equal specs
    do not: nothing differs."""
    if a.strip() == b.strip():
        return False
    ka = wild_twin_key(a)
    return ka is not None and ka == wild_twin_key(b)
