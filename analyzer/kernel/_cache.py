"""Where numba keeps compiled kernels (compilation is invisible).

Runs *before* numba is imported (``analyzer.kernel`` imports it first) and sets
``NUMBA_CACHE_DIR`` to ``<base>/<hash of the kernel's sources>``:

* numba checks a cached kernel only against the modification time of the file
  holding the top-level function, not the files of the functions it calls, so
  an edit to ``turn.py`` would leave a stale ``driver.py`` kernel in use; a
  folder per source hash makes any change of any file with compiled code
  start afresh (:func:`compiled_sources`: the kernel's files, and any other
  module of the package that compiles with numba);
* ``<base>`` is the user's ``NUMBA_CACHE_DIR`` if set, else the user cache
  folder (``$XDG_CACHE_HOME`` or ``~/.cache``)/durak-analyzer, else the system
  temp dir; the first writable one wins.  If none is writable, caching is
  switched off with a one-line note: kernels then compile on every run
  (slower start, same results).

The first use of a kernel whose compiled form is not in the folder compiles it
(about 30 s); :func:`announce_if_cold` says so in one line on stderr first
when someone watches it (a terminal; never on stdout, so ``--json`` output stays
clean, and not into logs or captured streams), and says nothing when the kernel
is cached: numba keeps an index file ``<module>.<function>-<line>.py*.nbi``
per cached function, which is cheap to look for.

Inside the folder numba would name each source folder's subfolder by a hash of its absolute path, so a second
checkout of the same sources (a clean clone, a worktree, CI) would compile every kernel again into a folder
already holding them.  :func:`place_by_checkout` names it by the path inside the checkout instead
(``analyzer_kernel``): the folder is named by the sources' content, and numba checks each file's content against
its index (the source stamp), so only kernels of the same sources load.

A cache file numba cannot read (emptied, truncated, zeroed, garbled, or left
by something else), or an index entry that leads to another signature's
kernel, is a miss, not a crash: :func:`guard_numba_reads` makes numba's reads
of index and data files treat it so; the file is removed, the kernel compiles
again and is stored afresh, and one line on stderr names the folder
(:func:`damaged`).  Saves of one function are serialised across processes by
a lock file beside its index, so concurrent compiles cannot cross entries.

Loading a cached kernel skips numba's refresh of its compiler's registries (it
imports and installs every implementation numba has, ~0.4 CPU-s a process,
which only compiling reads; numba's compiler refreshes them itself before a
compile): :func:`guard_numba_reads` installs that too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from analyzer.core.files import user_cache_bases, writable

_PACKAGE_DIR = Path(__file__).resolve().parent
#: the checkout the package was imported from (the folder holding ``analyzer/``): where :func:`place_by_checkout`
#: takes source paths from
CHECKOUT = _PACKAGE_DIR.parents[1]


#: a module compiles with numba if it imports numba or one of the kernel's decorators (analyzer.kernel.jit)
_COMPILES = re.compile(rb"^\s*(?:from numba\b|import numba\b|from analyzer\.kernel\.jit import .*\b(?:inner|outer|body|helper)\b)",
                       re.M)


def compiled_sources(package_dir: Path = _PACKAGE_DIR) -> list[Path]:
    """Every source file the compiled kernels can be built from: all of the kernel's files, and any other module
    of the package (``package_dir``'s parent) that compiles with numba; a kernel inlines functions across
    files, so an edit to any of them must reach the cache key."""
    kernel = sorted(package_dir.glob("*.py"))
    others = sorted(f for f in package_dir.parent.rglob("*.py")
                    if f.parent != package_dir and _COMPILES.search(f.read_bytes()))
    return kernel + others


def source_hash(package_dir: Path = _PACKAGE_DIR) -> str:
    """A short hash of every compiled source file (:func:`compiled_sources`: paths and contents)."""
    h = hashlib.sha256()
    root = package_dir.parent
    for f in compiled_sources(package_dir):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def candidate_bases() -> list[Path]:
    """Cache bases in order of preference."""
    given = [Path(os.environ["NUMBA_CACHE_DIR"])] if os.environ.get("NUMBA_CACHE_DIR") else []
    return given + user_cache_bases()


#: the name of a folder this module chose (``kernels-<source hash>``)
_FOLDER_NAME = re.compile(r"kernels-[0-9a-f]{16}")


def choose_cache_dir(bases: list[Path] | None = None, package_dir: Path = _PACKAGE_DIR) -> Path | None:
    """The folder for this version of the kernels, or None when nothing is writable.

    A base that is itself a kernel folder (``$NUMBA_CACHE_DIR`` as :func:`configure` set it, inherited by a
    child process: a ``--jobs`` worker, a subprocess) stands for its parent, so parent and children share one
    folder of compiled kernels instead of the child compiling them afresh into ``kernels-<hash>/kernels-<hash>``.
    """
    tag = source_hash(package_dir)
    for base in candidate_bases() if bases is None else bases:
        if _FOLDER_NAME.fullmatch(base.name):
            base = base.parent
        folder = base / f"kernels-{tag}"
        if writable(folder):
            return folder
    return None


def configure() -> bool:
    """Set NUMBA_CACHE_DIR (before numba is imported); returns whether to cache."""
    global FOLDER
    folder = choose_cache_dir()
    if folder is None:
        print("note: no writable folder for compiled kernels; they compile on every run", file=sys.stderr)
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    FOLDER = folder
    if "numba" in sys.modules:  # imported before us: numba reads its config at import
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return True


#: The folder compiled kernels are kept in (None: no cache, they compile on every run).
FOLDER: Path | None = None
#: Whether the kernels are compiled with ``cache=True``.
CACHE = configure()

COMPILING = "durak: compiling the engine for this machine (once, about 30 s)…"
COMPILING_UNCACHED = "durak: compiling the engine (about 30 s; no folder to keep it in, so on every run)…"
_announced: set[str] = set()
_announce_lock = threading.Lock()


def is_cold(kernel: str, folder: Path | None) -> bool:
    """Whether ``kernel`` (``"module.function"`` of analyzer.kernel, e.g. ``"driver.deals_kernel"``) will
    compile on its first call: ``folder`` (None: no cache) holds no numba index file for it."""
    if folder is None:
        return True
    module, function = kernel.split(".")
    return not any(folder.glob(f"*/{module}.{function}-*.nbi"))


def _watched() -> bool:
    """stderr is a terminal (a person waits on the compile)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def announce_if_cold(kernel: str) -> None:
    """Before the first call of ``kernel`` in this process: one line on stderr if it is about to compile."""
    if not _watched():
        return
    with _announce_lock:
        if kernel in _announced:
            return
        _announced.add(kernel)
    if is_cold(kernel, FOLDER):
        print(COMPILING if FOLDER is not None else COMPILING_UNCACHED, file=sys.stderr, flush=True)


DAMAGED = "durak: the compiled-kernel cache in {folder} had an unreadable file ({name}); removed it, the kernel compiles again"
_damaged_said: set[str] = set()


def damaged(path: Path) -> None:
    """A cache file numba could not read: remove it (so the compile that follows stores a good one) and say so
    once per folder and process."""
    try:
        path.unlink()
    except OSError:
        pass  # gone already (another process), or read-only: numba compiles in memory either way
    folder = FOLDER if FOLDER is not None and FOLDER in path.parents else path.parent
    with _announce_lock:
        if str(folder) in _damaged_said:
            return
        _damaged_said.add(str(folder))
    print(DAMAGED.format(folder=folder, name=path.name), file=sys.stderr, flush=True)


@contextlib.contextmanager
def _saving(index: Path) -> Iterator[None]:
    """Hold the function's save lock (a lock file beside its index) while numba reads its index, picks a data
    file's name and writes both: without it two processes compiling one function at once (the suite's warm-up,
    ``--jobs``) could pick the same name, and the index would send one signature to the other's kernel."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: saves as numba alone does
        yield
        return
    try:
        fd = os.open(f"{index}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # a read-only folder: numba's own save fails quietly there too
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def guard_numba_reads() -> None:
    """Make numba read a cache file it cannot unpickle, or one that holds another signature's kernel, as a miss
    (:func:`damaged`), not an exception, and save each function's entries one process at a time (once).

    numba lets only a missing file through: an emptied index raised EOFError at every later run, a garbled
    data file an UnpicklingError, both out of the first kernel call.
    """
    from numba.core import caching
    from numba.core.runtime import rtsys

    cls = caching.IndexDataCacheFile
    if getattr(cls, "_durak_guarded", False):
        return
    load_index, load_data = cls._load_index, cls._load_data

    def _load_index(self: Any) -> Any:
        try:
            return load_index(self)
        except FileNotFoundError:
            raise
        except Exception:
            damaged(Path(self._index_path))
            return {}

    def _load_data(self: Any, name: str) -> Any:
        try:
            return load_data(self, name)
        except OSError:
            raise
        except Exception:
            damaged(Path(self._data_path(name)))
            raise OSError(f"unreadable cache file {name}") from None  # numba's load() takes it for a miss

    def _load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        try:
            cres = load_overload(self, sig, target_context)
        except Exception:  # read, but not a compiled kernel (rebuilt from a foreign or garbled pickle)
            damaged(Path(self._cache_file._index_path))
            return None
        want = tuple(sig.args) if hasattr(sig, "args") else tuple(sig)
        if cres is not None and tuple(cres.signature.args) != want:
            # the index sends this signature to another signature's kernel (two processes that once saved at
            # the same moment picked the same file): a miss, and the function's index goes
            damaged(Path(self._cache_file._index_path))
            return None
        return cres

    def save(self: Any, key: Any, data: Any) -> None:
        with _saving(Path(self._index_path)):
            save_entry(self, key, data)

    def load_cached(self: Any, sig: Any, target_context: Any) -> Any:
        # numba's Cache.load_overload refreshes the target context first: that imports and installs every lowering
        # and typing registry (~0.4 CPU-s, the largest part of a command's kernel load), which rebuilding compiled
        # code does not read; numba's compiler refreshes them itself before any compile (CompilerBase).  The runtime
        # (NRT) is what a loaded kernel that allocates needs, so that is initialised here.
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload, save_entry = caching.Cache._load_overload, cls.save
    for owner, name, guarded in ((cls, "_load_index", _load_index), (cls, "_load_data", _load_data),
                                 (caching.Cache, "_load_overload", _load_overload), (cls, "save", save),
                                 (caching.Cache, "load_overload", load_cached)):
        setattr(owner, name, guarded)
    setattr(cls, "_durak_guarded", True)  # noqa: B010 — a mark on numba's class, not an attribute it declares


def checkout_subpath(py_file: str | Path, checkout: Path | None = None) -> str | None:
    """The cache subfolder of a source file of the checkout (default :data:`CHECKOUT`): its folder inside the
    checkout, the parts joined by ``_`` (``analyzer/kernel`` -> ``analyzer_kernel``: one level, as
    :func:`is_cold` looks); None for a file outside it (numba's own locators place that one)."""
    try:
        rel = Path(py_file).resolve().parent.relative_to((checkout or CHECKOUT).resolve())
    except ValueError:
        return None
    return "_".join(rel.parts) or "checkout"


def place_by_checkout() -> None:
    """Make numba place the cached kernels of the checkout's files by their folder inside the checkout, not by a
    hash of its absolute path (module notes), once.  numba's own locators stay behind it for other files, and a
    user's ``NUMBA_CACHE_LOCATOR_CLASSES`` still replaces them all."""
    from numba.core import caching, config  # config: where numba reads NUMBA_CACHE_DIR (configure set it)

    impl = caching.CacheImpl
    if any(getattr(c, "_durak_checkout", False) for c in impl._locator_classes):
        return

    class CheckoutLocator(caching.UserProvidedCacheLocator):
        _durak_checkout = True

        def __init__(self, py_func: Any, py_file: str) -> None:
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(cast(Any, config).CACHE_DIR, checkout_subpath(py_file) or "")

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if checkout_subpath(py_file) is None:
                return None
            return super().from_function(py_func, py_file)

    impl._locator_classes = [CheckoutLocator, *impl._locator_classes]
