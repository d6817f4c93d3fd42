"""The ``durak`` command line (typer).  Commands are thin; the work lives in modules.

Every user mistake ends with one line on stderr naming the culprit and exit
code 2 (issue 6); tracebacks are for bugs only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer.execution.lifeline import interrupt_line, on_sigterm, was_terminated

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family).")


def _version(value: bool) -> None:
    if value:
        from analyzer import __version__

        typer.echo(f"durak {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family)."""


def _user_errors() -> tuple[type[BaseException], ...]:
    from analyzer.core.cards import CardError
    from analyzer.core.registry import StrategySpecError
    from analyzer.core.rules import RulesError
    from analyzer.engine.replay import ScenarioError
    from analyzer.execution.experiment import ExperimentError
    from analyzer.sim.simulator import SimulationError
    from analyzer.stats.compare import CompareError
    from analyzer.stats.tables import ResultsError

    return (RulesError, ScenarioError, ExperimentError, StrategySpecError, SimulationError, CardError,
            ResultsError, CompareError)


class UsageError(ValueError):
    """A bad command-line value the parser cannot catch (e.g. non-positive --deals)."""


def fail(message: str) -> None:
    typer.echo(f"durak: error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(2)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the analyzer's user-error exceptions into one line and exit code 2."""
    try:
        yield
    except (UsageError, *_user_errors()) as exc:  # type: ignore[misc]
        fail(str(exc))
    except OSError as exc:
        name, why = getattr(exc, "filename", None), exc.strerror
        fail(f"{name}: {why}" if name and why else str(exc))


def _rules(variant: str, players: int | None, rule: list[str] | None):  # noqa: ANN202 — RuleSet, imported lazily
    """The command's RuleSet, validated once (analyzer.core.rules); no --players: the variant's default."""
    from analyzer.core.rules import make_rules, parse_rule_args

    return make_rules(variant, players, parse_rule_args(rule))


def _specs(texts: list[str], option: str) -> list[str]:
    """Specs from written line-ups (analyzer.execution.lineup); a fault names ``option``."""
    from analyzer.execution.lineup import LineupError, parse_lineup

    try:
        return [s for t in texts for s in parse_lineup(t)]
    except LineupError as exc:
        raise UsageError(f"{option}: {exc}") from None


def _lineup(text: str, players: int) -> tuple[str, ...]:
    """Specs by position from ``--strategies``, cycled to ``players`` as an experiment's lineup is."""
    from analyzer.execution.lineup import LineupError, cycle

    try:
        return cycle(_specs([text], "--strategies"), players)
    except LineupError as exc:
        raise UsageError(f"--strategies: {exc}") from None


def _progress(total: int, unit: str, label: str):  # noqa: ANN202 — RunProgress, imported lazily
    """A progress bar on stderr when it is a terminal (analyzer.execution.progress), else a no-op."""
    from analyzer.execution.progress import RunProgress

    return RunProgress(total_units=total, total_cells=1, unit=unit, label=label)


MAX_COUNT = 10**10


def _positive(name: str, value: int | None) -> None:
    if value is not None and value <= 0:
        raise UsageError(f"{name} must be a positive number, got {value}")
    if value is not None and value > MAX_COUNT:
        raise UsageError(f"{name} is too large: {value} (at most {MAX_COUNT:,})")


def _jobs(jobs: int) -> None:
    """Jobs are joblib's: -1 = all cores, -2 = all but one, never 0 (execution.cores reads them)."""
    if jobs == 0:
        raise UsageError("--jobs must be a non-zero integer (-1 = all cores), got 0")


def _seed_jobs(seed: int, jobs: int) -> None:
    """Seeds are non-negative (numpy's SeedSequence); jobs as :func:`_jobs`."""
    if seed < 0:
        raise UsageError(f"--seed must be a whole number >= 0, got {seed}")
    _jobs(jobs)


RuleOpt = Annotated[list[str] | None, typer.Option("--rule", "-r", help="Rule option NAME=VALUE (RULES.md names); repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option(help="Number of players (default: 4, svinya 2).")]


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the trace.")] = False,
) -> None:
    """Replay a deal from a scenario file, turn by turn."""
    from analyzer.core.cards import cards_str
    from analyzer.engine.replay import load_scenario, outcome_json
    from analyzer.engine.replay import replay as run_replay

    with user_errors():
        sc = load_scenario(file)
        deal, out = run_replay(sc)
    if out is None:  # a fault scenario stops at the faulty decision (engine.replay.fault_state)
        from analyzer.engine.replay import fault_json, fault_state

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


@app.command()
def simulate(
    variant: Annotated[str, typer.Option(help="czech | prague | svinya")] = "czech",
    players: PlayersOpt = None,
    strategies: Annotated[str, typer.Option(help="Strategies by position (0 acts first), separated by ';', ',' "
                                                 "or blanks; k=v items after 'name?' are its parameters; "
                                                 "cycled to the player count.")] = "random",
    deals: Annotated[int, typer.Option(help="Deals to play.")] = 100_000,
    matches: Annotated[int | None, typer.Option(help="Play this many matches instead of deals.")] = None,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same numbers.")] = 0,
    rule: RuleOpt = None,
    jobs: Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")] = -1,
    check: Annotated[bool, typer.Option(help="Verify card conservation on every step (slow).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    engine: Annotated[str | None, typer.Option(help="auto (compiled kernel when every strategy has a compiled form) "
                                                    "| compiled | numpy; default $DURAK_ENGINE or auto.")] = None,
) -> None:
    """Play deals (or matches) of one line-up and print rates with 95% intervals."""
    from analyzer.core.registry import get_strategy
    from analyzer.execution.executor import cell_engines
    from analyzer.execution.experiment import single_cell
    from analyzer.execution.play import play_cell, summary_json

    with user_errors():
        _positive("--deals", deals)
        _positive("--matches", matches)
        _seed_jobs(seed, jobs)
        rules = _rules(variant, players, rule)
        specs = _lineup(strategies, rules.players)
        for s in dict.fromkeys(specs):
            get_strategy(s)
        n = matches or deals
        cell = single_cell(rules, specs, unit="match" if matches else "deal", n=n)
        used = cell_engines([cell], engine=engine)[0]
        with _progress(n, "matches" if matches else "deals", "simulate") as bar:
            tables, elapsed = play_cell(cell, seed=seed, jobs=jobs, check=check, engine=engine,
                                        on_chunk=lambda _cell, units: bar.advance(units))
    out = {**summary_json(rules, tables, elapsed, seed=seed, matches=bool(matches)), "engine": used}
    if as_json:
        typer.echo(json.dumps(out))
        return
    _print_summary(out)


def _print_summary(out: dict) -> None:
    """The human table of ``durak simulate``: every rate and mean with its 95% interval."""
    from rich.console import Console
    from rich.table import Table

    unit = out["unit"]
    units = "matches" if unit == "match" else "deals"
    pct = lambda r, ci: f"{100 * r:.2f} [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"  # noqa: E731
    t = Table(title=f"{out['variant']} {out['players']}p {out['rules']} — {out.get('matches', out['deals']):,} "
                    f"{units}, seed {out['seed']}")
    for col in ("pos", "strategy", "win % [95% CI]", "loser % [95% CI]", "mean points [95% CI]",
                "wild held % [95% CI]"):
        t.add_column(col, no_wrap=col != "strategy", overflow="fold")  # an interval never breaks in two
    for p, s in enumerate(out["strategies"]):
        lo, hi = out["mean_points_ci"][p]
        t.add_row(str(p), s, pct(out["win_rate"][p], out["win_ci"][p]), pct(out["loser_rate"][p], out["loser_ci"][p]),
                  f"{out['mean_points'][p]:.2f} [{lo:.2f}, {hi:.2f}]",
                  pct(out["wild_held_rate"][p], out["wild_held_ci"][p]))
    c = Console(width=max(120, Console().width))
    c.print(t)
    extra = ""
    if "mean_turns" in out:
        lo, hi = out["mean_turns_ci"]
        extra = f"mean turns {out['mean_turns']:.2f} [{lo:.2f}, {hi:.2f}]; "
    elif "mean_deals_per_match" in out:
        extra = f"mean deals per match {out['mean_deals_per_match']:.2f}; "
    c.print(f"{extra}blocked {out['blocked']}, capped {out['capped']} deals; "
            f"{out['deals_per_second']:,.0f} deals/s")
    if out["capped"] and out["capped"] / out["deals"] > 0.001:
        c.print(f"[bold red]WARNING: {out['capped']} deals hit the turn cap ({100 * out['capped'] / out['deals']:.2f}%)"
                " — rates exclude them as wins and losses[/]")


@app.command("strategies")
def list_strategies() -> None:
    """List the strategies with their parameters: built-ins and plugins of the entry-point group durak.strategies."""
    from analyzer.core.registry import available, parameters

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
    from analyzer.core.registry import get_strategy

    return dict(vars(type(get_strategy(name))).get("presets") or {})  # its own, not a subclass's inherited ones


@app.command("rules")
def list_rules(variant: Annotated[str, typer.Argument(help="czech | prague | svinya")] = "czech",
               players: PlayersOpt = None) -> None:
    """Show every rule option of a variant: its value, the values it takes, and what it does (docs/rules.md)."""
    from analyzer.core.option_docs import MEANING
    from analyzer.core.rules import expected_values, format_value, make_rules

    with user_errors():
        r = make_rules(variant, players)
    typer.echo(f"{r.variant} {r.players}p  (rules in the project's words, with ids: docs/rules.md)")
    for k, v in r.options().items():
        ids, meaning = MEANING[k]
        typer.echo(f"{k:20} {format_value(v):16} {expected_values(k):28} {meaning} ({ids})")


@app.command()
def bench(
    deals: Annotated[int, typer.Option(help="Deals per measurement of each case and engine.")] = 200_000,
    simple_deals: Annotated[int, typer.Option(help="Deals through the simple per-decision path (0: skip).")] = 20_000,
    engine_deals: Annotated[int, typer.Option(help="Deals through the rules engine (0: skip).")] = 2_000,
    rollouts: Annotated[int, typer.Option(help="Rollouts from czech 2p positions (0: skip).")] = 200_000,
    variants: Annotated[str, typer.Option(help="Comma-separated variants.")] = "czech,prague,svinya",
    search: Annotated[bool, typer.Option(help="Also measure search (pimc decisions and rollouts per second).")] = True,
    repeats: Annotated[int, typer.Option(help="Repeats of the kernel and Python-strategy rows (best and median).")] = 5,
    e2e_deals: Annotated[int, typer.Option(help="Deals of each end-to-end `durak simulate` run, prague 4p random "
                                                "(0: skip).")] = 600_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
) -> None:
    """Per second on 1 core and all cores: numpy simulator, compiled kernel, simple path, rules engine, rollouts,
    and `durak simulate` end to end beside a plain numba comparator."""
    from analyzer.execution.benchmark import CASES, run_bench

    with user_errors():
        _positive("--deals", deals)
        _positive("--repeats", repeats)
        for name, value in (("--simple-deals", simple_deals), ("--engine-deals", engine_deals),
                            ("--rollouts", rollouts), ("--e2e-deals", e2e_deals)):
            if value < 0:
                raise UsageError(f"{name} must be 0 (skip that measurement) or a positive number, got {value}")
            _positive(name, value or None)
        names = [v.strip() for v in variants.split(",")]
        known = {c[1] for c in CASES}
        if bad := [v for v in names if v not in known]:
            raise UsageError(f"--variants: unknown variant {bad[0]!r} (known: {', '.join(sorted(known))})")
        steps = sum(1 for c in CASES if c[1] in names) + 1
        with _progress(steps, "cases", "bench") as bar:
            run_bench(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
                      variants=names, search=search, repeats=repeats, as_json=as_json, on_row=lambda: bar.advance(1),
                      e2e_deals=e2e_deals)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    deals: Annotated[int | None, typer.Option(help="Override deals (or matches) per cell.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/<name>).")] = None,
    jobs: Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")] = -1,
    backend: Annotated[str, typer.Option(help="loky (local) or dask.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://127.0.0.1:8786.")] = None,
    fresh: Annotated[bool, typer.Option(help="Discard finished chunks instead of resuming.")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    check: Annotated[bool, typer.Option(help="Verify card conservation on every step (slow).")] = False,
) -> None:
    """Run an experiment file: every cell, in parallel, resumable; then write its report."""
    from analyzer.execution.runner import run_experiment

    with user_errors():
        _positive("--deals", deals)
        _jobs(jobs)
        if backend not in ("loky", "dask"):
            raise UsageError(f"--backend must be loky or dask, not {backend!r}")
        if scheduler is not None and backend != "dask":  # it was silently ignored
            raise UsageError(f"--scheduler {scheduler!r} needs --backend dask (loky runs on this machine only)")
        folder = run_experiment(file, out=out, deals=deals, jobs=jobs, backend=backend, scheduler=scheduler,
                                fresh=fresh, quiet=quiet, check=check)
    _run_ending(folder)
    _warn_capped(folder)


def _run_ending(folder: Path) -> None:
    """Issue 15 item 5: the headline answers (the summary's sentences) and where the report is, on any stdout."""
    from analyzer.report.summary import headlines

    for line in headlines(folder):
        typer.echo(line)
    html = folder / "report.html"
    typer.echo(f"report: {html}" if html.exists() else f"results and report in {folder}")


def _warn_capped(folder: Path) -> None:
    """Issue 6: a run whose capped share passes the alarm threshold says so loudly."""
    import pandas as pd

    from analyzer.stats.tables import CAPPED_ALARM

    if not (folder / "results" / "cells.parquet").exists():  # tournaments (design experiments) have no cells table
        return
    cells = pd.read_parquet(folder / "results" / "cells.parquet")
    tot = pd.read_parquet(folder / "results" / "totals.parquet").merge(cells[["cell", "label"]], on="cell")
    share = tot["capped"] / tot["deals_sum"].clip(lower=1)
    for _, row in tot[share > CAPPED_ALARM].iterrows():
        typer.echo(f"WARNING: {row['label']}: {int(row['capped'])} of {int(row['deals_sum'])} deals hit the turn cap "
                   f"({100 * row['capped'] / row['deals_sum']:.2f}% > {100 * CAPPED_ALARM:.1f}%); they count as "
                   "neither win nor loss", err=True)


@app.command()
def report(folder: Annotated[Path, typer.Argument(help="An experiment's output folder.")]) -> None:
    """Rebuild report.md and report.html from stored results, without simulating."""
    from analyzer.report.build import build_report

    with user_errors():
        if not (folder / "results").is_dir():
            raise UsageError(f"{folder}: no results/ folder here (run the experiment first)")
        if (folder / "results" / "tournaments.json").is_file():  # an experiment of tournaments (design = ...)
            from analyzer.report.compare_view import rebuild_tournament_report

            written = rebuild_tournament_report(folder)
            typer.echo(f"report written: {written[0]} and {written[1]} ({len(written) - 2} chart files)")
            return
        paths = build_report(folder)
    typer.echo(f"report written: {paths.markdown} and {paths.html} ({len(paths.charts)} chart files)")
    _warn_capped(folder)


@app.command()
def compare(
    strategies: Annotated[list[str], typer.Argument(help="Two or more strategies to compare (specs as in simulate).")],
    variant: Annotated[str, typer.Option(help="czech | prague | svinya")] = "czech",
    players: PlayersOpt = None,
    deals: Annotated[int | None, typer.Option(help="Duplicate decks, each played once per rotation "
                                                      "(default 20000).")] = None,
    matches: Annotated[int | None, typer.Option(help="Compare over this many duplicate matches instead.")] = None,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same numbers.")] = 0,
    rule: RuleOpt = None,
    jobs: Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")] = -1,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write compare.md, compare.json and a heatmap here.")] = None,
    design: Annotated[str, typer.Option(help="field: every rotation of the line-up (a field average); "
                                             "round-robin: every pair head to head in both seatings "
                                             "(2 players), with ratings; hero: each strategy in every "
                                             "position against players-1 copies of --reference.")] = "field",
    reference: Annotated[str | None, typer.Option(help="hero design: the opposition's spec (default weighted).")] = None,
    background: Annotated[str | None, typer.Option(help="hero design: the other players-1 strategies by position "
                                                        "instead of copies of --reference, e.g. 'greedy,weighted,random'.")] = None,
    until_ci: Annotated[float | None, typer.Option(help="Play chunks of 1,000 decks (100 matches) until every 95% "
                                                        "interval is within ± this many points of win rate (--deals "
                                                        "or --matches: the budget, default 200000), any design.")] = None,
    sprt: Annotated[float | None, typer.Option(help="Play chunks until Wald's SPRT decides which of two strategies "
                                                    "is better by this many points of win rate.")] = None,
    swap_hands: Annotated[bool, typer.Option(help="round-robin: play every deck four ways, both seatings with the "
                                                  "deck's two hands as dealt and swapped (twice the games a deck).")
                          ] = False,
    alpha: Annotated[float, typer.Option(help="SPRT: chance of naming the first better when it is worse by DELTA.")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT: chance of naming the second better when the first is better by "
                                             "DELTA.")] = 0.05,
) -> None:
    """Compare strategies on duplicate deals: every deck is played by every line-up of the design."""
    import shlex

    from analyzer.execution.compare_run import run_compare, run_compare_until
    from analyzer.report.compare_page import write_compare_page
    from analyzer.report.compare_view import print_comparison, write_outputs
    from analyzer.stats.compare import summarize_comparison

    with user_errors():
        _positive("--deals", deals)
        _positive("--matches", matches)
        _seed_jobs(seed, jobs)
        if deals is not None and matches is not None:
            raise UsageError("give --deals or --matches, not both")
        if design not in ("field", "round-robin", "hero"):
            raise UsageError(f"--design must be field, round-robin or hero, got {design!r}")
        for name, given in (("--reference", reference), ("--background", background)):
            if given is not None and design != "hero":
                raise UsageError(f"{name} belongs to --design hero, not {design}")
        if reference is not None and background is not None:
            raise UsageError("give --reference or --background, not both")
        field_specs = _specs([background], "--background") if background is not None else None
        rule_obj = _stopping_rule(until_ci, sprt, alpha, beta)
        rules = _rules(variant, players, rule)
        specs = _specs(strategies, "STRATEGIES")
        if design != "field":
            if matches is not None or out is not None:
                raise UsageError(f"--design {design} plays single deals and prints; drop --matches and --out")
            n = deals or (200_000 if rule_obj is not None else 20_000)
            _tournament(rules, design, specs, n, seed, jobs, as_json, reference, rule_obj, field_specs, swap_hands)
            return
        if swap_hands:
            raise UsageError("--swap-hands belongs to --design round-robin, not field")
        n = matches or deals or (200_000 if rule_obj is not None else 20_000)
        stopping = None
        with _progress(n, "matches" if matches else "decks", "compare") as bar:
            if rule_obj is None:
                cmp = run_compare(rules, specs, n, seed=seed, matches=bool(matches), jobs=jobs, on_chunk=bar.advance)
            else:  # --until-ci / --sprt on the rotations: chunks until the rule stops (compare_run.run_compare_until)
                cmp, stopping = run_compare_until(rules, specs, n, rule_obj, seed=seed, matches=bool(matches),
                                                  jobs=jobs, on_chunk=bar.advance)
        result = summarize_comparison(cmp)
        if stopping is not None:
            result["stopping"] = stopping
        if out is not None:
            rules_args = "".join(f" --rule {r}" for r in rule or [])
            stop_args = (f" --until-ci {until_ci:g}" if until_ci is not None else
                         f" --sprt {sprt:g} --alpha {alpha:g} --beta {beta:g}" if sprt is not None else "")
            command = (f"durak compare --variant {variant} --players {rules.players} {shlex.join(specs)} "
                       f"--{'matches' if matches else 'deals'} {n} --seed {seed}{rules_args}{stop_args} --out {out}")
            write_outputs(result, out, command=command)
            write_compare_page(result, out, command=command)
    if as_json:
        typer.echo(json.dumps(result))
        return
    print_comparison(result)
    if stopping is not None:
        from analyzer.report.compare_view import stopping_blocks
        from analyzer.report.render import render_rich

        render_rich(stopping_blocks(result))
    if out is not None:
        typer.echo(f"comparison written to {out}/compare.md and {out}/compare.html")


