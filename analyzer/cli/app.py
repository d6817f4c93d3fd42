"""The ``durak`` command line (typer).  Commands are thin; the work lives in modules.

Every user mistake ends with one line on stderr naming the culprit and exit
code 2; tracebacks are for bugs only.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated

import typer

from analyzer import __version__
from analyzer.cli.checks import check_numbers, fail
from analyzer.core.timelimit import DEFAULT_LIMIT, LIMIT_ENV, check_limit, hidden_interruption
from analyzer.core.timelimit import decision_limit as current_limit
from analyzer.execution.lifeline import interrupt_line, on_sigterm, was_terminated

# rich_markup_mode=None: click's plain help, which needs no rich import and prints no "<bool>" beside flags
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family).")


def _commands(name: str) -> ModuleType:
    """The module holding the work of a command (analyzer.cli.sim: simulate; analyzer.cli.reporting: report;
    analyzer.cli.work: the others that play; analyzer.cli.show: those that read and print), loaded when the command
    runs, never when the app is declared: ``durak --help`` and an argument the parser refuses answer in a fraction
    of a second, without numpy, pandas, numba or matplotlib, and each command loads only what it uses."""
    return importlib.import_module(f"analyzer.cli.{name}")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"durak {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False,
          decision_limit: Annotated[float | None, typer.Option(
              "--decision-limit", metavar="SECONDS",
              help=f"Seconds a Python strategy may take over one decision before the run ends naming it "
                   f"(default {DEFAULT_LIMIT:g}, or ${LIMIT_ENV}; 0 = no limit).")] = None) -> None:
    """Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family)."""
    try:
        if decision_limit is not None:  # worker processes inherit it through the environment
            os.environ[LIMIT_ENV] = repr(check_limit(decision_limit))
        else:
            current_limit()  # a bad $DURAK_DECISION_LIMIT: one line now, not a fault at the first decision
    except ValueError as exc:
        fail(f"--decision-limit: {exc}" if decision_limit is not None else str(exc))


RuleOpt = Annotated[list[str] | None, typer.Option("--rule", "-r", help="Rule option NAME=VALUE (see durak rules); repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option(help="Number of players (default: 4, svinya 2).")]
JobsOpt = Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")]
BackendOpt = Annotated[str, typer.Option(help="loky (local) or dask.")]
SchedulerOpt = Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://127.0.0.1:8786.")]
CsvOpt = Annotated[Path | None, typer.Option(help="Also write the table (one row per position and metric, as "
                                                 "analyzer.simulate returns it) to this CSV file.")]
TsvOpt = Annotated[bool, typer.Option("--tsv", help="Print tables as tab-separated values (for scripts).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr (a bar on a terminal, "
                                                              "elsewhere a line every ~10 s).")]


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the trace.")] = False,
) -> None:
    """Replay a deal from a scenario file, turn by turn."""
    _commands("show").replay(file=file, as_json=as_json)


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
    quiet: QuietOpt = False,
    csv: CsvOpt = None,
    tsv: TsvOpt = False,
    out: Annotated[Path | None, typer.Option(help="Keep the finished chunks and results in this folder: the same "
                                                  "command resumes there if stopped (a long run keeps them in the "
                                                  "user cache until it ends).")] = None,
) -> None:
    """Play deals (or matches) of one line-up and print rates with 95% intervals."""
    check_numbers(("--deals", deals), ("--matches", matches), seed=seed, jobs=jobs)
    _commands("sim").simulate(variant=variant, players=players, strategies=strategies, deals=deals, matches=matches, seed=seed,
                  rule=rule, jobs=jobs, check=check, as_json=as_json, quiet=quiet, csv=csv, tsv=tsv,
                  out=out)


@app.command("strategies")
def list_strategies() -> None:
    """List the strategies with their parameters: built-ins and plugins of the entry-point group durak.strategies."""
    _commands("show").strategies()


@app.command("rules")
def list_rules(variant: Annotated[str, typer.Argument(help="czech | prague | svinya")] = "czech",
               players: PlayersOpt = None) -> None:
    """Show every rule option of a variant: its value, the values it takes, and what it does (docs/rules.md)."""
    _commands("show").rules(variant=variant, players=players)


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
    startup_repeats: Annotated[int, typer.Option(help="Rounds of the start-up rows: CPU seconds of `durak --help`, "
                                                      "`durak simulate --deals 1000` and `durak report` of "
                                                      "reports/quick, drawn and unchanged (0: skip).")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
    doc: Annotated[Path | None, typer.Option(help="Also keep this run's table in a Markdown page (e.g. "
                                                  "docs/performance.md), between its 'durak bench' markers.")] = None,
    quiet: QuietOpt = False,
) -> None:
    """Per second on 1 core and all cores: the compiled kernel, the paused kernel, rules engine, rollouts,
    `durak simulate` end to end beside a plain numba comparator, and the CPU seconds a command starts with."""
    _commands("work").bench(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
               variants=variants, search=search, repeats=repeats, as_json=as_json, e2e_deals=e2e_deals, quiet=quiet,
               startup_repeats=startup_repeats, doc=doc)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    deals: Annotated[int | None, typer.Option(help="Override deals (or matches) per cell.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default runs/<name>, which git ignores).")] = None,
    jobs: JobsOpt = -1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    fresh: Annotated[bool, typer.Option(help="Discard finished chunks instead of resuming.")] = False,
    quiet: QuietOpt = False,
    check: Annotated[bool, typer.Option(help="Verify card conservation on every step (slow).")] = False,
) -> None:
    """Run an experiment file: every cell, in parallel, resumable; then write its report."""
    check_numbers(("--deals", deals), jobs=jobs)
    _commands("work").run(file=file, deals=deals, out=out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh,
             quiet=quiet, check=check)


@app.command()
def report(folder: Annotated[Path, typer.Argument(help="A run's output folder: an experiment's, a balance "
                                                       "exploration's, or the --out of durak compare, tune or "
                                                       "solve.")],
           quiet: QuietOpt = False,
           svg: Annotated[bool, typer.Option("--svg", help="Also write each chart as SVG (charts/*.svg) beside the "
                                                           "PNG that report.md links and report.html embeds.")] = False,
           redraw: Annotated[bool, typer.Option("--redraw", help="Build and draw the report even if the folder's "
                                                                 "report was built from the same stored results by "
                                                                 "the same code.")] = False) -> None:
    """Rebuild a run's report from its stored results, without simulating (report.md and report.html; compare.md
    and compare.html; tune.md; solve.md): charts drawn on every idle core, and a folder whose report is already that of its
    stored results is left as it is."""
    _commands("reporting").report(folder=folder, quiet=quiet, svg=svg, redraw=redraw)


@app.command()
def export(
    folder: Annotated[Path, typer.Argument(help="A run's output folder (durak run).")],
    csv: Annotated[Path | None, typer.Option(help="Write the table here as CSV.")] = None,
    parquet: Annotated[Path | None, typer.Option(help="Write the table here as Parquet.")] = None,
) -> None:
    """Write a run's table (one row per cell, position and metric, with 95% intervals) as CSV or Parquet, the
    frame analyzer.results(FOLDER) returns."""
    _commands("work").export(folder=folder, csv=csv, parquet=parquet)


@app.command()
def deals(
    variant: Annotated[str, typer.Option(help="czech | prague | svinya")] = "czech",
    players: PlayersOpt = None,
    strategies: Annotated[str, typer.Option(help="Strategies by position, as in simulate.")] = "random",
    n: Annotated[int, typer.Option("--deals", help="Deals to play.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same deals.")] = 0,
    rule: RuleOpt = None,
    csv: Annotated[Path | None, typer.Option(help="Write the rows here as CSV.")] = None,
    parquet: Annotated[Path | None, typer.Option(help="Write the rows here as Parquet.")] = None,
) -> None:
    """Export single deals, one row per deal and position (winner, loser, points, turns, wilds dealt and held),
    the frame analyzer.deals returns."""
    check_numbers(("--deals", n), seed=seed)
    _commands("work").deals(variant=variant, players=players, strategies=strategies, n=n, seed=seed, rule=rule,
                            csv=csv, parquet=parquet)


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
    out: Annotated[Path | None, typer.Option(help="Also write the report here (field: compare.md, compare.html, "
                                                  "compare.json, a heat map; round-robin and hero: report.md, "
                                                  "report.html, charts).")] = None,
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
    quiet: QuietOpt = False,
    tsv: TsvOpt = False,
    csv: Annotated[Path | None, typer.Option(help="Also write the table (one row per strategy and metric, as "
                                                  "analyzer.compare returns it) to this CSV file.")] = None,
) -> None:
    """Compare strategies on duplicate deals: every deck is played by every line-up of the design."""
    check_numbers(("--deals", deals), ("--matches", matches), seed=seed, jobs=jobs)
    _commands("work").compare(strategies=strategies, variant=variant, players=players, deals=deals, matches=matches, seed=seed,
                 rule=rule, jobs=jobs, as_json=as_json, out=out, design=design, reference=reference,
                 background=background, until_ci=until_ci, sprt=sprt, swap_hands=swap_hands, alpha=alpha, beta=beta,
                 quiet=quiet, tsv=tsv, csv=csv)


@app.command("compare-rules")
def compare_rules(
    rules_a: Annotated[list[str] | None, typer.Option("--rules-a", "-a", help="Rule set A: NAME=VALUE over the "
                                                      "variant's defaults; repeatable (none: the defaults).")] = None,
    rules_b: Annotated[list[str] | None, typer.Option("--rules-b", "-b", help="Rule set B, as --rules-a.")] = None,
    variant: Annotated[str, typer.Option(help="czech | prague | svinya")] = "czech",
    players: PlayersOpt = None,
    strategies: Annotated[str, typer.Option(help="The players by position, as in simulate (the same under A "
                                                 "and B).")] = "random",
    deals: Annotated[int, typer.Option(help="Decks, each played once under A and once under B.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same decks and numbers.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    quiet: QuietOpt = False,
    tsv: TsvOpt = False,
) -> None:
    """Two rule sets side by side on the same decks with the same players: every seat's win and дурак rate, deal
    length and the Jack's share under each, and their paired differences, with 95% intervals."""
    check_numbers(("--deals", deals), seed=seed)
    _commands("work").compare_rules(rules_a=rules_a, rules_b=rules_b, variant=variant, players=players,
                                    strategies=strategies, deals=deals, seed=seed, as_json=as_json, quiet=quiet,
                                    tsv=tsv)


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
    out: Annotated[Path | None, typer.Option(help="Report folder (default runs/tuning/STRATEGY-VARIANT-Np).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Tune a strategy's parameters with CMA-ES on duplicate decks; check the winner on fresh decks."""
    check_numbers(("--budget", budget), ("--decks", decks), ("--holdout", holdout), seed=seed, jobs=jobs)
    _commands("work").tune(strategy=strategy, variant=variant, players=players, rule=rule, reference=reference, budget=budget,
              decks=decks, holdout=holdout, sigma=sigma, seed=seed, jobs=jobs, out=out, as_json=as_json, quiet=quiet)


@app.command()
def balance(
    variant: Annotated[str | None, typer.Option(help="czech | prague | svinya (or the rule-space file's).")] = None,
    players: PlayersOpt = None,
    rule_space: Annotated[Path | None, typer.Option(help="Rule-space file (TOML): the options and values to explore "
                                                         "and the run's settings; default: every option of RULES.md "
                                                         "that can change a single deal.")] = None,
    target_pp: Annotated[float | None, typer.Option(help="Measure the finalists' seat shares, first-mover advantage "
                                                         "and skill gap to ± this many points (default 1).")] = None,
    strong: Annotated[str | None, typer.Option(help="The skilled player (default: the tuned preset, "
                                                    "weighted?preset=VARIANT-Np; the strongest: expert, "
                                                    "about a millisecond a decision).")] = None,
    opponent: Annotated[list[str] | None, typer.Option(help="The skill gap is the strong player against this one "
                                                            "(default random); repeatable.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed; the same seed gives the same numbers (default 0).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/<name>).")] = None,
    jobs: JobsOpt = -1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    fresh: Annotated[bool, typer.Option(help="Discard finished work instead of resuming.")] = False,
    quiet: Annotated[bool, typer.Option(help="No line per round on stderr.")] = False,
    fairness: Annotated[str | None, typer.Option(help="What 'fair' ranks on: every-seat (every seat's win and дурак "
                                                      "share, the default) or first-mover (its win only).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: every rule set's seat fairness, "
                                                         "first-mover advantage, skill gap and per-seat rates.")] = False,
) -> None:
    """Explore house rules: which make the fairest game (every seat, wins and дурак) and the most skilful."""
    _commands("work").balance(variant=variant, players=players, rule_space=rule_space, target_pp=target_pp,
                              strong=strong, opponent=opponent, seed=seed, out=out, jobs=jobs, backend=backend,
                              scheduler=scheduler, fresh=fresh, quiet=quiet, fairness=fairness, as_json=as_json)


@app.command()
def solve(
    variant: Annotated[str, typer.Option(help="czech | prague | svinya (two players)")] = "czech",
    deck: Annotated[int, typer.Option(help="Research deck size: whole ranks of four suits (not a RULES.md deck).")] = 8,
    hand: Annotated[int, typer.Option(help="Cards dealt to each player.")] = 2,
    strategies: Annotated[str | None, typer.Option(help="Strategies to measure, comma separated "
                                                        "(default: every built-in that plays from its view).")] = None,
    target: Annotated[float, typer.Option(help="Stop CFR+ when the exploitability is below this (stake 1).")] = 0.001,
    out: Annotated[Path | None, typer.Option(help="Also write solve.json and solve.md to this folder.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    rule: RuleOpt = None,
    draws: Annotated[int, typer.Option(help="Draws of a strategy that answers at random (pimc, ismcts).")] = 3,
    summary: Annotated[Path | None, typer.Option(help="Instead: write README.md of this folder of solved sizes "
                                                      "(every */solve.json) and solve nothing.")] = None,
    max_nodes: Annotated[int, typer.Option(help="Refuse a game tree past this many nodes (about 750 bytes each): "
                                                "before building it where an estimate is past it already.")
                         ] = 10_000_000,
) -> None:
    """Solve a research size of a two-player variant exactly (CFR+) and measure how far strategies are from it."""
    _commands("work").solve(variant=variant, deck=deck, hand=hand, strategies=strategies, target=target, out=out,
                            as_json=as_json, rule=rule, draws=draws, summary=summary, max_nodes=max_nodes)


@app.command()
def findings(
    root: Annotated[Path, typer.Option(help="The project folder holding reports/ and docs/.")] = Path("."),
    out: Annotated[Path | None, typer.Option(help="Write here instead of ROOT/docs/findings.md.")] = None,
    check: Annotated[bool, typer.Option(help="Write nothing; exit 1 if the page differs from what the reports "
                                             "give.")] = False,
) -> None:
    """Write docs/findings.md from the committed reports' stored results (every number from reports/)."""
    if not (root / "reports").is_dir():
        fail(f"--root {root}: no reports/ folder there")
    # loaded when the command runs: the app is declared without pandas (durak --help stays fast)
    from analyzer.report.findings import FINDINGS_PATH, check_findings, write_findings
    from analyzer.stats.tables import ResultsError  # (the same reason)
    try:
        if check:
            where = out if out is not None else root / FINDINGS_PATH
            if not check_findings(root, where):
                typer.echo(f"durak: {where} differs from what reports/ gives: run `durak findings`", err=True)
                raise typer.Exit(1)
            typer.echo(f"{where} is up to date with reports/")
            return
        typer.echo(str(write_findings(root, out)))
    except (ResultsError, OSError, KeyError, ValueError) as exc:
        fail(f"findings: a report under {root / 'reports'} cannot be read: {exc}")


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
    except SystemError as exc:  # Ctrl-C or SIGTERM that landed inside C code (numba's dispatcher) is still a stop
        if isinstance(hidden_interruption(exc), KeyboardInterrupt):
            _interrupted()
        raise
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
