"""The ``durak`` command line (typer).  Commands are thin; the work lives in modules.

Every user mistake ends with one line on stderr naming the culprit and exit
code 2 (issue 6); tracebacks are for bugs only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import __version__
from analyzer.cli.common import UsageError, specs_of, user_errors
from analyzer.core.cards import cards_str
from analyzer.core.option_docs import MEANING
from analyzer.core.registry import available, get_strategy, parameters
from analyzer.core.rules import expected_values, format_value, make_rules
from analyzer.engine.replay import fault_json, fault_state, load_scenario, outcome_json
from analyzer.engine.replay import replay as run_replay
from analyzer.execution.lifeline import interrupt_line, on_sigterm, was_terminated

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family).")


def _work() -> Any:
    """The commands' heavy half (analyzer.cli.work), imported only by the commands that play."""
    from analyzer.cli import work  # loads numba and pandas, which --help, rules and replay never need

    return work


def _version(value: bool) -> None:
    if value:
        typer.echo(f"durak {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Monte Carlo strategy analyzer for czech, prague and svinya (Czech Durak family)."""


RuleOpt = Annotated[list[str] | None, typer.Option("--rule", "-r", help="Rule option NAME=VALUE (RULES.md names); repeatable.")]
PlayersOpt = Annotated[int | None, typer.Option(help="Number of players (default: 4, svinya 2).")]
JobsOpt = Annotated[int, typer.Option(help="Parallel jobs (-1 = all cores).")]
BackendOpt = Annotated[str, typer.Option(help="loky (local) or dask.")]
SchedulerOpt = Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://127.0.0.1:8786.")]


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the trace.")] = False,
) -> None:
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
    work = _work()

    work.simulate(variant=variant, players=players, strategies=strategies, deals=deals, matches=matches, seed=seed,
                  rule=rule, jobs=jobs, check=check, as_json=as_json, engine=engine)


@app.command("strategies")
def list_strategies() -> None:
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


@app.command("rules")
def list_rules(variant: Annotated[str, typer.Argument(help="czech | prague | svinya")] = "czech",
               players: PlayersOpt = None) -> None:
    """Show every rule option of a variant: its value, the values it takes, and what it does (docs/rules.md)."""
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
    work = _work()

    work.bench(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
               variants=variants, search=search, repeats=repeats, as_json=as_json, e2e_deals=e2e_deals)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    deals: Annotated[int | None, typer.Option(help="Override deals (or matches) per cell.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/<name>).")] = None,
    jobs: JobsOpt = -1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    fresh: Annotated[bool, typer.Option(help="Discard finished chunks instead of resuming.")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    check: Annotated[bool, typer.Option(help="Verify card conservation on every step (slow).")] = False,
) -> None:
    """Run an experiment file: every cell, in parallel, resumable; then write its report."""
    work = _work()

    work.run(file=file, deals=deals, out=out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh,
             quiet=quiet, check=check)


@app.command()
def report(folder: Annotated[Path, typer.Argument(help="An experiment's output folder.")]) -> None:
    """Rebuild report.md and report.html from stored results, without simulating."""
    work = _work()

    work.report(folder=folder)


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
    work = _work()

    work.compare(strategies=strategies, variant=variant, players=players, deals=deals, matches=matches, seed=seed,
                 rule=rule, jobs=jobs, as_json=as_json, out=out, design=design, reference=reference,
                 background=background, until_ci=until_ci, sprt=sprt, swap_hands=swap_hands, alpha=alpha, beta=beta)


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
    work = _work()

    work.tune(strategy=strategy, variant=variant, players=players, rule=rule, reference=reference, budget=budget,
              decks=decks, holdout=holdout, sigma=sigma, seed=seed, jobs=jobs, out=out, as_json=as_json)


@app.command()
def balance(
    variant: Annotated[str | None, typer.Option(help="czech | prague | svinya (or the rule-space file's).")] = None,
    players: PlayersOpt = None,
    rule_space: Annotated[Path | None, typer.Option(help="Rule-space file (TOML): the options and values to explore "
                                                         "and the run's settings; default: every option of RULES.md "
                                                         "that can change a single deal.")] = None,
    target_pp: Annotated[float | None, typer.Option(help="Measure the finalists' first-player advantage and skill "
                                                         "gap to ± this many points (default 1).")] = None,
    strong: Annotated[str | None, typer.Option(help="The skilled player (default: the tuned preset, "
                                                    "weighted?preset=VARIANT-Np).")] = None,
    opponent: Annotated[list[str] | None, typer.Option(help="The skill gap is the strong player against this one "
                                                            "(default random); repeatable.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed; the same seed gives the same numbers (default 0).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/<name>).")] = None,
    jobs: JobsOpt = -1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    fresh: Annotated[bool, typer.Option(help="Discard finished work instead of resuming.")] = False,
    quiet: Annotated[bool, typer.Option(help="No line per round on stderr.")] = False,
) -> None:
    """Explore house rules: which make the fairest, most skilful game (first-player advantage against skill)."""
    work = _work()

    work.balance(variant=variant, players=players, rule_space=rule_space, target_pp=target_pp, strong=strong,
                 opponent=opponent, seed=seed, out=out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh,
                 quiet=quiet)


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
) -> None:
    """Solve a research size of a two-player variant exactly (CFR+) and measure how far strategies are from it."""
    with user_errors():
        if not 0 < target < 1:
            raise UsageError(f"--target must be between 0 and 1, got {target}")
        specs = specs_of([strategies], "--strategies") if strategies else None
        say = (lambda _s: None) if as_json else (lambda s: typer.echo(s, err=True))
        work = _work()
        res = work.solve_size(variant, deck, hand, strategies=specs, target=target, on_progress=say)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / "solve.json").write_text(json.dumps(res, indent=1) + "\n")
            (out / "solve.md").write_text(work.solve_markdown(res))
    if as_json:
        keys = ("variant", "deck", "hand", "research_size", "exploitability", "first_mover_value", "strategies",
                "wild_effect", "iterations", "nodes", "information_sets", "build_seconds", "solve_seconds",
                "turn_cap", "capped_share", "not_measured")
        typer.echo(json.dumps({k: res[k] for k in keys}))
        return
    typer.echo(f"{variant} 2p, research deck of {deck} (ranks {res['cards']}), hands of {hand}, cap {res['turn_cap']} turns")
    typer.echo(f"equilibrium: exploitability {res['exploitability']:.5f}, first mover's value "
               f"{res['first_mover_value']:+.4f} ({res['iterations']} CFR+ iterations, {res['nodes']:,} nodes, "
               f"{res['information_sets']:,} information sets)")
    for spec, d in res["strategies"].items():
        typer.echo(f"  {spec:32s} exploitability {d['exploitability']:.4f}  loss {d['loss']:+.4f}")


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
