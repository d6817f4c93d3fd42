"""A canary for the numba internals the kernel relies on beyond numba's public API.

Compile-apart (analyzer.kernel.jit.Apart, analyzer.kernel.apart) swaps a dispatcher's class and reads numba's
cache index; the cache guard (analyzer.kernel._cache.guard_numba_reads) wraps numba's cache-file readers; the bit
and random helpers (analyzer.kernel.bitops, analyzer.kernel.rng) emit llvmlite IR.  numba and llvmlite are pinned
to the minor versions these were tested with (pyproject.toml); an upgrade that moves any of them fails here with
a message naming what moved and who relies on it, instead of failing deep inside a compile.
"""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]

#: (object path, attribute, who relies on it)
INTERNALS = [
    ("numba.core.registry", "CPUDispatcher", "analyzer.kernel.jit.Apart subclasses it"),
    ("numba.core.compiler_lock", "global_compiler_lock", "analyzer.kernel.jit.Apart.compile holds it"),
    ("numba.core.caching", "IndexDataCacheFile", "analyzer.kernel._cache.guard_numba_reads wraps its readers"),
    ("numba.core.caching", "Cache", "analyzer.kernel._cache.guard_numba_reads wraps Cache._load_overload"),
    ("numba.core.caching", "CacheImpl", "analyzer.kernel._cache.place_by_checkout puts its locator first in its list"),
    ("numba.core.caching", "UserProvidedCacheLocator", "analyzer.kernel._cache.place_by_checkout subclasses it"),
    ("numba.core.cgutils", "alloca_once", "analyzer.kernel.rng.stack_words emits it"),
    ("numba.np.arrayobj", "populate_array", "analyzer.kernel.rng.stack_words fills its array with it"),
    ("llvmlite.binding", "get_host_cpu_features", "analyzer.kernel.bitops._has_pdep reads the CPU's features"),
    ("llvmlite.ir", "FunctionType", "analyzer.kernel.bitops.pdep declares the BMI2 intrinsic"),
]
#: private methods numba's cache classes must keep (class path, method, who relies on it)
METHODS = [
    ("numba.core.caching", "IndexDataCacheFile", "_load_index", "the cache guard and apart.in_cache"),
    ("numba.core.caching", "IndexDataCacheFile", "_load_data", "the cache guard"),
    ("numba.core.caching", "IndexDataCacheFile", "_data_path", "the cache guard names the damaged file"),
    ("numba.core.caching", "Cache", "_load_overload", "the cache guard"),
    ("numba.core.caching", "Cache", "_index_key", "apart.in_cache and jit.Specialised.in_cache"),
]


def _moved(what: str, version: str, who: str) -> str:
    return f"numba {version} moved {what}, which {who} relies on: adapt it there, then widen the pin in pyproject.toml"


def test_numba_and_llvmlite_are_in_the_pinned_ranges() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {Requirement(d).name: Requirement(d).specifier for d in deps}
    for name in ("numba", "llvmlite"):
        assert name in pins and pins[name], f"{name} has no version range in pyproject.toml"
        installed = importlib.metadata.version(name)
        assert installed in pins[name], f"{name} {installed} is outside the tested range {pins[name]}"


@pytest.mark.parametrize("module,attribute,who", INTERNALS, ids=[f"{m}.{a}" for m, a, _ in INTERNALS])
def test_the_internals_the_kernel_reaches_are_there(module: str, attribute: str, who: str) -> None:
    import importlib

    import numba

    mod = importlib.import_module(module)
    assert hasattr(mod, attribute), _moved(f"{module}.{attribute}", numba.__version__, who)


@pytest.mark.parametrize("module,cls,method,who", METHODS, ids=[f"{c}.{m}" for _, c, m, _ in METHODS])
def test_the_cache_methods_the_kernel_wraps_are_there(module: str, cls: str, method: str, who: str) -> None:
    import importlib

    import numba

    owner = getattr(importlib.import_module(module), cls)
    assert callable(getattr(owner, method, None)), _moved(f"{module}.{cls}.{method}", numba.__version__, who)


