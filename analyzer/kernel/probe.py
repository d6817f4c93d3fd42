"""The machine's own two-thread ceiling: pure arithmetic, no memory, on one thread and on two.

``durak bench`` prints how much faster two threads play deals than one.  On a
shared virtual machine that figure is bounded by the host, not by the kernel:
two threads of arithmetic that touch no memory and share nothing should take
exactly twice one thread's work in the same time, and whatever they fall
short of that is the machine's.  Measured beside the kernel's every-core runs
it separates the two ("3 M deals/s on two cores").
"""

from __future__ import annotations

import time

import numpy as np

from analyzer.kernel.driver import run_blocks
from analyzer.kernel.jit import outer
from analyzer.kernel.rng import mix

#: arithmetic steps per unit of work; a block of the driver's 2,048 units takes ~1 ms, like a block of deals
STEPS = 1000


@outer
def spin(lo: int, hi: int, out: np.ndarray) -> None:
    """Mix ``STEPS`` counter values per unit ``lo .. hi`` and keep one word per unit (so nothing is elided)."""
    for u in range(lo, hi):
        z = np.uint64(u)
        acc = np.uint64(0)
        for _ in range(STEPS):
            z += np.uint64(0x9E3779B97F4A7C15)
            acc ^= mix(z)
        out[u] = acc


def two_thread_scaling(units: int = 400_000) -> float:
    """Two threads' speed over one thread's on the same units of work, measured as ``durak bench`` measures the
    kernel: one thread's CPU time (what the load of the shared machine took from it does not count), two
    threads' wall time.  2.0 is a machine that gives two threads two cores.  The threads take pieces as the
    kernels' do (:func:`analyzer.kernel.driver.run_blocks`)."""
    out = np.zeros(units, np.uint64)
    spin(0, 1, out)  # compiled (or loaded) apart
    t = time.process_time()
    run_blocks(lambda a, b: spin(a, b, out), 0, units, 1)
    one = time.process_time() - t
    t = time.perf_counter()
    run_blocks(lambda a, b: spin(a, b, out), 0, units, 2)
    return one / (time.perf_counter() - t)
