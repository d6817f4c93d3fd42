"""Processes that end together.

* **SIGTERM** becomes :class:`Terminated`, a KeyboardInterrupt: the run unwinds
  exactly as on Ctrl-C (joblib stops its workers, the output lock is released,
  finished chunks stay) and prints one line, instead of Python dying at once and
  loky's resource tracker printing four lines of leaked-semaphore warnings.
* **A killed main process** (``kill -9``, the OOM killer) cannot clean up, so
  each worker watches its parent: :func:`guarded` runs a task and, in a worker
  process whose parent is the process that submitted it (loky workers, the
  local Dask cluster's workers), starts a thread that ends the worker once that
  parent is gone.  Before, loky workers were seen running 51 minutes after
  their parent was killed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

R = TypeVar("R")

#: Seconds between a worker's looks at its parent.
PARENT_POLL = 0.5
#: Exit status of a worker whose parent died (128 + SIGHUP, as for a lost terminal).
ORPHAN_EXIT = 129

_terminated = False
_watching: int | None = None
_watch_lock = threading.Lock()


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwind like Ctrl-C."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    raise Terminated()


def on_sigterm() -> None:
    """Make SIGTERM unwind the main thread like Ctrl-C (call once, from the main thread).

    joblib's warning that the stopped run's queued tasks "have been cancelled" is
    silenced too: cancelling them is the point, and the user gets one line.
    """
    cancelled = r"\d+ tasks (which were still being processed|have been successfully executed)"
    warnings.filterwarnings("ignore", message=cancelled, category=UserWarning)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def was_terminated() -> bool:
    """True once SIGTERM was received in this process."""
    return _terminated


#: what a command that keeps its finished chunks says when stopped (:func:`keeps_chunks`)
_kept: list[str] = []


def keeps_chunks(note: str) -> None:
    """Say ``note`` (where the finished chunks are, how to resume) if this command is stopped ("": nothing)."""
    _kept[:] = [note] if note else []


def interrupt_line(argv: list[str]) -> str:
    """What to say when a command is stopped: ``durak run`` and a stored ``durak simulate`` keep chunks."""
    how = "terminated" if _terminated else "interrupted"
    if _kept:
        return f"durak: {how}; {_kept[0]}"
    command = next((a for a in argv if not a.startswith("-")), "")
    if command == "run":
        return f"durak: {how}; finished chunks are on disk, rerun to resume"
    return f"durak: {how}"


def guarded(parent: int, fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)``, in a worker that exits if ``parent`` (the submitting process) dies."""
    if os.getpid() != parent and os.getppid() == parent:
        _watch_parent(parent)
    return fn(*args)


def watch_parent(parent: int) -> None:
    """A loky worker's initializer: watch ``parent`` from start-up, so a worker that never got a task
    (idle in the pool) ends with its parent too, not after loky's idle timeout."""
    if os.getpid() == parent:
        return
    if os.getppid() != parent:  # the parent died while this worker was still starting up
        os._exit(ORPHAN_EXIT)
    _watch_parent(parent)


def _watch_parent(parent: int) -> None:
    """Start (once per process) a daemon thread that ends this process when ``parent`` is gone."""
    global _watching
    with _watch_lock:
        if _watching == parent:
            return
        _watching = parent
    threading.Thread(target=_orphan_check, args=(parent,), name="durak-parent-watch", daemon=True).start()


def _orphan_check(parent: int) -> None:
    while os.getppid() == parent:  # re-parented (to init or a subreaper) once the parent dies
        time.sleep(PARENT_POLL)
    os._exit(ORPHAN_EXIT)  # no cleanup to do: the task's result has nowhere to go
