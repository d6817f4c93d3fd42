"""The compiled engine (issue 12): the rules of analyzer.engine.deal as numba kernels.

``_cache`` is imported first so that numba's cache folder is settled before
numba itself is imported.
"""

from analyzer.kernel import _cache  # noqa: F401  (must run before numba is imported)
