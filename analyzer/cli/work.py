"""The work of the ``durak`` commands that play, tune or report: the heavy half of the command line.

:mod:`analyzer.cli.app` declares every command (options, help) and hands the
heavy ones here, loading this module only when such a command runs: it pulls
in numba and pandas, which ``durak --help``, ``durak rules`` and
``durak replay`` never need.  Each function takes the command's options as
typed keyword arguments.
"""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from analyzer.cli.common import (
    UsageError,
    check_jobs,
    check_seed_jobs,
    lineup_of,
    positive,
    progress,
    rules_of,
    specs_of,
    user_errors,
)
from analyzer.core.registry import StrategySpecError, get_strategy, parse_spec
from analyzer.exact.run import markdown as solve_markdown  # noqa: F401  (durak solve's work, through this heavy half)
from analyzer.exact.run import solve_size  # noqa: F401
from analyzer.execution import compare_run, play
from analyzer.execution.balance_run import run_balance
from analyzer.execution.balance_space import is_balance_file, load_space, parse_space
from analyzer.execution.benchmark import CASES, run_bench
from analyzer.execution.executor import cell_engines
from analyzer.execution.experiment import read_toml_file, single_cell
from analyzer.execution.runner import run_experiment
from analyzer.execution.tournament_run import run_design
from analyzer.execution.tune import TuneError, tune_strategy, write_report
from analyzer.report.balance_view import is_balance_folder, recommendations, write_balance_report
from analyzer.report.build import build_report
from analyzer.report.compare_page import write_compare_page
from analyzer.report.compare_view import (
    print_comparison,
    rebuild_tournament_report,
    stopping_blocks,
    tournament_blocks,
    write_outputs,
)
from analyzer.report.render import render_rich
from analyzer.report.summary import headlines
from analyzer.stats.compare import CompareError, summarize_comparison
from analyzer.stats.sequential import SequentialError, Sprt, UntilCI
from analyzer.stats.tables import CAPPED_ALARM, ResultsError
from analyzer.stats.tournament import TournamentError, make_design

#: user-error types of the modules this one loads (analyzer.cli.common.USER_ERRORS holds the light ones)
HEAVY_ERRORS: tuple[type[BaseException], ...] = (CompareError, ResultsError)


def simulate(*, variant: str, players: int | None, strategies: str, deals: int, matches: int | None, seed: int,
             rule: list[str] | None, jobs: int, check: bool, as_json: bool, engine: str | None) -> None:
    """Play deals (or matches) of one line-up and print rates with 95% intervals."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        positive("--matches", matches)
        check_seed_jobs(seed, jobs)
        rules = rules_of(variant, players, rule)
        specs = lineup_of(strategies, rules.players)
        for s in dict.fromkeys(specs):
            get_strategy(s)
        n = matches or deals
        cell = single_cell(rules, specs, unit="match" if matches else "deal", n=n)
        used = cell_engines([cell], engine=engine)[0]
        with progress(n, "matches" if matches else "deals", "simulate") as bar:
            tables, elapsed = play.play_cell(cell, seed=seed, jobs=jobs, check=check, engine=engine,
                                             on_chunk=lambda _cell, units: bar.advance(units))
    out = {**play.summary_json(rules, tables, elapsed, seed=seed, matches=bool(matches)), "engine": used}
    if as_json:
        typer.echo(json.dumps(out))
        return
    _print_summary(out)


def _print_summary(out: dict) -> None:
    """The human table of ``durak simulate``: every rate and mean with its 95% interval."""

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


def bench(*, deals: int, simple_deals: int, engine_deals: int, rollouts: int, variants: str, search: bool,
          repeats: int, as_json: bool, e2e_deals: int = 0) -> None:
    """Per second on 1 core and all cores: numpy simulator, compiled kernel, simple path, rules engine, rollouts,
    and ``durak simulate`` end to end (``e2e_deals`` a run, prague 4p random; 0: none)."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        positive("--repeats", repeats)
        for name, value in (("--simple-deals", simple_deals), ("--engine-deals", engine_deals),
                            ("--rollouts", rollouts), ("--e2e-deals", e2e_deals)):
            if value < 0:
                raise UsageError(f"{name} must be 0 (skip that measurement) or a positive number, got {value}")
            positive(name, value or None)
        names = [v.strip() for v in variants.split(",")]
        known = {c[1] for c in CASES}
        if bad := [v for v in names if v not in known]:
            raise UsageError(f"--variants: unknown variant {bad[0]!r} (known: {', '.join(sorted(known))})")
        steps = sum(1 for c in CASES if c[1] in names) + 1
        with progress(steps, "cases", "bench") as bar:
            run_bench(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
                      variants=names, search=search, repeats=repeats, as_json=as_json, on_row=lambda: bar.advance(1),
                      e2e_deals=e2e_deals)


