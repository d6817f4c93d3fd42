"""Compilation is invisible (issue 12, point 4): where compiled kernels are kept.

The cache folder is chosen before numba is imported; a folder that cannot be
written is skipped, and with none writable the tool runs without a cache and
says so in one line.  The folder name carries a hash of the kernel sources, so
an edit to any kernel file never runs a stale compiled kernel.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from analyzer.kernel import _cache

UNWRITABLE = Path("/dev/null/cannot-be-a-folder")  # not writable even for root


def test_unwritable_bases_are_skipped(tmp_path):
    folder = _cache.choose_cache_dir([UNWRITABLE, tmp_path / "ok"])
    assert folder is not None and folder.parent == tmp_path / "ok" and folder.is_dir()
    assert folder.name == f"kernels-{_cache.source_hash()}"


def test_nothing_writable_means_no_cache():
    assert _cache.choose_cache_dir([UNWRITABLE, UNWRITABLE / "b"]) is None


def test_source_hash_changes_with_any_kernel_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    before = _cache.source_hash(tmp_path)
    (tmp_path / "b.py").write_text("y = 3\n")
    assert _cache.source_hash(tmp_path) != before


def _configure_in_child(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = ("import os, numba; from analyzer.kernel._cache import CACHE; "
            "print(CACHE, os.environ.get('NUMBA_CACHE_DIR'), numba.config.CACHE_DIR)")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_a_read_only_home_falls_back_to_the_temp_dir(tmp_path):
    """Package dir and user cache not writable: the kernels go to a per-user temp folder."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(UNWRITABLE), HOME=str(UNWRITABLE), TMPDIR=str(tmp_path))
    out = _configure_in_child(env)
    assert out.returncode == 0, out.stderr
    cache, env_dir, numba_dir = out.stdout.split()
    assert cache == "True" and env_dir == numba_dir and env_dir.startswith(str(tmp_path))
    assert out.stderr == ""


def test_nothing_writable_runs_without_cache_with_a_one_line_note(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "candidate_bases", lambda: [UNWRITABLE, UNWRITABLE / "tmp"])
    before = os.environ.get("NUMBA_CACHE_DIR")
    assert _cache.configure() is False
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "compile on every run" in err
    assert os.environ.get("NUMBA_CACHE_DIR") == before


def test_a_kernel_compiles_runs_and_caches_where_only_the_temp_dir_is_writable(tmp_path):
    """A read-only $NUMBA_CACHE_DIR, home and user cache: a kernel function still compiles, runs and is
    cached in the temp folder (a small one: the suite compiles the big kernels once, in-process)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(UNWRITABLE / "numba"), "XDG_CACHE_HOME": str(UNWRITABLE),
           "HOME": str(UNWRITABLE), "TMPDIR": str(tmp_path)}
    code = ("import numpy as np; from analyzer.kernel.rng import mix; "
            "from analyzer.core.streams import mix64; print(int(mix(np.uint64(7))) == mix64(7))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.split() == ["True"], out.stderr
    assert out.stderr == ""
    assert list(tmp_path.glob("durak-analyzer-*/kernels-*/**/*.nbi")), "nothing cached in the temp folder"
