"""Compilation is invisible: where compiled kernels are kept.

The cache folder is chosen before numba is imported; a folder that cannot be
written is skipped, and with none writable the tool runs without a cache and
says so in one line.  The folder name carries a hash of the kernel sources, so
an edit to any kernel file never runs a stale compiled kernel.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

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


# --- the one line before a cold compile ------------------------------------------------------------------
def _index(folder: Path, name: str) -> None:
    """A numba index file as numba names it: <cache folder>/<source folder>_<hash>/<module>.<function>-<line>.py311.nbi."""
    (folder / "kernel_0123abcd").mkdir(parents=True, exist_ok=True)
    (folder / "kernel_0123abcd" / name).write_bytes(b"")


def test_a_kernel_is_cold_until_its_index_file_is_in_the_folder(tmp_path):
    assert _cache.is_cold("driver.deals_kernel", tmp_path)
    _index(tmp_path, "bitops.bit-17.py311.nbi")  # small helpers cached, the driver not: still compiles
    _index(tmp_path, "matches.matches_kernel-35.py311.nbi")
    assert _cache.is_cold("driver.deals_kernel", tmp_path)
    assert not _cache.is_cold("matches.matches_kernel", tmp_path)
    _index(tmp_path, "driver.deals_kernel-79.py311.nbi")
    assert not _cache.is_cold("driver.deals_kernel", tmp_path)
    assert _cache.is_cold("driver.deals_kernel", None)  # no cache folder: compiles every run


def test_the_compile_line_goes_to_stderr_once_and_only_when_cold(tmp_path, monkeypatch, capsys):
    from analyzer.kernel import serve
    monkeypatch.setattr(serve, "simulate_deals", lambda *a, **k: "deals")  # the wiring, without compiling
    monkeypatch.setattr(serve, "simulate_matches", lambda *a, **k: "matches")
    monkeypatch.setattr(_cache, "_announced", set())
    monkeypatch.setattr(_cache, "_watched", lambda: True)  # stderr a terminal
    ss = np.random.SeedSequence(1)
    monkeypatch.setattr(_cache, "FOLDER", tmp_path)  # an empty cache folder: cold
    assert serve.simulate_chunk(None, [], 1, ss, matches=False) == "deals"
    serve.simulate_chunk(None, [], 1, ss, matches=False)
    out = capsys.readouterr()
    assert out.out == "" and out.err.splitlines() == [_cache.COMPILING]
    _index(tmp_path, "matches.matches_kernel-35.py311.nbi")  # matches cached: nothing to say
    assert serve.simulate_chunk(None, [], 1, ss, matches=True) == "matches"
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_cache, "_announced", set())
    monkeypatch.setattr(_cache, "FOLDER", None)  # no cache at all: it compiles, and says it does every run
    serve.simulate_chunk(None, [], 1, ss, matches=True)
    assert capsys.readouterr().err.splitlines() == [_cache.COMPILING_UNCACHED]


def test_after_a_kernel_ran_the_real_cache_is_warm():
    """numba's own index file names match what is_cold looks for (a deal or two on the kernel)."""
    from analyzer.core.rules import make_rules
    from analyzer.kernel.driver import simulate_deals
    from strategies import get_strategy
    assert _cache.CACHE  # the temp folder at least is writable here
    simulate_deals(make_rules("czech", 4), [get_strategy("greedy")] * 4, 2, seed=1, threads=1)
    assert not _cache.is_cold("driver.deals_kernel", _cache.FOLDER)


def test_no_compile_line_into_a_stream_nobody_watches(tmp_path, monkeypatch, capsys):
    """Captured or redirected stderr (logs, CliRunner, pipes) gets no progress talk, cold or not."""
    monkeypatch.setattr(_cache, "_announced", set())
    monkeypatch.setattr(_cache, "FOLDER", tmp_path)
    _cache.announce_if_cold("driver.deals_kernel")
    assert capsys.readouterr().err == ""


def test_a_kernel_folder_given_as_base_stands_for_its_parent(tmp_path):
    """A child process inherits $NUMBA_CACHE_DIR as configure() set it (``<base>/kernels-<hash>``): it keeps
    its kernels beside its parent's, not in ``kernels-<hash>/kernels-<hash>`` where it would compile them again."""
    tag = f"kernels-{_cache.source_hash()}"
    assert _cache.choose_cache_dir([tmp_path / tag]) == tmp_path / tag
    assert _cache.choose_cache_dir([tmp_path / "kernels-0123456789abcdef"]) == tmp_path / tag  # older sources
    assert _cache.choose_cache_dir([tmp_path / "kernels"]) == tmp_path / "kernels" / tag  # not a kernel folder


# --- a damaged or foreign cache ----------------------------------------------------------------------------
_MIX = ("import numpy as np; from analyzer.kernel.rng import mix; "
        "print(int(mix(np.uint64(7))), int(mix(np.uint64(12345))))")


