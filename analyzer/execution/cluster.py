"""Running tasks on a Dask cluster, and noticing when the cluster is gone.

Why not joblib's dask backend (what ran before):

* with a single worker thread joblib sees ``n_jobs == 1`` and runs every task in
  *this* process, while the manifest says ``backend: dask``;
* if every worker dies the tasks wait for a worker forever, with no message;
* if the scheduler dies the run ends in a page of traceback.

So tasks are submitted with ``Client.submit`` (they run on the cluster however
many threads it has) and :func:`watch` polls them: results are yielded as they
finish (any order, like the loky path), and a lost scheduler, or no worker for
``lost_after`` seconds, ends the run with one :class:`ClusterError` line.  The
chunks finished before that are already on disk (the runner writes each as it
arrives), so a rerun resumes.  Tasks are submitted a few per worker thread at a
time (:data:`AHEAD`), more as results are taken, so neither this client nor the
workers hold a run's results, however long it is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from distributed import Client, KilledWorker, LocalCluster

from analyzer.execution.cores import cores
from analyzer.execution.experiment import ExperimentError
from analyzer.execution.lifeline import guarded

R = TypeVar("R")

#: Seconds to connect to a scheduler, and to wait for its first worker.
CONNECT_TIMEOUT = 10.0
#: Seconds without any worker (all died) before the run gives up ($DURAK_DASK_LOST_AFTER overrides).
LOST_AFTER = 30.0
LOST_AFTER_ENV = "DURAK_DASK_LOST_AFTER"
#: Seconds between looks at the futures (and at the cluster's health).
POLL = 0.05
HEALTH_EVERY = 1.0
RESUME_HINT = "finished chunks are kept; rerun to resume"
#: Tasks in flight per worker thread (one running, the rest queued so that a worker never waits for the client).
AHEAD = 2
#: schedulers this process has run tasks on: losing one of them later (a run of several rounds reconnects for
#: each) is a lost cluster mid-run, to be resumed, not an address that never answered
_served: set[str] = set()


class ClusterError(ExperimentError):
    """The Dask cluster cannot be reached or was lost: one line, exit code 2."""


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse a malformed or unreachable scheduler address before a Client is built.

    A Client that fails half-way leaves a traceback at exit and a long wait; a plain
    socket says "no" at once.
    """
    url = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = url.hostname, url.port
    except ValueError:
        host, port = None, None
    if url.scheme not in ("tcp", "tls") or not host or not port:
        raise ClusterError(f"--scheduler {address!r}: expected an address like tcp://HOST:8786")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise ClusterError(f"--scheduler {address!r}: cannot connect: {exc.strerror or exc}") from None


@contextlib.contextmanager
def quiet_dask() -> Iterator[None]:
    """Keep distributed's own log lines (reconnect attempts, tracebacks) off the user's terminal."""
    names = ["distributed", "tornado", "asyncio", *(name for name in logging.root.manager.loggerDict
                                                   if name.startswith(("distributed.", "tornado.")))]
    loggers = [logging.getLogger(name) for name in names]  # children: dask's config gives them own levels
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    yield
    # restored only after a clean exit: a lost cluster's client keeps logging reconnect failures until exit
    for lg, level in zip(loggers, levels):
        lg.setLevel(level)


@contextlib.contextmanager
def dask_client(jobs: int, scheduler: str | None, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[Client]:
    """A Client on ``scheduler`` (checked, connected with a timeout, with a worker), or on a
    loopback LocalCluster of ``jobs`` one-thread worker processes; closed on exit without hanging."""
    with quiet_dask(), contextlib.ExitStack() as stack:
        if scheduler:
            try:
                check_address(scheduler, timeout)
                try:
                    client = Client(scheduler, set_as_default=False, timeout=f"{timeout}s")
                except (OSError, ValueError, TimeoutError) as exc:
                    raise ClusterError(f"--scheduler {scheduler!r}: cannot connect: "
                                       f"{' '.join(str(exc).split()) or type(exc).__name__}") from None
            except ClusterError as exc:
                if scheduler in _served:  # it ran this run's earlier tasks: the scheduler died mid-run
                    raise ClusterError(f"lost the Dask scheduler at {scheduler} ({str(exc).split(': ', 1)[-1]}); "
                                       f"{RESUME_HINT}") from None
                raise
        else:
            workers = cores(jobs, cap=False)
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None))
            client = Client(cluster, set_as_default=False)
        stack.callback(_close, client)
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError):
            raise ClusterError(f"--scheduler {scheduler!r}: no Dask worker joined within {timeout:g} s "
                               "(start one with: dask worker ADDRESS)") from None
        if scheduler:
            _served.add(scheduler)
        yield client


