"""The driver's blocks (analyzer.kernel.driver.run_blocks): every deal once, few kernel calls on one thread."""

from __future__ import annotations

import threading

import pytest

from analyzer.kernel.driver import BLOCK, SERIAL_BLOCKS, run_blocks


@pytest.mark.parametrize(("lo", "hi", "threads", "size"), [(0, 300_000, 1, BLOCK), (7, 300_007, 2, BLOCK),
                                                           (0, 5_000, 2, BLOCK), (3, 103, 2, 32), (0, 10, 1, BLOCK)])
def test_blocks_cover_the_range_once(lo: int, hi: int, threads: int, size: int) -> None:
    calls: list[tuple[int, int]] = []
    lock = threading.Lock()

    def block(a: int, b: int) -> None:
        with lock:
            calls.append((a, b))

    run_blocks(block, lo, hi, threads, size)
    calls.sort()
    assert calls[0][0] == lo and calls[-1][1] == hi
    assert all(x[1] == y[0] for x, y in zip(calls, calls[1:]))  # contiguous: no deal twice, none left out
    most = (SERIAL_BLOCKS if threads == 1 else 1) * size
    assert all(0 < b - a <= most for a, b in calls)
    if threads == 1:  # one kernel call per SERIAL_BLOCKS blocks, not per block
        assert len(calls) == -(-(hi - lo) // most)
