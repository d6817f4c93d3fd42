"""Compile a kernel in a child process, then load it from the cache (peak memory < 1 GiB).

A compile keeps memory in its process until the process ends, whatever is
freed afterwards (measured, numba 0.68 / llvmlite 0.50, czech deals kernel
from a cold cache: +245 MiB resident for the compile against +45 MiB to load
the same kernel from the cache):

* llvmlite never frees the pass-instrumentation callbacks of a pass builder,
  and numba makes one per function it optimises and two per library: about
  4,700 for the deals kernel, 17-30 KiB each;
* numba keeps each compiled function's LLVM module (and a copy for linking)
  in its JIT engine, and the optimiser's code pages stay mapped.

A process that compiles every kernel (``durak bench`` from a fresh install)
so peaked near 1 GiB.  Here a kernel called from Python (``jit.outer``) whose
signature is not in the cache is compiled by a child process (``python -c``,
this interpreter and ``sys.path``), which writes it to the cache and exits;
this process then loads it (numba's own cache loading, the same machine code
a later run loads).  The child compiles the kernel from the same sources, so
the kernel is the one this process would have compiled.  If the child fails
(no cache folder, a typing error, no interpreter to start), the kernel
compiles here as before, and any error is raised here.

``DURAK_COMPILE_APART=0`` compiles in-process (the child runs so).
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from analyzer.kernel import _cache

#: the environment variable that turns compiling apart off ("0")
ENV = "DURAK_COMPILE_APART"


@dataclass(frozen=True)
class Compiled:
    """One kernel compiled by a child: its name, the child's wall and CPU seconds (start-up included) and peak
    resident memory (MiB)."""

    kernel: str
    seconds: float
    cpu_seconds: float
    peak_mib: float


#: kernels this process had compiled apart (in order)
COMPILED: list[Compiled] = []


def wanted() -> bool:
    """Compile apart: caching is on (the child hands the kernel over through the cache) and not turned off."""
    return _cache.CACHE and os.environ.get(ENV, "1") != "0" and bool(sys.executable)


def recipe(dispatcher: Any) -> tuple[Any, ...] | None:
    """How a child process gets the same dispatcher: ``("made", module, maker, args)`` as Specialised set it, or
    ``("name", module, qualname)`` for a module-level function; None if neither."""
    made = getattr(dispatcher, "apart_recipe", None)
    if made is not None:
        return tuple(made)
    f = dispatcher.py_func
    if "<locals>" in f.__qualname__:
        return None
    return ("name", f.__module__, f.__qualname__)


def rebuild(how: tuple[Any, ...]) -> Any:
    """The dispatcher :func:`recipe` describes."""
    module = importlib.import_module(how[1])
    if how[0] == "made":
        return getattr(module, how[2])(*how[3])
    return getattr(module, how[2])


def in_cache(dispatcher: Any, sig: tuple[Any, ...]) -> bool:
    """Whether numba's cache index of ``dispatcher`` holds ``sig`` (the key numba's own load looks up)."""
    cache = dispatcher._cache
    key = cache._index_key(sig, dispatcher.targetctx.codegen())
    return key in cache._cache_file._load_index()


def count_as_compiled(dispatcher: Any, sig: tuple[Any, ...]) -> None:
    """numba counted the load of what a child compiled as a cache hit: count it as the compile it was (its
    ``stats`` tell, as before, whether a kernel came from an earlier run's cache)."""
    hits = dispatcher._cache_hits
    if hits.get(sig):
        hits[sig] -= 1
        if not hits[sig]:
            del hits[sig]
        dispatcher._cache_misses[sig] += 1


#: the child's first line: put the parent's import path in place, then serve the request
_CHILD = ("import pickle, sys; path, payload = pickle.load(sys.stdin.buffer); sys.path[:0] = path; "
          "from analyzer.kernel.apart import serve; serve(payload)")


def compile_in_child(dispatcher: Any, sig: tuple[Any, ...]) -> bool:
    """Have a child process compile ``dispatcher`` for ``sig`` into the cache; whether it is there now."""
    how = recipe(dispatcher)
    if how is None:
        return False
    try:
        payload = pickle.dumps((how, sig))
    except Exception:  # an argument type numba cannot pickle: compile here
        return False
    t = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD], input=pickle.dumps((sys.path, payload)),
                             env={**os.environ, ENV: "0"}, capture_output=True, check=False)
    except OSError:
        return False
    if out.returncode != 0:  # its error, if the kernel's own, comes again from the compile here
        return False
    sys.stderr.write(out.stderr.decode(errors="replace"))  # numba's warnings, as a compile here gives them
    try:
        got = json.loads(out.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        got = {}
    name = how[2] if how[0] == "name" else f"{how[2]}{how[3][1:]}"
    COMPILED.append(Compiled(f"{how[1].rsplit('.', 1)[-1]}.{name}", time.perf_counter() - t,
                             float(got.get("cpu_seconds", "nan")), float(got.get("peak_mib", "nan"))))
    return in_cache(dispatcher, sig)


def own_figures() -> dict[str, float]:
    """This process's peak resident memory (MiB: VmHWM, which a child does not inherit from its parent as it
    does ``ru_maxrss``) and CPU seconds so far."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    peak = r.ru_maxrss / 1024.0
    try:
        with open("/proc/self/status") as f:
            peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024.0
    except (OSError, StopIteration, ValueError):
        pass
    return {"peak_mib": round(peak, 1), "cpu_seconds": round(r.ru_utime + r.ru_stime, 3)}


def serve(payload: bytes) -> None:
    """In the child: compile the dispatcher of the request for its signature (numba saves it to the cache)."""
    how, sig = pickle.loads(payload)
    rebuild(how).compile(sig)
    print(json.dumps(own_figures()), flush=True)


def compile_summary() -> dict[str, float | int]:
    """What :data:`COMPILED` holds: kernels compiled apart, their seconds, and the largest child's peak (MiB;
    0 if none) -- the cold-compile peak, apart from the peak of this process's runs."""
    return {"kernels": len(COMPILED), "seconds": round(sum(c.seconds for c in COMPILED), 3),
            "cpu_seconds": round(sum(c.cpu_seconds for c in COMPILED), 3),
            "peak_mib": round(max((c.peak_mib for c in COMPILED if c.peak_mib == c.peak_mib), default=0.0), 1)}
