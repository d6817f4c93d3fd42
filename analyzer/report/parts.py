"""The two shapes report builders hand back: a section's blocks and a first-screen panel.

Kept apart from the builders (:mod:`analyzer.report.sections`, :mod:`analyzer.report.summary`) so that a
builder of its own module (:mod:`analyzer.report.skill_curves`) can return them without importing the
modules that call it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from analyzer.report.render import Block


@dataclass
class Section:
    """What one report kind adds: answer blocks (lead of the report) and its own part."""

    answers: list[Block] = field(default_factory=list)
    details: list[Block] = field(default_factory=list)


@dataclass
class Panel:
    """One headline: a sentence and a drawing function for its axes."""

    title: str
    sentence: str
    draw: Callable[[object], None]