def _stopping_rule(until_ci: float | None, sprt: float | None, alpha: float, beta: float):  # noqa: ANN202
    """The stopping rule of ``--until-ci`` (points of win rate) or ``--sprt`` (analyzer.stats.sequential), or None."""
    import math

    from analyzer.stats.sequential import SequentialError, Sprt, UntilCI

    if until_ci is not None and sprt is not None:
        raise UsageError("give --until-ci or --sprt, not both")
    for name, v in (("--until-ci", until_ci), ("--sprt", sprt)):
        if v is not None and not (math.isfinite(v) and 0 < v < 100):
            raise UsageError(f"{name} must be a number of points of win rate above 0 and below 100, got {v}")
    for name, v in (("--alpha", alpha), ("--beta", beta)):
        if not (math.isfinite(v) and 0 < v < 0.5):
            raise UsageError(f"{name} must lie between 0 and 0.5, got {v}")
    try:
        if until_ci is not None:
            return UntilCI(until_ci / 100)
        if sprt is not None:
            return Sprt.better_by(sprt / 100, alpha, beta)
    except SequentialError as exc:
        raise UsageError(str(exc)) from None
    return None


def _tournament(rules: Any, design: str, specs: list[str], n: int, seed: int, jobs: int, as_json: bool,
                reference: str | None, rule: Any, background: list[str] | None = None, swap_hands: bool = False) -> None:
    """``durak compare --design round-robin|hero``: every line-up of the design on the same decks."""
    from analyzer.execution.tournament_run import run_design
    from analyzer.report.compare_view import tournament_blocks
    from analyzer.report.render import render_rich
    from analyzer.stats.tournament import TournamentError, make_design

    try:
        hero_ref = (reference or "weighted") if design == "hero" and background is None else None
        d = make_design(design, specs, rules.players, reference=hero_ref, background=background, swap_hands=swap_hands)
        with _progress(n, "decks", design) as bar:
            result = run_design(rules, d, n, seed=seed, jobs=jobs, rule=rule, on_chunk=bar.advance)
    except TournamentError as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result))
    else:
        render_rich(tournament_blocks(result))


