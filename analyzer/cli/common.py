"""What every ``durak`` command shares: one-line user errors (exit code 2) and the checks of common options.

Light on purpose (no pandas, no numba): :mod:`analyzer.cli.app` imports it for
every command, ``--help`` included.  The user-error types of the heavy modules
(:data:`analyzer.cli.reporting.REPORT_ERRORS`) are added by the commands that load them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analyzer.cli.checks import MAX_COUNT, UsageError, check_jobs, check_seed_jobs, fail, positive
from analyzer.core.cards import CardError
from analyzer.core.faults import SimulationError
from analyzer.core.files import folder_problem
from analyzer.core.registry import StrategySpecError
from analyzer.core.rules import RulesError, RuleSet, make_rules, parse_rule_args
from analyzer.engine.replay import ScenarioError
from analyzer.execution.experiment import ExperimentError
from analyzer.execution.lineup import LineupError, cycle, parse_lineup
from analyzer.execution.progress import RunProgress

#: the analyzer's user-error exceptions whose modules every command may load
USER_ERRORS: tuple[type[BaseException], ...] = (RulesError, ScenarioError, ExperimentError, StrategySpecError,
                                                SimulationError, CardError)


@contextmanager
def user_errors(*more: type[BaseException]) -> Iterator[None]:
    """Turn the analyzer's user-error exceptions (and ``more``) into one line and exit code 2."""
    try:
        yield
    except (UsageError, *USER_ERRORS, *more) as exc:  # type: ignore[misc]
        fail(str(exc))
    except OSError as exc:
        name, why = getattr(exc, "filename", None), exc.strerror
        fail(f"{name}: {why}" if name and why else str(exc))


def rules_of(variant: str, players: int | None, rule: list[str] | None) -> RuleSet:
    """The command's RuleSet, validated once (analyzer.core.rules); no --players: the variant's default."""
    return make_rules(variant, players, parse_rule_args(rule))


def specs_of(texts: list[str], option: str) -> list[str]:
    """Specs from written line-ups (analyzer.execution.lineup); a fault names ``option``."""
    try:
        return [s for t in texts for s in parse_lineup(t)]
    except LineupError as exc:
        raise UsageError(f"{option}: {exc}") from None


def lineup_of(text: str, players: int) -> tuple[str, ...]:
    """Specs by position from ``--strategies``, cycled to ``players`` as an experiment's lineup is."""
    try:
        return cycle(specs_of([text], "--strategies"), players)
    except LineupError as exc:
        raise UsageError(f"--strategies: {exc}") from None


def progress(total: int, unit: str, label: str, quiet: bool = False) -> RunProgress:
    """Progress on stderr (analyzer.execution.progress): a bar on a terminal, else a line every ~10 s; none if quiet."""
    return RunProgress(total_units=total, total_cells=1, unit=unit, label=label, enabled=not quiet)


def check_out(out: Path | None) -> None:
    """``--out`` names a folder that can be made (checked before the work, not when its files are written)."""
    if out is not None and (problem := folder_problem(out)):
        raise UsageError(f"--out {out}: {problem}")


__all__ = ["MAX_COUNT", "USER_ERRORS", "UsageError", "check_jobs", "check_out", "check_seed_jobs", "fail", "lineup_of", "positive",
           "progress", "rules_of", "specs_of", "user_errors"]