def _mix_in_child(base: Path) -> subprocess.CompletedProcess[str]:
    """A small kernel compiled (or loaded) in a fresh process with ``base`` as the cache base."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(base)}
    return subprocess.run([sys.executable, "-c", _MIX], env=env, capture_output=True, text=True, timeout=300)


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "emptied":
        path.write_bytes(b"")
    elif how == "truncated":
        path.write_bytes(data[: len(data) // 3])
    elif how == "zeroed":
        path.write_bytes(bytes(len(data)))
    elif how == "garbled":
        path.write_bytes(bytes(b ^ 0x5A for b in data))
    elif how == "foreign":  # a well-formed pickle of something else
        path.write_bytes(pickle.dumps(("not", "a", "kernel")) if path.suffix == ".nbc" else
                         pickle.dumps("0.0") + pickle.dumps({"no": "index"}))


@pytest.mark.parametrize("kind", ["nbi", "nbc"])
@pytest.mark.parametrize("how", ["emptied", "truncated", "zeroed", "garbled", "foreign"])
def test_a_damaged_cache_file_is_rebuilt_with_one_line_naming_the_folder(tmp_path: Path, kind: str, how: str) -> None:
    """Each kind of cache file (numba's index, its compiled data) damaged each way: the next run gives the clean
    run's numbers, says once which folder held the bad file, and leaves the cache good for the run after."""
    clean = _mix_in_child(tmp_path)
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    files = sorted(tmp_path.glob(f"kernels-*/*/rng.mix-*.{kind}"))
    assert len(files) == 1, files
    folder = files[0].parent.parent
    _damage(files[0], how)
    damaged = _mix_in_child(tmp_path)
    assert damaged.returncode == 0, damaged.stderr
    assert damaged.stdout == clean.stdout
    lines = damaged.stderr.splitlines()
    if how == "foreign" and kind == "nbi":  # another numba's index: numba itself passes over it, no damage
        assert lines == []
    else:
        assert len(lines) == 1 and str(folder) in lines[0] and "(rng.mix-" in lines[0], damaged.stderr
        # the file named is the damaged one; a data file that unpickles but is no kernel is found out past its
        # index, which goes with it
        assert files[0].name in lines[0] or (how, kind) == ("foreign", "nbc")
    after = _mix_in_child(tmp_path)
    assert after.returncode == 0 and after.stdout == clean.stdout and after.stderr == "", after.stderr


def test_an_index_entry_crossed_with_another_signature_is_a_miss(tmp_path: Path) -> None:
    """Two processes that saved one function's kernels at the same moment could leave its index sending one
    signature to the other's compiled file (seen: ``put`` at field 0 given the kernel for field 12, a TypingError
    out of every later search).  Such an entry is a miss: the kernel compiles again, one line names the folder,
    and the run after is clean."""
    code = "import numpy as np; from analyzer.kernel.rng import mix; print(int(mix(np.uint64(7))), int(mix(np.int64(9))))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)

    clean = run()
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    (index,) = tmp_path.glob("kernels-*/*/rng.mix-*.nbi")
    with index.open("rb") as f:
        version = pickle.load(f)
        stamp, overloads = pickle.loads(f.read())
    assert len(overloads) == 2
    a, b = overloads  # cross the two entries, as the race left them
    overloads[a], overloads[b] = overloads[b], overloads[a]
    index.write_bytes(pickle.dumps(version, protocol=-1) + pickle.dumps((stamp, overloads), protocol=-1))
    crossed = run()
    assert crossed.returncode == 0 and crossed.stdout == clean.stdout, crossed.stderr
    lines = crossed.stderr.splitlines()
    assert len(lines) == 1 and str(index.parent.parent) in lines[0] and index.name in lines[0], crossed.stderr
    after = run()
    assert after.returncode == 0 and after.stdout == clean.stdout and after.stderr == "", after.stderr


def test_two_saves_of_one_function_at_once_keep_both_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first save pauses between reading the index and writing it; the second, started meanwhile, waits for
    it (the lock beside the index) instead of picking the same data file: both entries load back.  Without the
    lock the second's entry is lost and the first's data file holds the second's kernel."""
    import threading

    from numba.core import caching

    _cache.guard_numba_reads()
    files = [caching.IndexDataCacheFile(str(tmp_path), "f-1.py311", ("stamp", 1)) for _ in range(2)]
    guarded = caching.IndexDataCacheFile._load_index
    inside, go = threading.Event(), threading.Event()

    def slow_read(self: Any) -> Any:
        got = guarded(self)
        if self is files[0]:
            inside.set()
            go.wait(10)
        return got

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", slow_read)
    first = threading.Thread(target=files[0].save, args=("key a", "kernel a"))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=files[1].save, args=("key b", "kernel b"))
    second.start()
    second.join(0.5)
    go.set()
    first.join(10)
    second.join(10)
    monkeypatch.undo()
    fresh = caching.IndexDataCacheFile(str(tmp_path), "f-1.py311", ("stamp", 1))
    assert fresh.load("key a") == "kernel a" and fresh.load("key b") == "kernel b"


def _tree_copy(tmp_path: Path) -> Path:
    """A copy of the package's sources (no bytecode) to edit: the cache key is read from files."""
    import shutil

    src = Path(_cache.__file__).resolve().parents[1]
    dst = tmp_path / "tree" / "analyzer"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst / "kernel"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} no longer holds {old!r}: pick another line to edit"
    path.write_text(text.replace(old, new, 1))


