"""Numbers and intervals as text: percentages, percentage points, counts.

Every figure of the report and of ``durak compare`` is written through these,
so the same rate reads the same everywhere.
"""

from __future__ import annotations

import numpy as np


def _dec(x: float) -> int:
    """Decimals for a percentage: enough to show a small rate (capped 0.02 %)."""
    v = abs(x) * 100
    return 1 if v == 0 or v >= 1 else (2 if v >= 0.1 else 3)


def pct(x: float, d: int | None = None) -> str:
    """``0.3612 -> '36.1%'``; NaN -> '–'."""
    if x is None or not np.isfinite(x):
        return "–"
    d = _dec(x) if d is None else d
    return f"{100 * x:.{d}f}%"


def pct_ci(x: float, lo: float, hi: float) -> str:
    """``'36.1% [35.9, 36.3]'`` (bounds in percent, same decimals as the rate)."""
    if x is None or not np.isfinite(x):
        return "–"
    d = max(_dec(x), _dec(hi) if np.isfinite(hi) else 1)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return pct(x, d)
    return f"{100 * x:.{d}f}% [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def pp_ci(x: float, lo: float, hi: float) -> str:
    """A difference of rates in percentage points: ``'+2.8 pp [+2.6, +3.0]'``."""
    if not np.isfinite(x):
        return "–"
    d = 1 if abs(x) >= 0.01 or x == 0 else 2
    return f"{100 * x:+.{d}f} pp [{100 * lo:+.{d}f}, {100 * hi:+.{d}f}]"


def num_ci(x: float, lo: float, hi: float, d: int = 1) -> str:
    if not np.isfinite(x):
        return "–"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{x:.{d}f}"
    return f"{x:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]"


def size_ci(x: float, lo: float, hi: float) -> str:
    """A signed difference of rates said as a size in points: ``'7.1 points [6.5, 7.7]'``.

    The sign goes into the verb (:func:`change`); bounds on both sides of 0 keep their signs.
    """
    if not np.isfinite(x):
        return "–"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{abs(100 * x):.1f} points"
    if lo < 0 < hi:
        return f"{abs(100 * x):.1f} points [{100 * lo:+.1f} to {100 * hi:+.1f}]"
    a, b = sorted((abs(100 * lo), abs(100 * hi)))
    return f"{abs(100 * x):.1f} points [{a:.1f}, {b:.1f}]"


def change(x: float, lo: float, hi: float, what: str = "the дурак rate", up: str = "raises",
           down: str = "lowers") -> str:
    """A signed difference in words: ``'lowers the дурак rate by 7.1 points [6.5, 7.7]'``."""
    return f"{up if x > 0 else down} {what} by {size_ci(x, lo, hi)}"


def count(x: float) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"



def p_value(x: float | None) -> str:
    """A p-value to two significant digits, never rounded to 0: ``1e-08`` stays ``1e-08``.

    Only a p-value that is exactly 0 in double precision (the normal tail
    underflows beyond z ≈ 38, or two strategies that never differ in the
    opposite direction with no spread at all) reads ``<1e-300``.
    """
    if x is None or not np.isfinite(x):
        return "–"
    return "<1e-300" if x == 0 else f"{x:.2g}"


def pct2(x: float | None) -> str:
    """A rate in percent with two decimals (``durak compare``), None -> '—'."""
    return "—" if x is None else f"{100 * x:.2f}"


def bounds(lo: float | None, hi: float | None, scale: float = 100.0, nd: int = 2) -> str:
    """``[lo, hi]`` scaled (percent by default); a missing bound -> ``[—]``."""
    if lo is None or hi is None:
        return "[—]"
    return f"[{scale * lo:.{nd}f}, {scale * hi:.{nd}f}]"


def half_width(x: float | None) -> str:
    """An interval half-width in percentage points, three decimals."""
    return "—" if x is None else f"{100 * x:.3f}"


def times(x: float | None) -> str:
    """A ratio as ``1.83x``."""
    return "—" if x is None else f"{x:.2f}x"


def fenced_command(page: str) -> str | None:
    """The ``durak ...`` command of a report page's first fenced code block (how a page written before its
    folder kept a manifest says what made it), or None."""
    lines = page.splitlines()
    return next((lines[i + 1].strip() for i, t in enumerate(lines[:-1])
                 if t.startswith("```") and lines[i + 1].strip().startswith("durak ")), None)
