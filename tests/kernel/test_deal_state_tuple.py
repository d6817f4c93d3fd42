"""The deal's scalar fields as a tuple while run_deal plays (analyzer.kernel.state.load/put/store).

The play loop keeps ``st`` in a tuple and writes it back when a deal pauses or
ends; a field lost or shifted on the way would change the results, which the
golden digests catch only for the fields a finished deal reports.  Here every
field is checked.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analyzer.kernel.state import CUR, NI, PHASE, TURNOVERS, load, put, store


@njit(cache=False)
def _through_tuple(st: np.ndarray, out: np.ndarray, cur: int, phase: int) -> None:
    s = load(st)
    s = put(s, CUR, cur)
    s = put(s, PHASE, phase)
    store(out, s)


def test_every_field_survives_the_tuple_and_put_replaces_only_its_own() -> None:
    st = np.arange(NI, dtype=np.int64) * 7 - 3  # a distinct value in every field
    out = np.zeros(NI, np.int64)
    _through_tuple(st, out, 3, 2)
    expected = st.copy()
    expected[CUR], expected[PHASE] = 3, 2
    assert np.array_equal(out, expected)
    assert out[TURNOVERS] == st[TURNOVERS]  # a cold field, untouched by the play loop's puts
