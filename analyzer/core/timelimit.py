"""A time limit on each decision of a Python strategy.

A strategy that never answers would hang a run forever without a word.  While
a strategy is asked (:func:`bounded`), a watchdog thread looks at the call now
and then; once one decision has taken longer than the limit, it raises
:class:`DecisionTimeout` in the thread that asked, and the caller reports the
strategy on one line as it reports any other fault.

The limit is ``$DURAK_DECISION_LIMIT`` seconds (``durak --decision-limit``) of wall time less the time the
asking thread waited for a CPU held by other work (:func:`_clock`; Linux says how long, elsewhere it is wall time),
:data:`DEFAULT_LIMIT` if unset, none if 0.  It is generous on purpose: a search
player may think for seconds.  A call that answers many decisions at once
(``choose_batch``) gets the limit once per decision.  The exception is raised
between two Python steps of the strategy: in the main thread a signal wakes a
strategy blocked in a system call (a ``sleep``); in other threads (a Dask
worker's) a strategy blocked in C code is stopped once that call returns.
Plugins are trusted code (README): the limit stops a strategy that hangs, it
is no sandbox.

Time numba spends compiling (or loading a compiled kernel: a search player's
first decision may wait minutes for its kernels) is no strategy's: while
numba's compiler lock is held in the process, every clock stands still.
"""

from __future__ import annotations

import ctypes
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sized
from contextlib import contextmanager

#: the environment variable holding the limit in seconds (inherited by worker processes)
LIMIT_ENV = "DURAK_DECISION_LIMIT"
#: the limit when none is set: seconds one decision may take
DEFAULT_LIMIT = 10.0
#: the largest limit accepted (a day)
MAX_LIMIT = 86_400.0


class DecisionTimeout(BaseException):
    """A strategy took longer than the limit over one decision.

    A BaseException, so that a strategy's own ``except Exception`` cannot swallow it.  ``answered``: the
    decisions of the call answered before the one that took too long (its row in the batch), when the
    call counted them (:func:`bounded`'s ``progress``).
    """

    answered = 0


def check_limit(value: float) -> float:
    """``value`` as a limit in seconds (0 = none), or ValueError naming the culprit."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_LIMIT \
            or math.isnan(value):
        raise ValueError(f"the decision time limit must be a number of seconds from 0 (none) to "
                         f"{MAX_LIMIT:,.0f}, not {value!r}")
    return float(value)


def decision_limit() -> float:
    """The limit in force: ``$DURAK_DECISION_LIMIT`` seconds, else :data:`DEFAULT_LIMIT`; 0 = none."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_LIMIT
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"${LIMIT_ENV} must be a number of seconds, not {text!r}") from None
    try:
        return check_limit(value)
    except ValueError as exc:
        raise ValueError(f"${LIMIT_ENV}: {exc}") from None


def describe_limit(limit: float) -> str:
    """What a timed-out strategy is told, after its name."""
    return (f"gave no answer within {limit:g} s (the time limit of one decision: "
            f"durak --decision-limit SECONDS, 0 for none)")


class _Watch:
    """One call being bounded: its thread, how many decisions it may take, how far it got."""

    __slots__ = ("thread", "native", "allowed", "progress", "seen", "since", "fired", "main")

    def __init__(self, allowed: float, progress: Sized | None) -> None:
        self.thread = threading.get_ident()
        self.native = threading.get_native_id()
        self.main = threading.current_thread() is threading.main_thread()
        self.allowed = allowed
        self.progress = progress
        self.seen = 0
        self.since = _clock(self.native)
        self.fired = False


def _run_delay(native: int) -> float:
    """Seconds the thread ``native`` has waited, runnable, for a CPU that other work held (Linux's schedstat of
    the thread); 0.0 where the system does not tell."""
    try:
        with open(f"/proc/self/task/{native}/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _clock(native: int) -> float:
    """A decision's clock for the thread ``native``: wall time less the time it waited for a CPU.  A run beside
    other work (a niced background run, a suite) is not timed out for the cores it was not given; a strategy
    that loops or sleeps runs the clock at full speed."""
    return time.monotonic() - _run_delay(native)


_lock = threading.Lock()
_watches: list[_Watch] = []
_watchdog: threading.Thread | None = None
#: the main thread's watch whose signal is on its way (the handler raises only for it)
_signalled: list[_Watch] = []
_handler_installed = False


def _on_alarm(signum: int, frame: object) -> None:
    with _lock:
        mine = bool(_signalled)
        _signalled.clear()
    if mine:
        raise DecisionTimeout()


def _install_handler() -> bool:
    """The SIGALRM handler that raises in the main thread (once per process); whether it is in place."""
    global _handler_installed
    if _handler_installed:
        return True
    if not hasattr(signal, "pthread_kill") or threading.current_thread() is not threading.main_thread():
        return False
    try:
        if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None):
            return False  # someone else's alarm: leave it alone
        signal.signal(signal.SIGALRM, _on_alarm)
    except (ValueError, OSError):
        return False
    _handler_installed = True
    return True


