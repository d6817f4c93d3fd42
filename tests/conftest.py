"""Test-wide settings.

Hypothesis runs derandomized in CI (``CI`` is set there, or ``HYPOTHESIS_PROFILE=ci``):
the same examples every run, so a red CI is reproducible and never a coin toss.
Locally the ``dev`` profile explores new examples each run.

Compiled kernels once per test run (issue 12): before any test, the process that
runs the session (pytest-xdist's controller, or the only process with ``-n 0``)
compiles the generic kernels into numba's cache folder, in two processes side by
side (tests/kernel_warmup.py); the workers then load them (a fraction of a
second each) where each used to compile them itself.  A stamp in the cache
folder skips this when nothing changed since the last run.  ``DURAK_TEST_WARMUP=0``
turns it off (each process then compiles what it uses, as before).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

WARMUP_ENV = "DURAK_TEST_WARMUP"
#: what the warm-up did this run: a one-line summary for the terminal
_warmup_note: list[str] = []


def _stamp(folder: Path) -> Path:
    """The file that says the kernels of these sources (numba keys its cache by source file and folder) were warmed."""
    import numba

    from analyzer.kernel import _cache

    root = Path(_cache.__file__).resolve().parents[1]  # the analyzer package
    h = hashlib.sha256(f"{root}|{numba.__version__}|{sys.version}".encode())
    for f in (Path(__file__).with_name("kernel_warmup.py"), root / "knowledge" / "search.py"):
        h.update(f.read_bytes())
    return folder / f"suite-warm-{h.hexdigest()[:16]}"


def warm_kernels(rootdir: Path) -> str:
    """Compile (or load) the shared kernels into the cache folder before the tests; what was done, in one line."""
    from analyzer.kernel import _cache
    from tests.kernel_warmup import PARTS

    if _cache.FOLDER is None:
        return "kernels: no cache folder, each process compiles its own"
    stamp = _stamp(_cache.FOLDER)
    if stamp.exists():
        return f"kernels: already in {_cache.FOLDER}"
    t0 = time.perf_counter()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(_cache.FOLDER),
           "PYTHONPATH": os.pathsep.join([str(rootdir), *filter(None, [os.environ.get("PYTHONPATH")])])}
    procs = [subprocess.Popen([sys.executable, "-m", "tests.kernel_warmup", part], cwd=rootdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for part in PARTS]
    failed = []
    for part, proc in zip(PARTS, procs):
        out, _ = proc.communicate()
        if proc.returncode:
            failed.append(f"{part} (exit {proc.returncode}): {out.strip().splitlines()[-1:] or ''}")
    took = time.perf_counter() - t0
    if failed:  # the tests that use the kernel will show what is wrong; they compile it themselves
        return f"kernels: warm-up failed after {took:.1f} s: {'; '.join(failed)}"
    stamp.touch()
    return f"kernels: compiled or loaded into {_cache.FOLDER} in {took:.1f} s"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get(WARMUP_ENV) == "0" or config.option.collectonly:
        return  # an xdist worker: the controller warmed the kernels before it started
    _warmup_note.append(warm_kernels(config.rootpath))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _warmup_note:
        terminalreporter.write_line(line)
