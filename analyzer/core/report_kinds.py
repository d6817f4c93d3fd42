"""The one list of report kinds an experiment may ask for.

Each kind is one section of the report, drawn by one builder
(:data:`analyzer.report.sections.SECTIONS`, keyed by exactly these names) and
validated by the experiment parser (:mod:`analyzer.execution.experiment`).  It
lives in the core so that parsing an experiment does not import the report
layer (matplotlib).  No aliases: a kind is spelled one way.
"""

from __future__ import annotations

#: Report kinds in the order the report shows them.
REPORT_KINDS: tuple[str, ...] = (
    "first_player",   # first-mover advantage and the worst seat
    "positions",      # win and loss rates by position (+ charts)
    "strategies",     # win and loss rates by strategy, which strategy wins
    "head_to_head",   # strategy against strategy (two-strategy cells, + heatmaps)
    "wild_penalty",   # the wild-holding penalty, strategies compared on it (+ charts)
    "house_rules",    # what each rule option switched alone changes
    "length",         # game length, blocked and capped games (+ histograms)
    "skill_curves",   # a ladder of ever stronger tables: first mover and the Jack per step (+ charts)
)


class ReportKindError(ValueError):
    """An unknown report kind; the message (one line) names it and lists the valid ones."""


def check_kinds(kinds: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The kinds, each checked against :data:`REPORT_KINDS` (duplicates dropped, order kept)."""
    for k in kinds:
        if k not in REPORT_KINDS:
            raise ReportKindError(f"unknown report kind {k!r}; known: {', '.join(REPORT_KINDS)}")
    return tuple(dict.fromkeys(kinds))
