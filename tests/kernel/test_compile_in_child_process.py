"""A cold kernel compiles in a child process and loads from the cache (peak memory < 1 GiB).

What a compile allocates stays in its process (analyzer.kernel.apart); a
kernel called from Python whose signature the cache lacks is compiled by a
child, and this process loads it.  The child rebuilds the kernel from a recipe,
which must give numba's cache the key this process looks up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from analyzer.kernel import apart
from analyzer.kernel.jit import Apart

#: a small kernel called from Python, on a fresh cache: where did it compile, and did it run here
_PROBE = """
import json, numpy as np
from numba.core import event
from analyzer.kernel import apart
from analyzer.kernel.probe import spin
here = []
class Heard(event.Listener):
    def on_start(self, e): here.append(e.data["dispatcher"].py_func.__name__)
    def on_end(self, e): pass
event.register("numba:compile", Heard())
out = np.zeros(3, np.uint64)
spin(0, 3, out)
print(json.dumps({"here": here, "apart": [c.kernel for c in apart.COMPILED], "ran": bool(out.all()),
                  "misses": len(spin.stats.cache_misses), "hits": len(spin.stats.cache_hits)}))
"""


def _probe(tmp_path, **env: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), **env})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_a_cold_kernel_compiles_in_a_child_and_this_process_loads_it(tmp_path):
    got = _probe(tmp_path)
    assert got["apart"] == ["probe.spin"] and got["ran"]
    assert "spin" not in got["here"]  # not compiled in this process
    assert got["misses"] == 1 and got["hits"] == 0  # counted as compiled (not as an earlier run's cache)
    again = _probe(tmp_path)  # warm: loaded, no child
    assert again["apart"] == [] and again["hits"] == 1 and "spin" not in again["here"]


def test_compiling_apart_turned_off_compiles_here(tmp_path):
    got = _probe(tmp_path, **{apart.ENV: "0"})
    assert got["apart"] == [] and "spin" in got["here"] and got["ran"]


def test_a_kernel_made_for_rules_rebuilds_in_a_child_with_the_cache_key_of_this_process():
    """Specialised's recipe (maker, rules, line-up): the child's kernel has the index key of this one's."""
    from numba import types

    from analyzer.core.rules import make_rules
    from analyzer.kernel.driver import DEALS
    from analyzer.kernel.params import rule_params

    p = rule_params(make_rules("svinya", 2))
    made = DEALS._make(np.array(p, np.int64), 3)
    made.apart_recipe = ("made", DEALS._make.__module__, DEALS._make.__qualname__, (np.array(p, np.int64), 3))
    twin = apart.rebuild(apart.recipe(made))
    assert isinstance(twin, Apart) and twin is not made
    sig = (types.int64[:],)
    codegen = made.targetctx.codegen()
    assert made._cache._index_key(sig, codegen) == twin._cache._index_key(sig, codegen)
    other = DEALS._make(np.array(rule_params(make_rules("czech", 2)), np.int64), 3)
    assert other._cache._index_key(sig, codegen) != made._cache._index_key(sig, codegen)


def test_specialised_gives_its_kernels_a_recipe():
    from analyzer.core.rules import make_rules
    from analyzer.kernel.jit import Specialised
    from analyzer.kernel.params import rule_params

    made: list[tuple[object, ...]] = []

    def fake_make(*args: object) -> object:
        made.append(args)
        return type("K", (), {})()

    s = Specialised(fake_make)
    p = rule_params(make_rules("czech", 4))
    k = s.kernel(p, 0, specialise=True, lineup=1)
    kind, module, name, args = k.apart_recipe
    assert (kind, module, name) == ("made", __name__, fake_make.__qualname__) and args[1] == 1
    assert np.array_equal(args[0], p) and made == [args]


def test_a_local_function_has_no_recipe():
    def local() -> None:
        pass

    class D:
        py_func = local

    assert apart.recipe(D()) is None
    from analyzer.kernel.probe import spin
    assert apart.recipe(spin) == ("name", "analyzer.kernel.probe", "spin")
