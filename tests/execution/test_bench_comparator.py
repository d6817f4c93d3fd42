"""The bench's comparator (analyzer.execution.bench_proto): a real game whose results follow from its rules."""

from __future__ import annotations

import numpy as np

from analyzer.execution import bench_proto


def test_the_prototype_plays_whole_deals_the_same_on_any_threads():
    one = bench_proto.play(5000, seed=3, threads=1)
    two = bench_proto.play(5000, seed=3, threads=2)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert one["wins"].sum() + one["capped"] == 5000 and one["losses"].sum() == 5000
    # the first player moves first and sheds first more often; every deal takes at least 5 turns of its winner
    assert one["wins"][0] > one["wins"][3] and one["turns"] >= 5000 * 17
    assert not np.array_equal(one["wins"], bench_proto.play(5000, seed=4)["wins"])  # the seed matters
