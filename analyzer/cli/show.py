"""The ``durak`` commands that read and print without playing: replay, strategies, rules.

Loaded by :mod:`analyzer.cli.app` only when one of them runs, so that
``durak --help`` and a refused argument need neither numpy nor the rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from analyzer.cli.common import user_errors
from analyzer.core.cards import cards_str
from analyzer.core.option_docs import MEANING
from analyzer.core.registry import available, get_strategy, parameters
from analyzer.core.rules import expected_values, format_value, make_rules
from analyzer.engine.replay import fault_json, fault_state, load_scenario, outcome_json
from analyzer.engine.replay import replay as run_replay


def replay(*, file: Path, as_json: bool) -> None:
    """Replay a deal from a scenario file, turn by turn."""
    with user_errors():
        sc = load_scenario(file)
        deal, out = run_replay(sc)
    if out is None:  # a fault scenario stops at the faulty decision (engine.replay.fault_state)
        if as_json:
            typer.echo(json.dumps(fault_json(sc, deal)))
            return
        typer.echo(f"{sc.rules.label()} — {file}")
        for line in deal.log + fault_state(sc, deal):
            typer.echo("  " + line)
        return
    if as_json:
        typer.echo(json.dumps(outcome_json(sc, out)))
        return
    typer.echo(f"{sc.rules.label()} — {file}")
    for s, name in enumerate(sc.names):
        typer.echo(f"  {name}: {cards_str(sc.hands[s], pretty=True)}")
    for line in deal.log:
        typer.echo("  " + line)
    for s, name in enumerate(sc.names):
        flag = "  <- loser (durak)" if out.loser == s else "  <- went out" if out.went_out == s else ""
        typer.echo(f"  {name}: {out.points[s]} points{flag}")


def strategies() -> None:
    """List the strategies with their parameters: built-ins and plugins of the entry-point group durak.strategies."""
    for name, desc in available().items():
        typer.echo(f"{name:14} {desc}")
        params = parameters(name)
        if params:
            typer.echo(f"{'':14} parameters: {', '.join(params)}")
        presets = _presets(name) if "preset=None" in params else {}
        for preset, entry in presets.items():
            typer.echo(f"{'':14} {name}?preset={preset}: {entry.get('about', 'tuned weights')}")


def _presets(name: str) -> dict[str, dict[str, Any]]:
    """A built-in's tuned presets (its class's own ``presets``), or none."""
    return dict(vars(type(get_strategy(name))).get("presets") or {})  # its own, not a subclass's inherited ones


def rules(*, variant: str, players: int | None) -> None:
    """Show every rule option of a variant: its value, the values it takes, and what it does (docs/rules.md)."""
    with user_errors():
        r = make_rules(variant, players)
    typer.echo(f"{r.variant} {r.players}p  (rules in the project's words, with ids: docs/rules.md)")
    for k, v in r.options().items():
        ids, meaning = MEANING[k]
        typer.echo(f"{k:20} {format_value(v):16} {expected_values(k):28} {meaning} ({ids})")
