"""ruff and mypy, configured in pyproject.toml, run as part of the test suite.

They run here rather than as separate CI steps so that the README's one test
command is exactly what CI runs, and a lint or type error is a red test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which(tool, path=str(Path(sys.executable).parent)) or shutil.which(tool)
    assert exe, f"{tool} is not installed (it is in the 'test' extra: pip install -e '.[test]')"
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_ruff_finds_nothing() -> None:
    res = run("ruff", "check", "--no-cache", ".")
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]


def mypy_cache_dir() -> str:
    """mypy's cache, kept in the user cache folder beside the compiled kernels (analyzer.kernel._cache), not in the
    checkout: a run re-checks only what changed since the last run on this machine (the libraries, and a checkout
    in the same place, are read from it); where no folder is writable, a throw-away one."""
    from analyzer.core.files import writable
    from analyzer.kernel._cache import candidate_bases

    for base in candidate_bases():
        if base.name.startswith("kernels-"):
            base = base.parent
        folder = base / f"mypy-{sys.version_info.major}.{sys.version_info.minor}"
        if writable(folder):
            return str(folder)
    return tempfile.mkdtemp(prefix="durak-mypy-")


def test_mypy_finds_nothing() -> None:
    res = run("mypy", "--cache-dir", mypy_cache_dir())
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