def run(*, file: Path, deals: int | None, out: Path | None, jobs: int, backend: str, scheduler: str | None,
        fresh: bool, quiet: bool, check: bool) -> None:
    """Run an experiment file: every cell, in parallel, resumable; then write its report."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        check_jobs(jobs)
        if backend not in ("loky", "dask"):
            raise UsageError(f"--backend must be loky or dask, not {backend!r}")
        if scheduler is not None and backend != "dask":  # it was silently ignored
            raise UsageError(f"--scheduler {scheduler!r} needs --backend dask (loky runs on this machine only)")
        if is_balance_file(file):  # kind = "balance": the rule-balance explorer, resumable like every run
            if deals is not None or check:
                raise UsageError(f"{'--deals' if deals is not None else '--check'} does not apply to a balance file "
                                 f"({file}); its decks follow from target_pp")
            space = load_space(file)
            _balance_run(space, out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh, quiet=quiet,
                         command=shlex.join(["durak", "run", str(file)]))
            return
        folder = run_experiment(file, out=out, deals=deals, jobs=jobs, backend=backend, scheduler=scheduler,
                                fresh=fresh, quiet=quiet, check=check)
    _run_ending(folder)
    _warn_capped(folder)


def _run_ending(folder: Path) -> None:
    """Issue 15 item 5: the headline answers (the summary's sentences) and where the report is, on any stdout."""

    for line in headlines(folder):
        typer.echo(line)
    html = folder / "report.html"
    typer.echo(f"report: {html}" if html.exists() else f"results and report in {folder}")


def _warn_capped(folder: Path) -> None:
    """Issue 6: a run whose capped share passes the alarm threshold says so loudly."""

    if not (folder / "results" / "cells.parquet").exists():  # tournaments (design experiments) have no cells table
        return
    cells = pd.read_parquet(folder / "results" / "cells.parquet")
    tot = pd.read_parquet(folder / "results" / "totals.parquet").merge(cells[["cell", "label"]], on="cell")
    share = tot["capped"] / tot["deals_sum"].clip(lower=1)
    for _, row in tot[share > CAPPED_ALARM].iterrows():
        typer.echo(f"WARNING: {row['label']}: {int(row['capped'])} of {int(row['deals_sum'])} deals hit the turn cap "
                   f"({100 * row['capped'] / row['deals_sum']:.2f}% > {100 * CAPPED_ALARM:.1f}%); they count as "
                   "neither win nor loss", err=True)


def report(*, folder: Path) -> None:
    """Rebuild report.md and report.html from stored results, without simulating."""
    with user_errors(*HEAVY_ERRORS):
        if not (folder / "results").is_dir():
            raise UsageError(f"{folder}: no results/ folder here (run the experiment first)")
        if is_balance_folder(folder):  # a rule-balance exploration (durak balance)
            written = write_balance_report(folder)
            typer.echo(f"report written: {written[0]} and {written[1]} ({len(written) - 2} chart files)")
            return
        if (folder / "results" / "tournaments.json").is_file():  # an experiment of tournaments (design = ...)

            written = rebuild_tournament_report(folder)
            typer.echo(f"report written: {written[0]} and {written[1]} ({len(written) - 2} chart files)")
            return
        paths = build_report(folder)
    typer.echo(f"report written: {paths.markdown} and {paths.html} ({len(paths.charts)} chart files)")
    _warn_capped(folder)


def compare(*, strategies: list[str], variant: str, players: int | None, deals: int | None, matches: int | None,
            seed: int, rule: list[str] | None, jobs: int, as_json: bool, out: Path | None, design: str,
            reference: str | None, background: str | None, until_ci: float | None, sprt: float | None,
            swap_hands: bool, alpha: float, beta: float) -> None:
    """Compare strategies on duplicate deals: every deck is played by every line-up of the design."""


    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        positive("--matches", matches)
        check_seed_jobs(seed, jobs)
        if deals is not None and matches is not None:
            raise UsageError("give --deals or --matches, not both")
        if design not in ("field", "round-robin", "hero"):
            raise UsageError(f"--design must be field, round-robin or hero, got {design!r}")
        for name, given in (("--reference", reference), ("--background", background)):
            if given is not None and design != "hero":
                raise UsageError(f"{name} belongs to --design hero, not {design}")
        if reference is not None and background is not None:
            raise UsageError("give --reference or --background, not both")
        field_specs = specs_of([background], "--background") if background is not None else None
        rule_obj = _stopping_rule(until_ci, sprt, alpha, beta)
        rules = rules_of(variant, players, rule)
        specs = specs_of(strategies, "STRATEGIES")
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
        with progress(n, "matches" if matches else "decks", "compare") as bar:
            if rule_obj is None:
                cmp = compare_run.run_compare(rules, specs, n, seed=seed, matches=bool(matches), jobs=jobs, on_chunk=bar.advance)
            else:  # --until-ci / --sprt on the rotations: chunks until the rule stops (compare_run.run_compare_until)
                cmp, stopping = compare_run.run_compare_until(rules, specs, n, rule_obj, seed=seed, matches=bool(matches),
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

        render_rich(stopping_blocks(result))
    if out is not None:
        typer.echo(f"comparison written to {out}/compare.md and {out}/compare.html")


def _stopping_rule(until_ci: float | None, sprt: float | None, alpha: float, beta: float):  # noqa: ANN202
    """The stopping rule of ``--until-ci`` (points of win rate) or ``--sprt`` (analyzer.stats.sequential), or None."""


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

    try:
        hero_ref = (reference or "weighted") if design == "hero" and background is None else None
        d = make_design(design, specs, rules.players, reference=hero_ref, background=background, swap_hands=swap_hands)
        with progress(n, "decks", design) as bar:
            result = run_design(rules, d, n, seed=seed, jobs=jobs, rule=rule, on_chunk=bar.advance)
    except TournamentError as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result))
    else:
        render_rich(tournament_blocks(result))


