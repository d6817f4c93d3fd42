"""Moved to :mod:`analyzer.core.public`: the rules engine and the simulators read it, and they sit
below this layer.  Kept so that older imports keep working; new code imports the core module."""

from analyzer.core.public import *  # noqa: F403
