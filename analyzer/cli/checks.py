"""Checks of plain command-line numbers (counts, seeds, jobs), light enough to run before a command loads numpy,
pandas and numba: a refused number is one line in a fraction of a second (analyzer.cli.app)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer


class UsageError(ValueError):
    """A bad command-line value the parser cannot catch (e.g. non-positive --deals)."""


def fail(message: str) -> None:
    typer.echo(f"durak: error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(2)


@contextmanager
def usage_errors() -> Iterator[None]:
    """A :class:`UsageError` as one line and exit code 2."""
    try:
        yield
    except UsageError as exc:
        fail(str(exc))


MAX_COUNT = 10**10


def positive(name: str, value: int | None) -> None:
    if value is not None and value <= 0:
        raise UsageError(f"{name} must be a positive number, got {value}")
    if value is not None and value > MAX_COUNT:
        raise UsageError(f"{name} is too large: {value} (at most {MAX_COUNT:,})")


def check_jobs(jobs: int) -> None:
    """Jobs are joblib's: -1 = all cores, -2 = all but one, never 0 (execution.cores reads them)."""
    if jobs == 0:
        raise UsageError("--jobs must be a non-zero integer (-1 = all cores), got 0")


def check_seed_jobs(seed: int, jobs: int) -> None:
    """Seeds are non-negative (numpy's SeedSequence); jobs as :func:`check_jobs`."""
    if seed < 0:
        raise UsageError(f"--seed must be a whole number >= 0, got {seed}")
    check_jobs(jobs)


def check_numbers(*counts: tuple[str, int | None], seed: int = 0, jobs: int = 1) -> None:
    """Every count positive (None: not given), the seed and jobs as :func:`check_seed_jobs`; one line if not."""
    with usage_errors():
        for name, value in counts:
            positive(name, value)
        check_seed_jobs(seed, jobs)