@app.command()
def tune(
    strategy: Annotated[str, typer.Argument(help="A strategy with numeric parameters, e.g. weighted.")],
    variant: Annotated[str, typer.Option(help="czech | prague | svinya")] = "czech",
    players: PlayersOpt = None,
    rule: RuleOpt = None,
    reference: Annotated[str | None, typer.Option(help="The opposition: players-1 copies of this spec "
                                                       "(default: the strategy with its defaults).")] = None,
    budget: Annotated[int, typer.Option(help="Training decks in all (each candidate plays every seat).")] = 40_000,
    decks: Annotated[int, typer.Option(help="Training decks per generation (every candidate plays them).")] = 2_000,
    holdout: Annotated[int, typer.Option(help="Fresh decks of the final check, tuned against the start.")] = 20_000,
    sigma: Annotated[float, typer.Option(help="Initial CMA-ES step, relative to each parameter's size.")] = 0.5,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same run.")] = 0,
    jobs: Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")] = 1,
    out: Annotated[Path | None, typer.Option(help="Report folder (default reports/tuning/STRATEGY-VARIANT-Np).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Tune a strategy's parameters with CMA-ES on duplicate decks; check the winner on fresh decks."""
    import math
    import shlex

    from analyzer.core.registry import StrategySpecError, parse_spec
    from analyzer.execution.tune import TuneError, tune_strategy, write_report

    with user_errors():
        for name, value in (("--budget", budget), ("--decks", decks), ("--holdout", holdout)):
            _positive(name, value)
        if decks < 2 or holdout < 2:
            raise UsageError(f"{'--decks' if decks < 2 else '--holdout'} must be at least 2 (an interval needs a spread)")
        if not (math.isfinite(sigma) and sigma > 0):
            raise UsageError(f"--sigma must be a positive number, got {sigma}")
        _seed_jobs(seed, jobs)
        rules = _rules(variant, players, rule)
        try:
            target = parse_spec(strategy)[0]
            gens = budget // decks
            with _progress(max(gens, 1), "generations", "tune") as bar:
                res, spec = tune_strategy(rules, strategy, reference=reference, budget=budget,
                                          decks_per_generation=decks, holdout=holdout, sigma0=sigma, seed=seed,
                                          jobs=jobs, on_generation=lambda _g: bar.advance(1))
        except (TuneError, StrategySpecError) as exc:
            raise UsageError(str(exc)) from None
        folder = out or Path("reports") / "tuning" / f"{target}-{rules.variant}-{rules.players}p"
        ref = reference or target
        title = f"{target}, {rules.label()}, against {rules.players - 1} x {ref}"
        rules_args = "".join(f" --rule {r}" for r in rule or [])
        command = (f"durak tune {shlex.quote(strategy)} --variant {rules.variant} --players {rules.players}{rules_args}"
                   + (f" --reference {shlex.quote(reference)}" if reference else "")
                   + f" --budget {budget} --decks {decks} --holdout {holdout} --sigma {sigma:g} --seed {seed}")
        write_report(res, folder, title=title, spec=spec, command=command, chart=True)
    h = res.holdout
    if as_json:
        typer.echo(json.dumps({"spec": spec, "start": res.start, "tuned": res.tuned, "holdout": h,
                               "generations": len(res.curve), "training_decks": int(res.curve["deals"].iloc[-1]),
                               "evaluations": res.evaluations, "report": str(folder / "tune.md")}))
        return
    typer.echo(f"tuned: {spec}")
    verdict = ("better than the start" if h["lo"] > 0 else "worse than the start" if h["hi"] < 0
               else "not distinguishable from the start")
    typer.echo(f"hold-out ({h['n_decks']:,} fresh decks, every seat against {ref}): tuned − start = "
               f"{100 * h['margin']:+.2f} pp [{100 * h['lo']:+.2f}, {100 * h['hi']:+.2f}] (95%, paired): {verdict}")
    typer.echo(f"report: {folder / 'tune.md'}")


def _click_errors() -> tuple[type[Exception], type[Exception], type[Exception]]:
    """Typer's parse-error classes (ClickException, UsageError, NoArgsIsHelpError or UsageError).

    Read off ``typer.BadParameter``: typer 0.12 raises click's own classes,
    newer typers their vendored copies, so neither module is named here.
    """
    mro = {c.__name__: c for c in typer.BadParameter.__mro__}
    usage = mro["UsageError"]
    no_args = getattr(sys.modules[usage.__module__], "NoArgsIsHelpError", usage)
    return mro["ClickException"], usage, no_args


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``durak`` script.

    Typer runs with ``standalone_mode=False`` so that its own parse errors (a
    missing value, text for a number, an unknown option or command) end like
    every other user mistake: one line naming the culprit, exit code 2.
    """
    on_sigterm()  # SIGTERM unwinds like Ctrl-C: workers stopped, lock released, one line
    _STOPPED_ARGV[:] = sys.argv[1:] if argv is None else argv
    click_error, usage_error, no_args = _click_errors()
    try:
        code = app(args=argv, prog_name="durak", standalone_mode=False)
    except no_args as exc:  # bare `durak`: the help, as typer prints it
        exc.show()  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    except usage_error as exc:
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "durak"
        message = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
        typer.echo(f"durak: error: {message} (see: {where} --help)", err=True)
        sys.exit(2)
    except click_error as exc:
        typer.echo(f"durak: error: {' '.join(exc.format_message().split())}", err=True)  # type: ignore[attr-defined]
        sys.exit(getattr(exc, "exit_code", 1) or 1)
    except typer.Abort as exc:  # older typers turn Ctrl-C into Abort
        if isinstance(exc.__cause__, KeyboardInterrupt):
            _interrupted()
        typer.echo("durak: aborted", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        _interrupted()
    if code == 130:  # newer typers turn Ctrl-C into exit code 130
        _interrupted()
    if isinstance(code, int) and code:
        sys.exit(code)


_STOPPED_ARGV: list[str] = []


def _interrupted() -> None:
    """One line (only ``durak run`` has chunks to resume from); 130 for Ctrl-C, 143 for SIGTERM."""
    typer.echo(interrupt_line(_STOPPED_ARGV), err=True)
    sys.exit(143 if was_terminated() else 130)


if __name__ == "__main__":  # pragma: no cover
    main()