def _close(client: Client) -> None:
    with contextlib.suppress(Exception):
        client.close(timeout=2)


def watch(client: Client, pending: list[Any], *, lost_after: float = LOST_AFTER,
          where: str = "the Dask cluster", feed: Callable[[list[Any], int], None] | None = None) -> Iterator[Any]:
    """Yield each future's result as it finishes; ClusterError once the cluster is lost.

    Lost means: the client is no longer connected (the scheduler died: dask then
    cancels every future), or the scheduler has had no worker for ``lost_after``
    seconds (every worker died: the tasks would wait forever).  A task's own
    exception is re-raised unchanged (a user error stays a user error).
    ``pending`` is the list of futures in flight, kept up to date here (the
    caller cancels what is left of it); ``feed(pending, threads)`` submits more
    as futures finish, given the cluster's worker threads (counted again at
    every look at the cluster's health).
    """
    threads = _threads(client) if feed is not None else 0
    if feed is not None:
        feed(pending, threads)
    no_workers_since: float | None = None
    next_health = time.monotonic() + HEALTH_EVERY
    while pending:
        finished = [f for f in pending if f.done()]
        for f in finished:
            pending.remove(f)
        if feed is not None and finished:
            feed(pending, threads)  # before the results are taken: the workers stay busy
        for f in finished:
            if f.status == "cancelled":
                raise ClusterError(f"lost {where} (the scheduler is gone); {RESUME_HINT}")
            yield _result(f, where)
        if finished:
            continue
        now = time.monotonic()
        if now >= next_health:
            next_health = now + HEALTH_EVERY
            if client.status != "running":
                raise ClusterError(f"lost {where} (the scheduler is gone); {RESUME_HINT}")
            if feed is not None:
                threads = _threads(client)
                feed(pending, threads)
            if _workers(client):
                no_workers_since = None
            elif no_workers_since is None:
                no_workers_since = now
            elif now - no_workers_since >= lost_after:
                raise ClusterError(f"lost {where}: no worker for {lost_after:g} s (all died?); {RESUME_HINT}")
        time.sleep(POLL)


def _result(future: Any, where: str) -> Any:
    try:
        return future.result()
    except KilledWorker as exc:  # the task took several workers down with it
        raise ClusterError(f"a task kept killing the workers of {where} ({' '.join(str(exc).split())}); "
                           f"{RESUME_HINT}") from None


def _threads(client: Client) -> int:
    """Worker threads the scheduler knows (0 if it cannot be asked right now)."""
    try:
        return sum(client.nthreads().values())
    except Exception:  # noqa: BLE001 - as _workers
        return 0


def _workers(client: Client) -> int:
    """Number of workers the scheduler knows (0 if it cannot be asked right now)."""
    try:
        return len(client.nthreads())
    except Exception:  # noqa: BLE001 - an unreachable scheduler shows up as client.status next time
        return 0


def dask_results(fn: Callable[..., R], calls: Sequence[tuple[Any, ...]], *, jobs: int = -1,
                 scheduler: str | None = None, lost_after: float | None = None) -> Iterator[R]:
    """``fn(*args)`` for every args tuple, on Dask workers (never in this process), as they finish.

    The executor calls this for ``backend="dask"``; ``scheduler=None`` starts a
    loopback LocalCluster of ``jobs`` one-thread processes.
    """
    if lost_after is None:
        lost_after = float(os.environ.get(LOST_AFTER_ENV) or LOST_AFTER)
    where = f"the Dask scheduler at {scheduler}" if scheduler else "the local Dask cluster"
    with dask_client(jobs, scheduler) as client:
        todo = iter(calls)
        pending: list[Any] = []

        def feed(pending: list[Any], threads: int) -> None:
            """Keep AHEAD tasks a worker thread in flight: a result is released once taken, so neither the client
            nor the workers hold more than that many, however many tasks there are."""
            while len(pending) < AHEAD * max(threads, 1):
                args = next(todo, None)
                if args is None:
                    return
                pending.append(client.submit(guarded, os.getpid(), fn, *args, pure=False))  # see lifeline

        try:
            yield from watch(client, pending, lost_after=lost_after, where=where, feed=feed)
        finally:
            with contextlib.suppress(Exception):
                client.cancel([f for f in pending if not f.done()])
