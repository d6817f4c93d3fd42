"""Tuned weights of ``weighted`` for the default rules of each variant (``weighted?preset=NAME``, issue 14).

Each preset was found by ``durak tune weighted`` (CMA-ES on duplicate decks,
every seat against copies of default ``weighted``) and checked on fresh
hold-out decks; ``command`` reruns it and ``report`` is its tuning report with
the curve and the hold-out margin.  Weights not listed keep their defaults.
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {}
