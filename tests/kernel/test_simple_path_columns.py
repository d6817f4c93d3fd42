"""The simple path's columns and answer conversion, and random's batch card pick, against the slower forms they
replace (analyzer.kernel.views, strategies.random_legal)."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.core.bits import nth_set_card
from analyzer.core.calls import BadAnswer, answer_arrays
from analyzer.core.cards import DRAW, TAKE
from analyzer.core.registry import get_strategy
from analyzer.core.rules import make_rules
from analyzer.kernel.views import _LEGAL, _SIZES, _answer_arrays, _split, _Table, pack_sizes
from strategies import random_legal
from strategies.masks import nth_card, popcount
from strategies.random_legal import _wild_actions


def test_a_table_column_gives_the_dict_tables_values_as_it_grows_and_starts_again():
    """_Table.column: the values _LEGAL / _SIZES give key by key, over batches of new and known keys, and after
    the table fills up and starts again (a small room)."""
    rng = np.random.default_rng(3)
    legal, sizes = _Table(_LEGAL.__getitem__, np.uint64, room=300), _Table(_SIZES.__getitem__, np.int64, room=300)
    for _ in range(12):
        masks = rng.integers(0, 1 << 52, 200, dtype=np.uint64) & rng.integers(0, 1 << 52, 200, dtype=np.uint64)
        keys = masks | (rng.integers(0, 4, 200).astype(np.uint64) << np.uint64(DRAW))
        keys[::5] = keys[0]  # repeats inside a batch
        assert legal.column(keys) == [_LEGAL[k] for k in keys.tolist()]
        hs = rng.integers(0, 20, (200, 4)).astype(np.int16)
        assert sizes.column(pack_sizes(hs)) == [tuple(r) for r in hs.tolist()]
        assert len(legal.keys) <= 300 and np.all(np.diff(legal.keys.astype(np.float64)) > 0)
    assert legal.column(np.zeros(0, np.uint64)) == []


def _old(answers: list) -> tuple[np.ndarray, np.ndarray] | str:
    try:
        a, s = answer_arrays(*_split(answers))
    except BadAnswer as bad:
        return f"bad {bad.i} {bad.value!r}"
    except Exception as exc:  # noqa: BLE001 — the strategy's own error, as _call reports it
        return f"{type(exc).__name__}: {exc}"
    return a, s


def _new(answers: list) -> tuple[np.ndarray, np.ndarray] | str:
    try:
        a, s = _answer_arrays(answers)
    except BadAnswer as bad:
        return f"bad {bad.i} {bad.value!r}"
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return a, s


@pytest.mark.parametrize("answers", [
    [(3, None), (DRAW, None), (TAKE, None)],
    [(3, None), (44, 2), (DRAW, None)],
    [(np.int16(3), None), (np.uint8(7), None)],
    [(3, None), (4, None, 1)],
    [(3, None), (4,)],
    [(3, None, 1), (4, None, 2)],
    [[3, None], (4, None)],
    [(3.0, None), (4, None)],
    [(True, None)],
    [(None, None), (3, None)],
    [(3, "S"), (4, None)],
    [(3, [1]), (4, None)],
    [(1 << 70, None)],
    [(np.uint64(1 << 63), None)],
    [(3, None), 5],
    [(3, None), "ab"],
    [],
])
def test_answers_become_the_same_arrays_or_the_same_error(answers: list) -> None:
    """_answer_arrays: what answer_arrays(*_split(answers)) gives, arrays or error (break the fast case's checks
    and one of these differs)."""
    old, new = _old(answers), _new(answers)
    if isinstance(old, str) or isinstance(new, str):
        assert old == new
    else:
        assert old[0].dtype == new[0].dtype == np.int64 and old[1].dtype == new[1].dtype == np.int64
        assert old[0].tolist() == new[0].tolist() and old[1].tolist() == new[1].tolist()


def test_randoms_card_pick_is_masks_nth_card():
    """random's batch card pick is analyzer.core.bits.nth_set_card, masks.nth_card's function (one function, not
    a twin): the i-th card of each mask for every pick random makes (0 <= i < the mask's cards), as a Python list
    of the mask's cards says, and -1 where there is none (i past the last card, negative, huge; an empty mask);
    its wild table is masks.card_tables' wild, and DRAW, TAKE and -1 are no wild."""
    assert random_legal.nth_set_card is nth_set_card
    rng = np.random.default_rng(8)
    m = rng.integers(0, 1 << 52, 20_000, dtype=np.uint64) & rng.integers(0, 1 << 52, 20_000, dtype=np.uint64)
    m[::3] &= rng.integers(0, 1 << 52, len(m[::3]), dtype=np.uint64)
    n = popcount(m).astype(np.int64)
    i = (rng.random(len(m)) * n).astype(np.int64)
    ok = n > 0
    assert ok.sum() > 15_000 and i.max() > 5
    cards = [[c for c in range(52) if (x >> c) & 1] for x in m.tolist()]
    picked = nth_set_card(m, i)
    assert picked[ok].tolist() == [cs[k] for cs, k, y in zip(cards, i.tolist(), ok.tolist()) if y]
    assert np.array_equal(picked, nth_card(m, i)) and (picked[~ok] == -1).all()
    for past in (n, n + 1, np.full(len(m), -1), np.full(len(m), 1 << 40)):  # the guard: no such card
        assert (nth_set_card(m, past) == -1).all()
    rules = make_rules("czech", 4)
    w = _wild_actions(rules)
    assert w[1 + 4 * 9] and w.sum() == 4 and not w[0] and not w[1 + DRAW] and not w[1 + TAKE]
    assert get_strategy("random").choose_batch is not None


def test_threads_sharing_a_table_each_get_their_own_keys_values():
    """The tables serve every thread that plays paused deals: while one thread adds keys, another's column must
    still give its own keys' values (a reader that took the old keys and the new values gave another decision's
    legal actions: illegal moves, or legal ones chosen from a view that was not the player's)."""
    import sys
    import threading

    table = _Table(_LEGAL.__getitem__, np.uint64, room=5000)
    wrong: list[int] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(400):
            keys = rng.integers(0, 1 << 52, 64, dtype=np.uint64) & rng.integers(0, 1 << 52, 64, dtype=np.uint64)
            if table.column(keys) != [_LEGAL[k] for k in keys.tolist()]:
                wrong.append(seed)

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can: the race shows within a run
    try:
        threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(before)
    assert not wrong, f"{len(wrong)} columns gave other keys' values"
