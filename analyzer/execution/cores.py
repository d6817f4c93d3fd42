"""How many cores a ``--jobs`` value asks for: one reading for the executor, the local Dask cluster and tournaments."""

from __future__ import annotations

import os


def cores(jobs: int, *, cap: bool = True) -> int:
    """Cores that ``jobs`` asks for, joblib style (-1 = all, -2 = all but one, ...; never below 1).

    ``cap``: a positive ``jobs`` is at most this machine's cores (threads and loky processes gain nothing
    beyond); a local Dask cluster passes ``cap=False`` and starts as many workers as asked.
    """
    n = os.cpu_count() or 1
    if jobs > 0:
        return min(jobs, n) if cap else jobs
    return max(1, n + 1 + jobs)
