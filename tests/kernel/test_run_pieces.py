"""The driver's pieces of a run (analyzer.kernel.driver.run_blocks): every deal once, few kernel calls."""

from __future__ import annotations

import threading

import pytest

from analyzer.kernel.driver import BLOCK, MOST_BLOCKS, pieces, run_blocks


@pytest.mark.parametrize(("lo", "hi", "threads", "size"), [(0, 300_000, 1, BLOCK), (7, 300_007, 2, BLOCK),
                                                           (0, 5_000, 2, BLOCK), (3, 103, 2, 32), (0, 10, 1, BLOCK),
                                                           (5, 1_000_001, 3, BLOCK)])
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
    assert all(0 < b - a <= MOST_BLOCKS * size for a, b in calls)
    if threads == 1:  # one kernel call per MOST_BLOCKS blocks, not per block
        assert len(calls) == -(-(hi - lo) // (MOST_BLOCKS * size))


@pytest.mark.parametrize("workers", [2, 3])
def test_pieces_shrink_to_one_block_at_the_end_and_are_few(workers: int) -> None:
    """Guided pieces: big while much is left (few calls), one block each at the end (threads finish together)."""
    got = pieces(11, 1_000_011, workers)
    sizes = [b - a for a, b in got]
    assert got[0][0] == 11 and got[-1][1] == 1_000_011 and all(x[1] == y[0] for x, y in zip(got, got[1:]))
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] == MOST_BLOCKS * BLOCK and all(s <= BLOCK for s in sizes[-2 * workers:])
    assert len(got) < 1_000_000 // BLOCK // 4  # not a call per block


def test_a_failing_block_stops_the_run_and_reaches_the_caller() -> None:
    """A helper thread's exception is raised in the calling thread; no piece starts after it."""
    started: list[int] = []
    playing, failed = threading.Event(), threading.Event()

    def block(a: int, b: int) -> None:
        started.append(a)
        if threading.current_thread() is threading.main_thread():
            playing.set()
            assert failed.wait(10)  # the calling thread plays its first piece until the helper has failed
        else:
            assert playing.wait(10)
            failed.set()
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_blocks(block, 0, 100 * 32, 2, 32)
    assert len(started) == 2


def test_ctrl_c_in_the_calling_thread_stops_the_helpers() -> None:
    """Ctrl-C (KeyboardInterrupt in the calling thread, raised when its kernel call returns): the helper
    finishes the piece it plays and starts no other; run_blocks returns only after it has stopped."""
    helper_pieces: list[int] = []
    ended: list[int] = []
    playing, one_done = threading.Event(), threading.Event()

    def block(a: int, b: int) -> None:
        if threading.current_thread() is threading.main_thread():
            playing.set()
            assert one_done.wait(10)
            raise KeyboardInterrupt
        assert playing.wait(10)
        helper_pieces.append(a)
        one_done.set()
        threading.Event().wait(0.01)  # a piece takes a while (the GIL is free meanwhile)
        ended.append(a)

    with pytest.raises(KeyboardInterrupt):
        run_blocks(block, 0, 1000 * 32, 2, 32)
    left = len(helper_pieces)
    assert 1 <= left <= 10  # of ~160 pieces
    assert len(ended) == left  # the helper's last piece ended before the return
    threading.Event().wait(0.05)
    assert len(helper_pieces) == left  # and none started after it


def test_deals_are_the_same_on_one_two_and_three_threads_in_guided_pieces() -> None:
    """Through simulate_deals: an odd count cut into guided pieces of many sizes (and the
    numpy decks' windows) gives every field of every deal as one thread does."""
    from dataclasses import fields

    import numpy as np

    from analyzer.core.rules import make_rules
    from analyzer.kernel.driver import WINDOW, simulate_deals
    from strategies import get_strategy

    rules = make_rules("czech", 4)
    strats = [get_strategy("random")] * 4
    n = 9 * BLOCK + 7  # pieces of 4,609, 3,457, 2,593, then blocks on two threads, a short last one
    assert len({b - a for a, b in pieces(0, n, 2)}) > 2
    one = simulate_deals(rules, strats, n, seed=11, threads=1, specialise=False)
    for threads in (2, 3):
        many = simulate_deals(rules, strats, n, seed=11, threads=threads, specialise=False)
        for f in fields(one):
            assert np.array_equal(getattr(one, f.name), getattr(many, f.name)), (threads, f.name)
    m = WINDOW + 3 * BLOCK + 1  # two windows of numpy decks, each cut into pieces
    a = simulate_deals(rules, strats, m, seed=3, threads=1, deck_rng=np.random.default_rng(5), specialise=False)
    b = simulate_deals(rules, strats, m, seed=3, threads=2, deck_rng=np.random.default_rng(5), specialise=False)
    assert all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