def tune(*, strategy: str, variant: str, players: int | None, rule: list[str] | None, reference: str | None,
         budget: int, decks: int, holdout: int, sigma: float, seed: int, jobs: int, out: Path | None,
         as_json: bool) -> None:
    """Tune a strategy's parameters with CMA-ES on duplicate decks; check the winner on fresh decks."""


    with user_errors(*HEAVY_ERRORS):
        for name, value in (("--budget", budget), ("--decks", decks), ("--holdout", holdout)):
            positive(name, value)
        if decks < 2 or holdout < 2:
            raise UsageError(f"{'--decks' if decks < 2 else '--holdout'} must be at least 2 (an interval needs a spread)")
        if not (math.isfinite(sigma) and sigma > 0):
            raise UsageError(f"--sigma must be a positive number, got {sigma}")
        check_seed_jobs(seed, jobs)
        rules = rules_of(variant, players, rule)
        try:
            target = parse_spec(strategy)[0]
            gens = budget // decks
            with progress(max(gens, 1), "generations", "tune") as bar:
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


def balance(*, variant: str | None, players: int | None, rule_space: Path | None, target_pp: float | None,
            strong: str | None, opponent: list[str] | None, seed: int | None, out: Path | None, jobs: int,
            backend: str, scheduler: str | None, fresh: bool, quiet: bool) -> None:
    """Explore house rules (analyzer.execution.balance_run): the fairest, most skilful rule sets, with intervals."""
    with user_errors(*HEAVY_ERRORS):
        check_seed_jobs(seed or 0, jobs)
        if backend not in ("loky", "dask"):
            raise UsageError(f"--backend must be loky or dask, not {backend!r}")
        if scheduler is not None and backend != "dask":
            raise UsageError(f"--scheduler {scheduler!r} needs --backend dask (loky runs on this machine only)")
        if variant is None and rule_space is None:
            raise UsageError("give --variant (czech, prague or svinya) or a --rule-space file that names one")
        if variant is not None:
            rules_of(variant, players, None)  # an unknown variant or player count: the rules' own one line
        if target_pp is not None and not (math.isfinite(target_pp) and target_pp > 0):
            raise UsageError(f"--target-pp must be a positive number of points, got {target_pp}")
        table = dict(read_toml_file(rule_space)) if rule_space is not None else {}
        given = {"seed": seed, "target_pp": target_pp, "strong": strong, "opponents": opponent or None}
        table.update({k: v for k, v in given.items() if v is not None})
        source = str(rule_space) if rule_space is not None else "durak balance"
        space = parse_space(table, source=source, default_name=rule_space.stem if rule_space else None,
                            variant=variant, players=players)
        argv = ["durak", "balance", "--variant", space.variant, "--players", str(space.players)]
        argv += ["--rule-space", str(rule_space)] if rule_space is not None else []
        for name, value in (("--target-pp", target_pp), ("--strong", strong), ("--seed", seed)):
            argv += [name, str(value)] if value is not None else []
        for o in opponent or []:
            argv += ["--opponent", o]
        _balance_run(space, out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh, quiet=quiet,
                     command=shlex.join(argv))


def _balance_run(space: Any, out: Path | None, *, jobs: int, backend: str, scheduler: str | None, fresh: bool,
                 quiet: bool, command: str) -> None:
    """Run a checked space and print the recommendations' first lines and where the report is."""
    folder = out or Path("reports") / space.name
    if not quiet:
        typer.echo(f"{space.variant} {space.players}p: {len(space.arms):,} rule sets", err=True)
    run_balance(space, folder, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh, command=command,
                on_round=None if quiet else (lambda line: typer.echo(line, err=True)))
    arms = pd.read_parquet(folder / "results" / "arms.parquet")
    for why, row in recommendations(arms):
        typer.echo(f"{why}: {row['rules']}: first player's advantage {100 * row['final_fpa']:+.1f} pp "
                   f"[{100 * row['final_fpa_lo']:+.1f}, {100 * row['final_fpa_hi']:+.1f}], skill gap "
                   f"{100 * row['final_skill0']:+.1f} pp [{100 * row['final_skill0_lo']:+.1f}, "
                   f"{100 * row['final_skill0_hi']:+.1f}]")
    typer.echo(f"report: {folder / 'report.html'}")
