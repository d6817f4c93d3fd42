"""The two ways kernel functions are compiled (one place for the numba options).

* :data:`inner` — phase functions, strategies, bit and random helpers: they
  allocate nothing, so they are compiled without numba's reference counting
  (``_nrt=False``, no atomic counter updates around every call), and with
  ``error_model="numpy"`` (no division-by-zero checks: no divisor in the
  kernel can be zero, players >= 2 and decks >= 32 cards);
* :data:`outer` — the block drivers called from Python: they allocate their
  scratch arrays and release the GIL, so threads run blocks side by side.

Both are cached (analyzer.kernel._cache chooses where).
"""

from __future__ import annotations

from numba import njit

from analyzer.kernel._cache import CACHE

inner = njit(cache=CACHE, _nrt=False, error_model="numpy", forceinline=True)  # type: ignore[call-overload]  # numba target options
outer = njit(cache=CACHE, nogil=True, error_model="numpy")
helper = njit(cache=CACHE, error_model="numpy")  # small allocating helpers of the drivers
