"""Test-wide settings.

Hypothesis runs derandomized in CI (``CI`` is set there, or ``HYPOTHESIS_PROFILE=ci``):
the same examples every run, so a red CI is reproducible and never a coin toss.
Locally the ``dev`` profile explores new examples each run.

Compiled kernels once per test run: before any test, the process that
runs the session (pytest-xdist's controller, or the only process with ``-n 0``)
compiles the generic kernels into numba's cache folder, in two processes side by
side (tests/kernel_warmup.py); the workers then load them (a fraction of a
second each) where each used to compile them itself.  The warm-up starts at
configure time and is waited for once the tests are collected (xdist: each
worker's collection is in, before any test is handed out), so the workers start
and collect while it compiles.  A stamp in the cache folder skips this when
nothing changed since the last run.  ``DURAK_TEST_WARMUP=0`` turns it off (each
process then compiles what it uses, as before).
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

BYTECODE_ENV = "DURAK_TEST_BYTECODE"


def keep_bytecode() -> str | None:
    """Let the suite's processes keep the bytecode of what they import, in a folder of their own; the folder,
    or None when nothing was changed.

    With ``PYTHONDONTWRITEBYTECODE`` set (it is on the CI machine) and an install without byte-compiling (the
    README's test command: ``pip --no-compile``), every process the suite starts -- the xdist workers, each
    ``durak`` a test runs, ``--jobs`` workers, Dask workers, kernels compiled apart -- compiled numpy, pandas,
    numba and the analyzer from source again: 2-4 CPU seconds a process, a few hundred processes.  Here the
    bytecode goes to ``$PYTHONPYCACHEPREFIX`` (a folder under the temp dir, not the source tree), so the first
    process compiles a module and the others read it.  The tests run the same code.  ``DURAK_TEST_BYTECODE=0``
    leaves the environment alone.
    """
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get(BYTECODE_ENV) == "0":
        return None
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else "user"
    folder = os.environ.get("PYTHONPYCACHEPREFIX") or os.path.join(tempfile.gettempdir(), f"durak-pycache-{uid}")
    del os.environ["PYTHONDONTWRITEBYTECODE"]  # children inherit it: they write (and read) the folder's bytecode
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    sys.pycache_prefix = folder
    sys.dont_write_bytecode = False
    return folder


keep_bytecode()  # before xdist starts its workers (conftest is imported first in the controller)

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

WARMUP_ENV = "DURAK_TEST_WARMUP"
#: what the warm-up did this run: a one-line summary for the terminal
_warmup_note: list[str] = []


def _stamp(folder: Path) -> Path:
    """The file that says the kernels of these sources were warmed: the folder's name covers the compiled sources,
    and any checkout of them finds the same kernels there (analyzer.kernel._cache.place_by_checkout), so the stamp
    holds numba's and Python's versions and what the warm-up compiles, not where the checkout is."""
    import numba

    h = hashlib.sha256(f"{numba.__version__}|{sys.version}".encode())
    h.update(Path(__file__).with_name("kernel_warmup.py").read_bytes())
    return folder / f"suite-warm-{h.hexdigest()[:16]}"


class Warmup:
    """The warm-up's processes, started by :func:`start_warmup`; :meth:`wait` ends it and says what was done."""

    def __init__(self, procs: list[tuple[str, subprocess.Popen[str]]], stamp: Path, folder: Path) -> None:
        self.procs, self.stamp, self.folder, self.t0 = procs, stamp, folder, time.perf_counter()

    def wait(self) -> str:
        """Wait for every part; what was done, in one line (a failed part is named, and no stamp is left)."""
        failed, parts = [], []
        for part, proc in self.procs:
            out, _ = proc.communicate()
            last = out.strip().splitlines()[-1:] or [""]
            if proc.returncode:
                failed.append(f"{part} (exit {proc.returncode}): {last[0]}")
            parts.append(last[0])
        took = time.perf_counter() - self.t0
        if failed:  # the tests that use the kernel will show what is wrong; they compile it themselves
            return f"kernels: warm-up failed after {took:.1f} s: {'; '.join(failed)}"
        self.stamp.touch()
        return f"kernels: compiled or loaded into {self.folder} in {took:.1f} s ({', '.join(parts)})"


def start_warmup(rootdir: Path) -> Warmup | str:
    """Start compiling (or loading) the shared kernels into the cache folder, or say in one line why not."""
    from analyzer.kernel import _cache, apart
    from tests.kernel_warmup import PARTS

    if _cache.FOLDER is None:
        return "kernels: no cache folder, each process compiles its own"
    stamp = _stamp(_cache.FOLDER)
    if stamp.exists():
        return f"kernels: already in {_cache.FOLDER}"
    # the warm-up compiles in its own two processes, which end with it: compiling apart (analyzer.kernel.apart,
    # a child per kernel to keep a long-lived process's memory down) would only add a child's start-up per kernel
    env = {**os.environ, "NUMBA_CACHE_DIR": str(_cache.FOLDER), apart.ENV: "0",
           "PYTHONPATH": os.pathsep.join([str(rootdir), *filter(None, [os.environ.get("PYTHONPATH")])])}
    procs = [(part, subprocess.Popen([sys.executable, "-m", "tests.kernel_warmup", part], cwd=rootdir, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)) for part in PARTS]
    return Warmup(procs, stamp, _cache.FOLDER)


#: the warm-up this pytest run started and has not waited for yet (the controller's, or the only process's)
_pending: list[Warmup] = []


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get(WARMUP_ENV) == "0" or config.option.collectonly:
        return  # an xdist worker: the controller warmed the kernels before any test was handed to it
    started = start_warmup(config.rootpath)
    if isinstance(started, str):
        _warmup_note.append(started)
    else:
        _pending.append(started)


def finish_warmup() -> None:
    """Wait for the warm-up (once): no test runs before the kernels are in the cache folder."""
    while _pending:
        _warmup_note.append(_pending.pop().wait())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """xdist's controller: a worker has collected; tests are handed out only after every worker's collection is
    in (this hook runs first for each), so they start once the kernels are warm."""
    finish_warmup()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The only process (``-n 0``): its tests start once the kernels are warm."""
    finish_warmup()


def pytest_unconfigure(config: pytest.Config) -> None:
    finish_warmup()  # a session that ended before its tests (an error in collection): no warm-up left running


#: The tests that took longest in cold-cache runs on 2 cores (``--durations``), longest first, as node-id prefixes (a
#: prefix without ``[...]`` is every case of the test).  They are collected first, and pytest-xdist hands out tests
#: a few at a time in collection order (``--dist loadgroup --no-loadscope-reorder`` in pyproject.toml: a worker is
#: sent one more when it has two or three left), so each starts while the other worker still has short tests to run
#: beside it, instead of one landing near the end with the other worker idle.  The tests of one ``xdist_group``
#: (:data:`COSTLY_FIXTURES`) go together, where the group's first test stands in the order.
SLOW_FIRST = (
    "tests/execution/test_tournament_field_stop.py::test_field_stops_at_the_same_deck_for_any_jobs_on_the_first_chunks_of_a_straight_run",
    "tests/execution/test_bench.py::test_bench_json_reports_every_engine_for_each_case",
    # compiles the ismcts kernels (26 CPU-s cold) alone, early: in file order its neighbour (choose vs choose_batch,
    # czech2) went to the other worker, which compiled the same kernels side by side (15 CPU-s each, 30 s of wall)
    "tests/knowledge/test_ismcts.py::test_ismcts_plays_whole_deals_legally_and_deterministically[czech2]",
    "tests/cli/test_bad_input.py::test_user_mistake[plugin-raises]",
    "tests/cli/test_api.py::test_readme_notebook_example_runs",
    "tests/cli/test_fuzz_cli.py::test_fuzz_experiment_files",
    "tests/execution/test_compare.py::test_tracker_and_pimc_play_on_the_batch_views_in_deals_and_matches",
    "tests/execution/test_search_routes.py::test_pimc_and_tracker_cells_give_the_same_tables_for_any_jobs",
    "tests/cli/test_cli_args.py::test_progress_bar_on_a_terminal",
    "tests/cli/test_cli_args.py::test_run_uses_the_plugin_name_in_tables",
    "tests/project/test_lint.py::test_mypy_finds_nothing",
    # after the JSON bench above has compiled the kernels for one kind at every seat (its fixed-rules rows): in file
    # order it ran beside that one and compiled them too (17 CPU-s of compile side by side, 4 once they are cached)
    "tests/execution/test_bench.py::test_bench_without_simple_engine_or_rollouts_and_bad_variants",
    "tests/report/test_report.py::test_report_writes_markdown_html_and_charts",  # its group: the file, with its report built
    "tests/kernel/test_pause_at_python_decisions.py::test_matches_on_the_pause_path_equal_the_kernels_and_the_scores_reach_both_paths",
    "tests/cli/test_fuzz_cli.py::test_fuzz_command_lines",
    "tests/knowledge/test_pimc.py::test_choose_batch_plays_matches_as_the_table_runner_does",
    "tests/cli/test_fuzz_cli.py::test_seed_lines_are_valid",
    "tests/cli/test_fuzz_cli.py::test_fuzz_scenario_files",
    "tests/execution/test_cluster.py::test_lost_scheduler_mid_run_keeps_chunks_and_resumes",
    "tests/kernel/test_view_history.py::test_a_view_never_reveals_a_hidden_card",
    "tests/execution/test_signals.py::test_sigterm_is_one_line_stops_the_workers_and_resumes",
    "tests/execution/test_engine_choice.py::test_a_chunk_of_python_forms_on_the_paused_kernel_equals_the_kernel_alone",
    "tests/knowledge/test_search_kernel.py::test_kernel_rollouts_end_as_the_engine_plays_on",
    "tests/execution/test_runner.py::test_dask_backend_matches_local",
    "tests/kernel/test_kernel_equals_engine.py::test_kernel_equals_engine_deal_by_deal",
)


#: Module fixtures that cost tens of seconds, as (test file, fixture), and the tests that use them, as node-id prefixes
#: by group: :class:`GroupScheduling` sends a group's tests to one worker, which builds the fixture once per run
#: instead of once in each worker that gets one of them.
COSTLY_FIXTURES = (("tests/report/test_report.py", "built"), ("tests/cli/test_fuzz_cli.py", "inputs"))
GROUPS = {
    "tests/report/test_report.py::": "report",
    "tests/cli/test_fuzz_cli.py::test_seed_lines_are_valid": "fuzz_inputs",
    "tests/cli/test_fuzz_cli.py::test_fuzz_command_lines": "fuzz_inputs",
    "tests/report/test_browser.py::": "browser",  # both tests of a report read one page load (test_browser.probed)
}


def group_of(nodeid: str) -> str | None:
    """The :data:`GROUPS` group of a test, or None."""
    return next((g for prefix, g in GROUPS.items() if nodeid.startswith(prefix)), None)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadgroup`` (pyproject.toml) schedules with :class:`GroupScheduling`.

    pytest-xdist's own loadgroup reads ``xdist_group`` marks through a node-id suffix its workers set, which pytest 9
    no longer lets them set (node ids are built, not assigned), so its groups never form; this one takes the groups
    from :data:`GROUPS` by node id.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """Work units in collection order (``--no-loadscope-reorder``): a :data:`GROUPS` group, or one test."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or nodeid

    return GroupScheduling(config, log)


def slow_rank(nodeid: str) -> int:
    """Where a test goes in the run: its place in :data:`SLOW_FIRST`, else after all of them."""
    return next((k for k, prefix in enumerate(SLOW_FIRST) if nodeid.startswith(prefix)), len(SLOW_FIRST))


def slow_tests() -> set[str]:
    """The node ids of tests/slow_tests.txt: the tests that took 0.5 s or more in clean-clone runs."""
    lines = Path(__file__).with_name("slow_tests.txt").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The :data:`SLOW_FIRST` tests first; they and those of tests/slow_tests.txt are marked ``slow``:
    ``pytest -m "not slow"`` is the quick tier (the README's test command, which CI runs, runs every test)."""
    items.sort(key=lambda item: slow_rank(item.nodeid))  # stable: the rest keep their order
    slow = slow_tests()
    for item in items:
        if slow_rank(item.nodeid) < len(SLOW_FIRST) or item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """One line at the start when the kernels are being compiled (a cold cache takes minutes on two cores); the
    summary at the end says how long it took."""
    return [starting_line(w) for w in _pending]


def starting_line(warmup: Warmup) -> str:
    return (f"kernels: compiling into {warmup.folder} before the first test (minutes on a cold cache; "
            "the last line says how long it took)")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _warmup_note:
        terminalreporter.write_line(line)