def _fire(w: _Watch) -> None:
    """Raise DecisionTimeout in ``w``'s thread (called by the watchdog, under the lock)."""
    w.fired = True
    if w.main and _handler_installed:
        _signalled.append(w)
        signal.pthread_kill(w.thread, signal.SIGALRM)
    else:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(w.thread), ctypes.py_object(DecisionTimeout))


def _clear_pending(w: _Watch) -> None:
    """Take back an exception that was sent to ``w``'s thread but not raised yet (under the lock)."""
    if w in _signalled:
        _signalled.remove(w)
    elif not w.main or not _handler_installed:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(w.thread), None)


def _compiling() -> bool:
    """Whether numba is compiling or loading a kernel in this process now (someone holds its compiler lock).

    Read through ``sys.modules``: the core does not import numba, and a process that never imported it
    compiles nothing."""
    module = sys.modules.get("numba.core.compiler_lock")
    if module is None:
        return False
    lock = module.global_compiler_lock._lock
    if lock.acquire(blocking=False):
        lock.release()
        return False
    return True


def _watch_loop() -> None:
    while True:
        compiling = _compiling()
        with _lock:
            fired_threads = set()
            for w in _watches:
                now = _clock(w.native)
                if compiling:  # compile time is no strategy's: the clocks stand still
                    w.since = now
                    continue
                if w.fired or w.thread in fired_threads:
                    continue
                n = len(w.progress) if w.progress is not None else 0
                if n != w.seen:  # another decision answered: its clock starts afresh
                    w.seen, w.since = n, now
                elif now - w.since > w.allowed:
                    _fire(w)
                    fired_threads.add(w.thread)
            poll = min((w.allowed for w in _watches), default=1.0)
        time.sleep(min(max(poll / 20, 0.01), 0.25))


def _start_watchdog() -> None:
    global _watchdog
    if _watchdog is None or not _watchdog.is_alive():
        _watchdog = threading.Thread(target=_watch_loop, name="durak-decision-limit", daemon=True)
        _watchdog.start()


@contextmanager
def bounded(progress: Sized | None = None, decisions: int = 1, limit: float | None = None) -> Iterator[None]:
    """Ask a strategy inside this block: DecisionTimeout is raised in it once a decision goes over the limit.

    ``progress``: a list the answers are appended to one by one (each answer starts a decision's clock
    afresh); without it the whole block may take the limit ``decisions`` times.  ``limit``: seconds
    (default :func:`decision_limit`; 0 = none).
    """
    limit = decision_limit() if limit is None else limit
    if limit <= 0:
        try:
            yield
        except Exception as exc:
            _raise_hidden(exc)
            raise
        return
    w = _Watch(limit * (1 if progress is not None else max(decisions, 1)), progress)
    if w.main:
        _install_handler()
    with _lock:
        _watches.append(w)
        _start_watchdog()
    try:
        yield
    except DecisionTimeout as exc:
        _leave(w)
        if progress is not None and "answered" not in vars(exc):  # the innermost count names the decision
            exc.answered = len(progress)
        raise
    except Exception as exc:  # a timeout or Ctrl-C that C code wrapped (hidden_interruption) is not the strategy's error
        if _leave(w):
            late = DecisionTimeout()
            late.answered = len(progress) if progress is not None else 0
            raise late from exc
        _raise_hidden(exc)
        raise
    except BaseException:
        _leave(w)
        raise
    if _leave(w):  # answered after the limit (or swallowed the exception): still too late
        late = DecisionTimeout()
        late.answered = max(len(progress) - 1, 0) if progress is not None else 0
        raise late


def hidden_interruption(exc: BaseException) -> BaseException | None:
    """The DecisionTimeout or KeyboardInterrupt (SIGTERM's Terminated too) hidden behind ``exc``, if any.

    Both are raised asynchronously, by a signal handler or another thread, and so may land while C code is
    running Python code of its own: numba's dispatcher, for one, goes on and returns its result with the
    exception still set, which Python reports as a SystemError caused by it.  Such an error is no fault of
    the strategy that was asked: the time limit or the stop is what happened.
    """
    seen: set[int] = set()
    cause = exc.__cause__ if isinstance(exc, SystemError) else None
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, (DecisionTimeout, KeyboardInterrupt)):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ if isinstance(cause, SystemError) else None
    return None


def _raise_hidden(exc: Exception) -> None:
    """Raise the timeout or stop hidden behind ``exc`` (:func:`hidden_interruption`), if there is one."""
    hidden = hidden_interruption(exc)
    if hidden is not None:
        raise hidden from exc


def _leave(w: _Watch) -> bool:
    """Stop watching ``w``, taking back an exception sent but not raised yet; whether the limit was passed."""
    with _lock:
        _watches.remove(w)
        if w.fired:
            _clear_pending(w)
        return w.fired
