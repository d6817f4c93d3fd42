"""Test-wide settings.

Hypothesis runs derandomized in CI (``CI`` is set there, or ``HYPOTHESIS_PROFILE=ci``):
the same examples every run, so a red CI is reproducible and never a coin toss.
Locally the ``dev`` profile explores new examples each run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
