"""The suite compiles the shared kernels once per test run (tests/conftest.py, tests/kernel_warmup.py).

The process that runs the session compiled the generic kernels into numba's
cache folder before any test: here (an xdist worker, or the only process) each
of them is loaded from that folder, never compiled.  A child process (a
``--jobs`` worker, a CLI subprocess) inherits ``$NUMBA_CACHE_DIR`` as set by
analyzer.kernel._cache and uses the same folder, not one nested inside it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from analyzer.kernel import _cache
from tests.kernel_warmup import PARTS, warm


def _generic_kernels() -> dict[str, object]:
    """The generic kernels the warm-up compiles, by name (their numba dispatchers)."""
    from analyzer.kernel.driver import deals_kernel
    from analyzer.kernel.matches import matches_kernel
    from analyzer.kernel.npdecks import _decks
    from analyzer.kernel.pause import advance_kernel, advance_matches
    from analyzer.kernel.positions import positions_kernel
    from analyzer.kernel.search import search_rows, search_scores

    return {"deals_kernel": deals_kernel, "matches_kernel": matches_kernel, "positions_kernel": positions_kernel,
            "advance_kernel": advance_kernel, "advance_matches": advance_matches, "_decks": _decks,
            "search_rows": search_rows, "search_scores": search_scores}


def cache_report() -> dict[str, dict[str, int]]:
    """Play every part of the warm-up in this process: each generic kernel's cache misses (signatures compiled
    here) and hits (loaded from the cache folder), counted by numba.

    The search plays its generic kernel here, as on a clean machine: where the cache already holds the kernel
    compiled for the warm-up's rules (a test of an earlier run compiled it), pimc would switch to that one at once
    (analyzer.kernel.search.folded) and the generic kernel would not be asked for at all."""
    from analyzer.kernel.search import ROWS

    ROWS.in_cache = lambda *args, **kwargs: False  # type: ignore[method-assign]  # this process only
    warm(list(PARTS))
    kernels = _generic_kernels()
    return {"compiled": {n: len(k.stats.cache_misses) for n, k in kernels.items() if k.stats.cache_misses},
            "loaded": {n: sum(k.stats.cache_hits.values()) for n, k in kernels.items()}}


def test_the_generic_kernels_are_loaded_from_the_cache_not_compiled_here():
    """A fresh process that plays every part of the warm-up (as a test worker does) compiles none of the
    generic kernels: each signature the warm-up uses comes from the cache folder the session filled.

    A fresh process, not this worker: an earlier test here may have compiled a signature of its own (other
    argument types, e.g. a read-only rules array), which the warm-up does not promise to cover.
    """
    import json

    assert os.environ.get("DURAK_TEST_WARMUP") != "0", "the warm-up is off in this run"
    code = "import json; from tests.kernel.test_suite_warmup import cache_report; print(json.dumps(cache_report()))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(_cache.FOLDER)})
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["compiled"] == {}, f"compiled in a test process instead of loaded from {_cache.FOLDER}"
    assert all(report["loaded"].values()), report["loaded"]


def test_a_child_process_uses_the_same_cache_folder():
    """$NUMBA_CACHE_DIR as this process set it, inherited: the child's folder is this one (a ``--jobs`` worker,
    a subprocess), so it loads what was compiled here instead of compiling into a folder of its own."""
    code = "from analyzer.kernel import _cache; print(_cache.FOLDER)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_CACHE_DIR": str(_cache.FOLDER)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(_cache.FOLDER)


def test_every_slow_first_entry_names_a_test_of_the_suite():
    """tests/conftest.py starts the slowest tests first: each entry of its list is a test function of a test file
    (a renamed or removed test would silently drop out of the list), and the ranks follow the list."""
    from pathlib import Path

    from tests.conftest import SLOW_FIRST, slow_rank

    root = Path(__file__).resolve().parents[2]
    for prefix in SLOW_FIRST:
        path, name = prefix.split("::")
        assert f"def {name.split('[')[0]}(" in (root / path).read_text(encoding="utf-8"), prefix
    assert [slow_rank(p + "[x]") for p in SLOW_FIRST] == list(range(len(SLOW_FIRST)))
    assert slow_rank("tests/stats/test_intervals.py::test_anything") == len(SLOW_FIRST)


def test_every_line_of_the_slow_list_names_a_test_of_the_suite():
    """tests/slow_tests.txt (the quick tier leaves its tests out): each line is a test function of a test file, so
    a renamed or removed test does not silently stay in the list, and the list is most of the suite's time, not
    most of its tests."""
    from pathlib import Path

    from tests.conftest import slow_tests

    root = Path(__file__).resolve().parents[2]
    slow = slow_tests()
    assert 50 < len(slow) < 400
    for nodeid in slow:
        path, name = nodeid.split("::")
        assert f"def {name.split('[')[0]}(" in (root / path).read_text(encoding="utf-8"), nodeid


def test_tests_sharing_a_costly_module_fixture_run_in_one_worker():
    """tests/conftest.py's COSTLY_FIXTURES: every test of the file that uses the fixture is in one and the same
    group of GROUPS (one worker runs them), and pytest-xdist runs the suite with those groups (``--dist loadgroup``,
    conftest's scheduler), in the collection order (slowest first: ``--no-loadscope-reorder``)."""
    import importlib
    import inspect
    import shlex
    import tomllib

    from tests.conftest import COSTLY_FIXTURES, group_of

    root = Path(__file__).resolve().parents[2]
    opts = shlex.split(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
                       ["tool"]["pytest"]["ini_options"]["addopts"])
    assert " ".join(opts[opts.index("--dist"):][:2]) == "--dist loadgroup" and "--no-loadscope-reorder" in opts
    for path, fixture in COSTLY_FIXTURES:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        users = [name for name, f in vars(module).items()
                 if name.startswith("test_") and callable(f) and fixture in inspect.signature(f).parameters]
        groups = {name: group_of(f"{path}::{name}[x]") for name in users}
        assert len(users) >= 2 and None not in groups.values() and len(set(groups.values())) == 1, (path, fixture, groups)
    assert group_of("tests/cli/test_fuzz_cli.py::test_fuzz_experiment_files") is None


def test_a_group_runs_in_one_worker(tmp_path):
    """conftest's scheduler, run by pytest-xdist on two workers: the tests of a group all run in one worker, the
    others spread over both."""
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_xdist_make_scheduler  # noqa: F401\n"
        "import tests.conftest as c\n"
        "c.GROUPS['test_g.py::'] = 'g'\n")
    (tmp_path / "test_g.py").write_text("import os, pytest\n@pytest.mark.parametrize('i', range(8))\n"
                                        "def test_g(i): print('W', os.environ['PYTEST_XDIST_WORKER'])\n")
    (tmp_path / "test_h.py").write_text("import os, time, pytest\n@pytest.mark.parametrize('i', range(8))\n"
                                        "def test_h(i): time.sleep(0.05); print('W', os.environ['PYTEST_XDIST_WORKER'])\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                          "--no-loadscope-reorder", "-rA", "-s", "-v", "-c", os.devnull, "--rootdir", str(tmp_path),
                          str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
                              "DURAK_TEST_WARMUP": "0"})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    workers: dict[str, set[str]] = {"test_g": set(), "test_h": set()}
    for line in out.stdout.splitlines():  # "[gw1] ... PASSED test_g.py::test_g[3]"
        for name, seen in workers.items():
            if f"::{name}[" in line and line.startswith("[gw"):
                seen.add(line[1:4])
    assert len(workers["test_g"]) == 1 and len(workers["test_h"]) == 2, workers


def test_the_run_says_when_it_starts_compiling_kernels(tmp_path: Path) -> None:
    """A cold warm-up is announced in the header (one line naming the folder), before minutes of silence; the
    terminal summary then says how long it took."""
    import tests.conftest as conftest

    pending = conftest.Warmup([], tmp_path / "stamp", tmp_path)
    conftest._pending.append(pending)
    try:
        lines = conftest.pytest_report_header(None)  # type: ignore[arg-type]
    finally:
        conftest._pending.remove(pending)
    assert lines == [f"kernels: compiling into {tmp_path} before the first test (minutes on a cold cache; the last "
                     "line says how long it took)"]
    assert conftest.pytest_report_header(None) == []  # type: ignore[arg-type]  # warm: nothing to say
    assert pending.wait().startswith(f"kernels: compiled or loaded into {tmp_path} in ")