def test_the_cache_locators_are_a_list_the_checkout_locator_heads() -> None:
    """place_by_checkout puts its locator before numba's own in ``CacheImpl._locator_classes``, and numba's locator
    calls (``from_function``, ``get_cache_path``) are what it overrides."""
    import numba
    from numba.core import caching

    import analyzer.kernel.jit  # noqa: F401 (installs the locator)

    where = "analyzer.kernel._cache.place_by_checkout"
    classes = getattr(caching.CacheImpl, "_locator_classes", None)
    assert isinstance(classes, list), _moved("numba.core.caching.CacheImpl._locator_classes", numba.__version__, where)
    assert getattr(classes[0], "_durak_checkout", False) and caching.UserProvidedCacheLocator in classes[1:]
    for method in ("from_function", "get_cache_path", "get_source_stamp"):
        assert callable(getattr(caching.UserProvidedCacheLocator, method, None)), \
            _moved(f"numba.core.caching.UserProvidedCacheLocator.{method}", numba.__version__, where)


def test_a_dispatcher_can_become_apart_and_its_cache_index_be_read() -> None:
    """What compile-apart does to a real dispatcher: its class swapped (numba's options kept), its cache index
    looked up by numba's own key, its hit and miss counters adjusted."""
    import numba
    from numba import njit

    from analyzer.kernel import apart
    from analyzer.kernel.jit import Apart, _apart

    version = numba.__version__
    f = njit(cache=True)(lambda x: x + 1)
    assert f(np.int64(1)) == 2
    g = _apart(f)
    assert isinstance(g, Apart) and g.targetoptions == f.targetoptions, _moved("the dispatcher's class", version,
                                                                               "analyzer.kernel.jit._apart")
    sig = next(iter(g.overloads))
    for attr in ("_cache_hits", "_cache_misses", "targetctx", "py_func"):
        assert hasattr(g, attr), _moved(f"Dispatcher.{attr}", version, "analyzer.kernel.apart")
    assert isinstance(apart.in_cache(g, sig), bool)


def _body(source: str, header: str) -> list[str]:
    """The statements (stripped lines, comments and docstring left out) of the function that starts at ``header``
    in ``source``."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(header))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body, in_doc = [], False
    for line in lines[start + 1:]:
        text = line.strip()
        if text and len(line) - len(line.lstrip()) <= indent:
            break
        if text.startswith('"""'):
            in_doc = not (in_doc or (text.endswith('"""') and len(text) > 3))
            continue
        if in_doc or not text or text.startswith("#"):
            continue
        body.append(text)
    return body


def test_numbas_cached_load_is_a_refresh_then_the_load_the_kernel_does_without_the_refresh() -> None:
    """analyzer.kernel._cache loads cached kernels as numba's Cache.load_overload does, less its refresh of the
    compiler's registries (only compiles read them, and numba's compiler refreshes them itself): that holds while
    numba's load is exactly "refresh, then _load_overload under the IO guard" and its compiler refreshes first."""
    import inspect

    import numba
    from numba.core import caching, compiler

    ours = "analyzer.kernel._cache.guard_numba_reads (load_cached)"
    body = _body(inspect.getsource(caching.Cache), "def load_overload(self, sig, target_context):")
    assert body == ["target_context.refresh()", "with self._guard_against_spurious_io_errors():",
                    "return self._load_overload(sig, target_context)"], \
        _moved(f"numba.core.caching.Cache.load_overload (now {body})", numba.__version__, ours)
    init = _body(inspect.getsource(compiler.CompilerBase), "def __init__(self, typingctx, targetctx,")
    assert "typingctx.refresh()" in init and "targetctx.refresh()" in init, \
        _moved("the registry refresh out of numba.core.compiler.CompilerBase.__init__", numba.__version__, ours)
