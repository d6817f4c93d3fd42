"""The ways kernel functions are compiled (one place for the numba options).

* :data:`inner` — phase functions, strategies, bit and random helpers: they
  allocate nothing, so they are compiled without numba's reference counting
  (``_nrt=False``, no atomic counter updates around every call), and with
  ``error_model="numpy"`` (no division-by-zero checks: no divisor in the
  kernel can be zero, players >= 2 and decks >= 32 cards);
* :func:`outer` — the block drivers called from Python: they allocate their
  scratch arrays and release the GIL, so threads run blocks side by side;
* :data:`body` — a block driver's body, inlined both into its generic kernel
  (the rules ``p`` an argument) and into the kernels compiled for one rule
  set (:class:`Specialised`).

All are cached (analyzer.kernel._cache chooses where).  A driver compiles in a
child process and is loaded from the cache (:class:`Apart`,
analyzer.kernel.apart: what a compile leaves in a process's memory stays out of
this one).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from analyzer.kernel import apart
from analyzer.kernel._cache import CACHE, guard_numba_reads, place_by_checkout

guard_numba_reads()  # an unreadable cache file is a miss: the kernel compiles again
place_by_checkout()  # another checkout of the same sources loads the kernels compiled for them


class Apart(CPUDispatcher):
    """A dispatcher whose cold signatures compile in a child process (analyzer.kernel.apart), then load from
    the cache here; a signature the cache holds, or one asked for while compiling another kernel, as numba
    does it."""

    def compile(self, sig: Any) -> Any:
        if isinstance(sig, tuple) and apart.wanted() and not global_compiler_lock.is_locked():
            with global_compiler_lock:  # one thread asks for a compile; the others then find it loaded
                if self.overloads.get(sig) is None and not _cached(self, sig) and apart.compile_in_child(self, sig):
                    entry = super().compile(sig)  # loads what the child compiled
                    apart.count_as_compiled(self, sig)
                    return entry
        return super().compile(sig)


def _cached(dispatcher: Apart, sig: tuple[Any, ...]) -> bool:
    """The cache holds ``sig`` (True also when the index cannot be read: numba then goes its own way)."""
    try:
        return apart.in_cache(dispatcher, sig)
    except Exception:
        return True


def _apart(dispatcher: Any) -> Any:
    """``dispatcher`` as an :class:`Apart` (the class alone changes; numba's options stay as given)."""
    dispatcher.__class__ = Apart
    return dispatcher


inner = njit(cache=CACHE, _nrt=False, error_model="numpy", forceinline=True)  # type: ignore[call-overload]  # numba target options
_outer = njit(cache=CACHE, nogil=True, error_model="numpy")


def outer(func: Callable[..., Any]) -> Any:
    """A block driver (called from Python; releases the GIL), compiled apart (:class:`Apart`)."""
    return _apart(_outer(func))


helper = njit(cache=CACHE, error_model="numpy")  # small allocating helpers of the drivers
body = njit(cache=CACHE, error_model="numpy", forceinline=True)

#: a rule set plays on a kernel compiled for it once a process has asked for this many deals of it
SPECIALISE_FROM = 1_000_000


class Specialised:
    """One kernel compiled once per rule set, the rules folded in as constants.

    ``make(p)`` builds a kernel taking the generic kernel's arguments but the
    rules (it closes over ``p``, which numba freezes as a constant array: the
    option tests fold away, the tables become constant look-ups, and no write
    to the deal's state can alias the rules).  It plays the same code, so the
    results are bit-identical to the generic kernel's.  Compiling one costs a
    few seconds; numba caches it by the closure's contents, so a rule set
    (and line-up, where one is folded in too) compiles once per machine.  A process switches a rule set to its own
    kernel once it has asked for :data:`SPECIALISE_FROM` deals of it (a big
    run at once, or many small ones such as search's rollouts).  ``make`` is
    a module-level function: a child process compiling a kernel apart calls it
    again with the same arguments (analyzer.kernel.apart).
    """

    def __init__(self, make: Callable[..., Any], threshold: int = SPECIALISE_FROM) -> None:
        self._make = make
        self.threshold = threshold
        self._kernels: dict[tuple[bytes, int | None], Any] = {}
        self._asked: dict[bytes, int] = {}
        self._cached: dict[tuple[bytes, int | None], bool] = {}
        self._lock = threading.Lock()

    def in_cache(self, p: np.ndarray, lineup: int | None = None) -> bool:
        """Whether numba's cache holds the kernel compiled for rules ``p`` (and ``lineup``), found without loading
        it; False where the cache cannot tell.  numba keys a kernel compiled for a closure on the closure's contents;
        one signature is as good as another here (a missing one compiles, the results are the same).  Asked once
        per process per kernel."""
        key = (np.asarray(p, np.int64).tobytes(), lineup)
        found = self._cached.get(key)
        if found is None:
            fixed = np.array(p, np.int64)
            try:
                made = self._make(fixed) if lineup is None else self._make(fixed, lineup)
                want = made._cache._index_key(None, made.targetctx.codegen())[1:]  # (sig, machine, contents): all but sig
                found = any(k[1:] == want for k in made._cache._cache_file._load_index())
            except Exception:  # a cache index that cannot be read, a stand-in maker
                found = False
            self._cached[key] = found
        return found

    def kernel(self, p: np.ndarray, units: int, specialise: bool | None = None, lineup: int | None = None) -> Any | None:
        """The kernel compiled for rules ``p``, or None for the generic one; ``units`` are the deals asked now.

        ``specialise``: True always, False never, None once the process has asked for ``threshold`` deals (of
        these rules, whatever the line-up).  ``lineup`` given: the kernel compiled for the rules and this
        line-up code too, ``make(p, lineup)`` (analyzer.kernel.driver folds a line-up whose seats all play one
        compiled kind); each (rules, lineup) compiles once.
        """
        if specialise is False:
            return None
        rules = p.tobytes()
        key = (rules, lineup)
        with self._lock:
            k = self._kernels.get(key)
            if k is None:
                asked = self._asked[rules] = self._asked.get(rules, 0) + units
                if not specialise and asked < self.threshold:
                    return None
                fixed = np.array(p, np.int64)
                args = (fixed,) if lineup is None else (fixed, lineup)
                k = self._kernels[key] = self._make(*args)
                try:  # how a child process makes the same kernel (analyzer.kernel.apart)
                    k.apart_recipe = ("made", self._make.__module__, self._make.__qualname__, args)
                except AttributeError:  # a stand-in that takes no attributes (tests' tuples): nothing to compile
                    pass
        return k

    def runner(self, generic: Callable[..., Any], p: np.ndarray, units: int,
               specialise: bool | None = None, lineup: int | None = None) -> Callable[..., Any]:
        """The kernel to call with ``generic``'s arguments but ``p``: the one compiled for ``p`` (and ``lineup``,
        :meth:`kernel`), else ``generic`` given ``p`` first; one call site for either."""
        fixed = self.kernel(p, units, specialise, lineup)
        return functools.partial(generic, p) if fixed is None else fixed
