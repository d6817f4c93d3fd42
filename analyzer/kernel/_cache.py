"""Where numba keeps compiled kernels (issue 12, point 4: compilation is invisible).

Runs *before* numba is imported (``analyzer.kernel`` imports it first) and sets
``NUMBA_CACHE_DIR`` to ``<base>/<hash of the kernel's sources>``:

* numba checks a cached kernel only against the modification time of the file
  holding the top-level function, not the files of the functions it calls, so
  an edit to ``turn.py`` would leave a stale ``driver.py`` kernel in use; a
  folder per source hash makes any change of any kernel file start afresh;
* ``<base>`` is the user's ``NUMBA_CACHE_DIR`` if set, else the user cache
  folder (``$XDG_CACHE_HOME`` or ``~/.cache``)/durak-analyzer, else the system
  temp dir; the first writable one wins.  If none is writable, caching is
  switched off with a one-line note: kernels then compile on every run
  (slower start, same results).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _writable(folder: Path) -> bool:
    """True if ``folder`` exists (or can be made) and a file can be created in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def source_hash(package_dir: Path = _PACKAGE_DIR) -> str:
    """A short hash of every kernel source file (names and contents)."""
    h = hashlib.sha256()
    for f in sorted(package_dir.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def candidate_bases() -> list[Path]:
    """Cache bases in order of preference."""
    out = []
    if os.environ.get("NUMBA_CACHE_DIR"):
        out.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    out.append(Path(xdg) / "durak-analyzer")
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    out.append(Path(tempfile.gettempdir()) / f"durak-analyzer-{uid}")
    return out


def choose_cache_dir(bases: list[Path] | None = None, package_dir: Path = _PACKAGE_DIR) -> Path | None:
    """The folder for this version of the kernels, or None when nothing is writable."""
    tag = source_hash(package_dir)
    for base in candidate_bases() if bases is None else bases:
        folder = base / f"kernels-{tag}"
        if _writable(folder):
            return folder
    return None


def configure() -> bool:
    """Set NUMBA_CACHE_DIR (before numba is imported); returns whether to cache."""
    folder = choose_cache_dir()
    if folder is None:
        print("note: no writable folder for compiled kernels; they compile on every run", file=sys.stderr)
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before us: numba reads its config at import
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return True


#: Whether the kernels are compiled with ``cache=True``.
CACHE = configure()
