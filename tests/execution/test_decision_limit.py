"""A Python strategy that never answers ends the run in one line naming it, with a fault scenario.

Before the limit, ``durak balance --strong PLUGIN`` with a plugin that never
returned ran silently forever.  Each decision now has ``--decision-limit``
seconds (analyzer.core.timelimit); the time numba spends compiling is nobody's.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from analyzer.core.cards import parse_card
from analyzer.core.timelimit import LIMIT_ENV, DecisionTimeout, bounded, hidden_interruption
from analyzer.execution.lifeline import Terminated
from tests.cli.test_bad_input import assert_user_error, invoke

PLUGIN = '''
import time
from analyzer.core.cards import DRAW


class Stuck:
    """Plays its first legal move until four cards were played, then never answers (``rare``: only in some
    deals: those where its hand's card ids sum to a multiple of 3 as the fifth or sixth card is played)."""

    name = "stuck"

    def __init__(self, how="loop"):
        self.how = how

    def choose(self, view, rng):
        if len(view.played) >= 4 if self.how != "rare" else len(view.played) in (4, 5) and sum(view.hand) % 3 == 0:
            if self.how == "sleep":
                time.sleep(3600)
            if self.how == "wrapped":  # as C code that runs Python and returns with the exception set (numba's)
                try:
                    while True:
                        pass
                except BaseException as exc:
                    raise SystemError("<built-in method> returned a result with an exception set") from exc
            while True:
                pass
        return view.legal[0], None
'''


@pytest.mark.parametrize("how", ["loop", "sleep", "rare", "wrapped"])
def test_a_strategy_that_never_answers_ends_the_run_in_one_line_naming_it(tmp_path: Path, monkeypatch, how) -> None:
    """The scenario is of the deal that got stuck (the replay meets the stuck decision again), also when other
    deals of the same batch were answered, and also when the timeout reached the strategy inside C code that
    handed it back as a SystemError (it is still the limit, not an error of the strategy's)."""
    monkeypatch.setenv(LIMIT_ENV, "10")  # put back after the run (the option sets it for worker processes)
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path / "faults"))
    (tmp_path / "stuck.py").write_text(PLUGIN, encoding="utf-8")
    t0 = time.monotonic()
    res = invoke(["--decision-limit", "0.5", "simulate", "--variant", "czech", "--players", "2", "--deals", "40",
                  "--jobs", "1", "--strategies", f"stuck.py:Stuck?how={how},greedy"], tmp_path)
    line = assert_user_error(res, "strategy 'stuck.py:Stuck?how=", "gave no answer within 0.5 s", "--decision-limit")
    assert time.monotonic() - t0 < 60
    faults = list((tmp_path / "faults").glob("fault-*.toml"))
    assert len(faults) == 1 and str(faults[0]) in line
    assert "gave no answer within 0.5 s" in faults[0].read_text(encoding="utf-8")
    stuck = json.loads(invoke(["replay", str(faults[0]), "--json"], tmp_path).stdout)
    assert stuck["stopped_at_fault"] and stuck["position_to_act"] == 0
    if how == "rare":  # the scenario is of the deal that got stuck, at the decision where it did
        assert sum(parse_card(c) for c in stuck["hand"]) % 3 == 0


def _hang() -> None:
    while True:
        pass


@pytest.mark.parametrize("where", ["main", "thread"])
def test_a_decision_over_the_limit_is_stopped_in_any_thread(where: str) -> None:
    caught: list[float] = []

    def ask() -> None:
        t0 = time.monotonic()
        try:
            with bounded(limit=0.3):
                _hang()
        except DecisionTimeout:
            caught.append(time.monotonic() - t0)

    if where == "main":
        ask()
    else:
        t = threading.Thread(target=ask)
        t.start()
        t.join(10)
    assert len(caught) == 1 and 0.3 <= caught[0] < 3


def test_the_limit_is_per_decision() -> None:
    """Ten answers of 0.15 s each under a 0.3 s limit: 1.5 s in all, never one decision too long; a batch
    call of three decisions may take three limits."""
    answers: list[int] = []
    with bounded(answers, limit=0.3):
        for i in range(10):
            time.sleep(0.15)
            answers.append(i)
    with bounded(decisions=3, limit=0.3):
        time.sleep(0.6)
    with pytest.raises(DecisionTimeout):
        with bounded(decisions=3, limit=0.3):
            time.sleep(1.5)


def test_time_numba_spends_compiling_counts_against_no_decision() -> None:
    from numba.core.compiler_lock import global_compiler_lock

    with bounded(limit=0.3):
        with global_compiler_lock:  # as while a search player's first decision compiles its kernels
            time.sleep(1.0)


def _busy_until(t_end: float) -> None:
    while time.monotonic() < t_end:
        pass


def test_time_spent_waiting_for_a_cpu_counts_against_no_decision(monkeypatch) -> None:
    """A run beside other work (a niced background run, a suite on the same cores) is not timed out for the cores
    it was not given: the clock is wall time less the thread's wait for a CPU (here told that 90% of the time
    went waiting, so 1.2 s of wall time is 0.12 s of the decision's); the same decision with no wait is stopped."""
    from analyzer.core import timelimit

    t0 = time.monotonic()
    monkeypatch.setattr(timelimit, "_run_delay", lambda native: 0.9 * (time.monotonic() - t0))
    with bounded(limit=0.3):
        _busy_until(time.monotonic() + 1.2)
    monkeypatch.setattr(timelimit, "_run_delay", lambda native: 0.0)
    with pytest.raises(DecisionTimeout):
        with bounded(limit=0.3):
            _busy_until(time.monotonic() + 5.0)


def _hog(cpu: int, seconds: float) -> None:
    os.sched_setaffinity(0, {cpu})
    _busy_until(time.monotonic() + seconds)


@pytest.mark.skipif(not Path(f"/proc/self/task/{threading.get_native_id()}/schedstat").exists()
                    or not hasattr(os, "sched_setaffinity"),
                    reason="the system does not tell a thread's wait for a CPU (Linux does): the clock is wall time")
def test_a_threads_wait_for_a_cpu_is_read_from_the_system() -> None:
    """Two processes busy on this thread's one CPU: the wait the clock takes off grows by about two thirds of
    the time (at least a third, whatever else runs on the machine)."""
    from analyzer.core.timelimit import _run_delay

    native = threading.get_native_id()
    before = os.sched_getaffinity(0)
    cpu = min(before)
    ctx = multiprocessing.get_context("fork")
    hogs = [ctx.Process(target=_hog, args=(cpu, 3.0)) for _ in range(2)]
    try:
        os.sched_setaffinity(0, {cpu})
        for h in hogs:
            h.start()
        time.sleep(0.3)  # the hogs are running
        waited0, t0 = _run_delay(native), time.monotonic()
        _busy_until(t0 + 1.5)
        waited, took = _run_delay(native) - waited0, time.monotonic() - t0
    finally:
        os.sched_setaffinity(0, before)
        for h in hogs:
            h.join()
    assert waited >= took / 3, (waited, took)


def test_an_answer_that_comes_after_the_limit_is_still_too_late() -> None:
    """A strategy that swallows the exception (a bare ``except:``) and answers anyway is stopped as it returns."""
    with pytest.raises(DecisionTimeout):
        with bounded(limit=0.2):
            try:
                _hang()
            except BaseException:  # noqa: BLE001 — the plugin's bad habit under test
                pass


@pytest.mark.parametrize("args, culprit", [
    (["--decision-limit", "-1"], "--decision-limit"),
    (["--decision-limit", "nan"], "--decision-limit"),
    (["--decision-limit", "1e9"], "--decision-limit"),
])
def test_a_bad_limit_is_one_line(tmp_path: Path, monkeypatch, args: list[str], culprit: str) -> None:
    monkeypatch.setenv(LIMIT_ENV, "10")
    assert_user_error(invoke([*args, "rules", "czech"], tmp_path), culprit, "seconds")


def test_a_bad_limit_in_the_environment_is_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(LIMIT_ENV, "soon")
    assert_user_error(invoke(["rules", "czech"], tmp_path), f"${LIMIT_ENV}", "'soon'")


def wrapped_by_c_code(inner: BaseException) -> SystemError:
    """What CPython raises when C code returns a result while ``inner`` is set (the cause is the exception)."""
    try:
        try:
            raise inner
        except BaseException as exc:
            raise SystemError("<numba dispatcher> returned a result with an exception set") from exc
    except SystemError as wrapped:
        return wrapped


@pytest.mark.parametrize("limit", [0, 5.0])
@pytest.mark.parametrize("stop", [KeyboardInterrupt, Terminated])
def test_a_stop_that_c_code_wrapped_in_a_system_error_is_still_a_stop(stop: type, limit: float) -> None:
    """Ctrl-C or SIGTERM landing inside numba's dispatcher surfaces as a SystemError caused by it: the run is
    stopped (one line, its chunks kept), the strategy being asked is not blamed with a fault."""
    with pytest.raises(stop):
        with bounded(limit=limit):
            raise wrapped_by_c_code(stop())


def test_only_a_timeout_or_a_stop_behind_a_system_error_is_hidden() -> None:
    assert isinstance(hidden_interruption(wrapped_by_c_code(DecisionTimeout())), DecisionTimeout)
    assert hidden_interruption(wrapped_by_c_code(ValueError("a plugin's own"))) is None
    assert hidden_interruption(RuntimeError("x")) is None
    plain = RuntimeError("plugin")
    plain.__cause__ = KeyboardInterrupt()  # only C code's SystemError hides one: a plugin's own error stays its own
    assert hidden_interruption(plain) is None
    with pytest.raises(SystemError):
        with bounded(limit=5.0):
            raise wrapped_by_c_code(ValueError("a plugin's own"))