def test_an_edit_to_a_function_an_ismcts_kernel_inlines_makes_the_next_run_compile_afresh(tmp_path):
    """ismcts' compiled tree search inlines the sampler's world loading from analyzer.kernel.search: an edit there
    must move the kernels to a new (empty) cache folder, or a run would load a stale compiled ismcts."""
    kernel = _tree_copy(tmp_path)
    base = tmp_path / "cache"
    before = _cache.choose_cache_dir([base], package_dir=kernel)
    assert before is not None
    (before / "kernel_ismcts").mkdir()  # numba's layout: a folder per source file, an index per function
    (before / "kernel_ismcts" / "ismcts.ismcts_rows-1.py311.nbi").write_bytes(b"stands for a compiled kernel")
    _edit(kernel / "search.py", "        load_world(", "        load_world(  # edited\n            ")
    after = _cache.choose_cache_dir([base], package_dir=kernel)
    assert after is not None and after != before
    assert _cache.is_cold("ismcts.ismcts_rows", after) and not _cache.is_cold("ismcts.ismcts_rows", before)


def test_every_module_that_compiles_is_in_the_cache_key_and_no_other(tmp_path):
    """A module outside the kernel folder that compiles with numba (one planted there) is covered; a module with
    no compiled code (a report's sentences) is not, so editing it keeps the compiled kernels."""
    kernel = _tree_copy(tmp_path)
    root = kernel.parent
    compiled = {f.relative_to(root).as_posix() for f in _cache.compiled_sources(kernel)}
    assert "kernel/search.py" in compiled and "kernel/ismcts.py" in compiled
    assert "kernel/cfr.py" in compiled and "report/sentences.py" not in compiled
    (root / "exact" / "planted.py").write_text("from numba import njit\n")
    start = _cache.source_hash(kernel)
    _edit(root / "report" / "sentences.py", '"""', '"""Edited. ')
    assert _cache.source_hash(kernel) == start
    (root / "exact" / "planted.py").write_text("from numba import njit\n\nf = njit(lambda: 1)\n")
    assert _cache.source_hash(kernel) != start


# --- another checkout of the same sources ---------------------------------------------------------------------
_MIX_FROM = ("import numpy as np; from analyzer.kernel import rng; int(rng.mix(np.uint64(7))); "
             "print(rng.__file__, sum(rng.mix.stats.cache_hits.values()), sum(rng.mix.stats.cache_misses.values()))")


def test_a_second_checkout_of_the_same_sources_loads_the_kernels_the_first_compiled(tmp_path: Path) -> None:
    """Two copies of the package at other paths (a clean clone, a worktree, CI) with one cache base: the second
    loads what the first compiled (numba would have named a subfolder by each copy's absolute path and compiled
    again); an edit to a compiled source still compiles afresh (its own folder, by the content hash)."""
    import shutil

    base = tmp_path / "cache"
    copies = [tmp_path / "a" / "checkout", tmp_path / "b" / "elsewhere"]
    for c in copies:
        shutil.copytree(_cache.CHECKOUT / "analyzer", c / "analyzer", ignore=shutil.ignore_patterns("__pycache__"))
    for f in (copies[1] / "analyzer").rglob("*.py"):  # new times, as a clone's files have: numba must go by content
        os.utime(f, (f.stat().st_atime + 3600, f.stat().st_mtime + 3600))

    def run(checkout: Path) -> list[str]:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(base), "PYTHONPATH": str(checkout)}
        out = subprocess.run([sys.executable, "-c", _MIX_FROM], env=env, cwd=checkout, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    first, second = run(copies[0]), run(copies[1])
    assert Path(first[0]).is_relative_to(copies[0]) and Path(second[0]).is_relative_to(copies[1])
    assert first[1:] == ["0", "1"]  # compiled
    assert second[1:] == ["1", "0"], "the second checkout compiled the kernel again"
    assert [p.parent.name for p in base.glob("kernels-*/*/rng.mix-*.nbi")] == ["analyzer_kernel"]
    edited = copies[1] / "analyzer" / "kernel" / "rng.py"
    edited.write_text(edited.read_text() + "\n# an edit\n")
    assert run(copies[1])[1:] == ["0", "1"]  # another content hash, another folder: compiled afresh


def test_a_source_file_is_placed_by_its_folder_inside_the_checkout(tmp_path: Path) -> None:
    assert _cache.checkout_subpath(tmp_path / "c" / "analyzer" / "kernel" / "x.py", tmp_path / "c") == "analyzer_kernel"
    assert _cache.checkout_subpath(tmp_path / "d" / "analyzer" / "kernel" / "x.py", tmp_path / "d") == "analyzer_kernel"
    assert _cache.checkout_subpath(tmp_path / "c" / "benchmarks" / "p.py", tmp_path / "c") == "benchmarks"
    assert _cache.checkout_subpath(tmp_path / "elsewhere" / "x.py", tmp_path / "c") is None
