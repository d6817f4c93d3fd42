"""The work of the ``durak`` commands that play many cells, tune, explore, solve or measure: the heavy half.

:mod:`analyzer.cli.app` declares every command (options, help) and hands the
heavy ones here, loading this module only when such a command runs: it pulls
in numba and pandas, which ``durak --help``, ``durak rules`` and
``durak replay`` never need.  ``durak simulate`` (:mod:`analyzer.cli.sim`) and
``durak report`` (:mod:`analyzer.cli.reporting`) have modules of their own
that load only what they use.  Each function takes the command's options as
typed keyword arguments.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import typer

from analyzer import api
from analyzer.cli.common import (
    UsageError,
    check_jobs,
    check_out,
    check_seed_jobs,
    lineup_of,
    positive,
    progress,
    rules_of,
    specs_of,
    user_errors,
)
from analyzer.cli.reporting import REPORT_ERRORS, run_ending, warn_capped_tables
from analyzer.cli.sim import write_frame
from analyzer.core.registry import StrategySpecError, get_strategy, parse_spec
from analyzer.core.rules import parse_rule_args
from analyzer.execution import runs
from analyzer.execution.balance_space import BalanceSpace, parse_space
from analyzer.execution.benchmark import CASES, run_bench
from analyzer.execution.executor import check_backend
from analyzer.execution.experiment import read_toml_file
from analyzer.execution.rules_pair import play_pair
from analyzer.execution.runs import compare as compare_run
from analyzer.execution.runs.balance import BalanceRun
from analyzer.execution.runs.solve import run_solve, solve_command
from analyzer.execution.runs.tournament import run_design, store_design
from analyzer.execution.runs.tune import TuneError, run_tune
from analyzer.report.balance_view import balance_json, recommendations
from analyzer.report.compare_view import blocks as compare_blocks
from analyzer.report.compare_view import (
    print_comparison,
    stopping_blocks,
    tournament_blocks,
)
from analyzer.report.format import num_ci, pct_ci, pp_ci
from analyzer.report.render import Block, render_rich, render_tsv, terminal
from analyzer.report.solve_view import write_summary as write_solve_summary
from analyzer.stats.balance import FAIRNESS_KINDS
from analyzer.stats.compare import summarize_comparison
from analyzer.stats.paired import RULES_QUANTITIES, rules_differences
from analyzer.stats.sequential import SequentialError, Sprt, UntilCI
from analyzer.stats.tournament import TournamentError, make_design

#: user-error types of the modules this one loads (analyzer.cli.common.USER_ERRORS holds the light ones)
HEAVY_ERRORS: tuple[type[BaseException], ...] = REPORT_ERRORS


def export(*, folder: Path, csv: Path | None, parquet: Path | None) -> None:
    """A run folder's tidy table (analyzer.api.results) as CSV or Parquet."""
    with user_errors(*HEAVY_ERRORS):
        if not (folder / "results" / "positions.parquet").is_file():
            raise UsageError(f"{folder}: no results/positions.parquet here (a folder of durak run; tournaments and "
                             "balance explorations have their own tables in results/)")
        frame = api.results(folder)
        write_frame(frame, csv=csv, parquet=parquet)
    typer.echo(f"{len(frame):,} rows written to {' and '.join(str(p) for p in (csv, parquet) if p is not None)}")


def deals(*, variant: str, players: int | None, strategies: str, n: int, seed: int, rule: list[str] | None,
          csv: Path | None, parquet: Path | None) -> None:
    """Single deals, one row per deal and position (analyzer.api.deals), as CSV or Parquet."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", n)
        check_seed_jobs(seed, 1)
        if csv is None and parquet is None:
            raise UsageError("give --csv FILE or --parquet FILE (or both)")
        rules = rules_of(variant, players, rule)
        specs = lineup_of(strategies, rules.players)
        frame = api.deals(list(specs), variant=rules.variant, players=rules.players, n=n, rules=rules, seed=seed)
        write_frame(frame, csv=csv, parquet=parquet)
    typer.echo(f"{len(frame):,} rows ({n:,} deals) written to "
               f"{' and '.join(str(p) for p in (csv, parquet) if p is not None)}")


def bench(*, deals: int, simple_deals: int, engine_deals: int, rollouts: int, variants: str, search: bool,
          repeats: int, as_json: bool, e2e_deals: int = 0, quiet: bool = False, startup_repeats: int = 0,
          doc: Path | None = None) -> None:
    """Per second on 1 core and all cores: the compiled kernel, the paused kernel, rules engine, rollouts,
    and ``durak simulate`` end to end (``e2e_deals`` a run, prague 4p random; 0: none)."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        positive("--repeats", repeats)
        for name, value in (("--simple-deals", simple_deals), ("--engine-deals", engine_deals),
                            ("--rollouts", rollouts), ("--e2e-deals", e2e_deals),
                            ("--startup-repeats", startup_repeats)):
            if value < 0:
                raise UsageError(f"{name} must be 0 (skip that measurement) or a positive number, got {value}")
            positive(name, value or None)
        names = [v.strip() for v in variants.split(",")]
        known = {c[1] for c in CASES}
        if bad := [v for v in names if v not in known]:
            raise UsageError(f"--variants: unknown variant {bad[0]!r} (known: {', '.join(sorted(known))})")
        if doc is not None and (doc.is_dir() or not doc.parent.is_dir()):
            raise UsageError(f"--doc {doc}: " + ("is a folder" if doc.is_dir() else f"folder {doc.parent} does not exist"))
        steps = sum(1 for c in CASES if c[1] in names) + 1
        command = shlex.join(["durak", "bench", *sys.argv[2:]]) if sys.argv[1:2] == ["bench"] else "durak bench"
        with progress(steps, "cases", "bench", quiet) as bar:
            run_bench(deals=deals, simple_deals=simple_deals, engine_deals=engine_deals, rollouts=rollouts,
                      variants=names, search=search, repeats=repeats, as_json=as_json, on_row=lambda: bar.advance(1),
                      e2e_deals=e2e_deals, startup_repeats=startup_repeats, doc=doc, command=command)


def run(*, file: Path, deals: int | None, out: Path | None, jobs: int, backend: str, scheduler: str | None,
        fresh: bool, quiet: bool, check: bool) -> None:
    """Run an experiment file: every cell, in parallel, resumable; then write its report."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        check_jobs(jobs)
        plan = runs.read_run_file(file)
        if runs.kind_of(plan) == "balance":  # kind = "balance": the rule-balance explorer, resumable like every run
            if deals is not None or check:
                raise UsageError(f"{'--deals' if deals is not None else '--check'} does not apply to a balance file "
                                 f"({file}); its decks follow from target_pp")
            _balance_run(plan, out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh, quiet=quiet,
                         command=shlex.join(["durak", "run", str(file)]))
            return
        assert not isinstance(plan, BalanceSpace)  # kind_of: a rule space is the balance kind
        done = runs.play_experiment(plan, out=out, deals=deals, jobs=jobs, backend=backend, scheduler=scheduler,
                                    fresh=fresh, quiet=quiet, check=check)
    run_ending(done.folder)
    if done.cells is not None:  # tournaments have no cells table
        warn_capped_tables(done.cells.tables["totals"], done.cells.cells)


def compare(*, strategies: list[str], variant: str, players: int | None, deals: int | None, matches: int | None,
            seed: int, rule: list[str] | None, jobs: int, as_json: bool, out: Path | None, design: str,
            reference: str | None, background: str | None, until_ci: float | None, sprt: float | None,
            swap_hands: bool, alpha: float, beta: float, quiet: bool = False, tsv: bool = False,
            csv: Path | None = None) -> None:
    """Compare strategies on duplicate deals: every deck is played by every line-up of the design."""


    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        positive("--matches", matches)
        check_seed_jobs(seed, jobs)
        check_out(out)
        if deals is not None and matches is not None:
            raise UsageError("give --deals or --matches, not both")
        if design not in ("field", "round-robin", "hero"):
            raise UsageError(f"--design must be field, round-robin or hero, got {design!r}")
        for name, given in (("--reference", reference), ("--background", background)):
            if given is not None and design != "hero":
                raise UsageError(f"{name} belongs to --design hero, not {design}")
        if reference is not None and background is not None:
            raise UsageError("give --reference or --background, not both")
        if csv is not None and design != "field":
            raise UsageError(f"--csv belongs to --design field; --design {design} writes its tables with --out")
        field_specs = specs_of([background], "--background") if background is not None else None
        rule_obj = _stopping_rule(until_ci, sprt, alpha, beta)
        rules = rules_of(variant, players, rule)
        specs = specs_of(strategies, "STRATEGIES")
        if design != "field":
            if matches is not None:
                raise UsageError(f"--design {design} plays single deals; drop --matches")
            n = deals or (200_000 if rule_obj is not None else 20_000)
            opposition = (f" --reference {shlex.quote(reference)}" if reference else
                          f" --background {shlex.quote(background)}" if background else "")
            command = (f"durak compare --design {design} --variant {variant} --players {rules.players} "
                       f"{shlex.join(specs)} --deals {n} --seed {seed}"
                       + "".join(f" --rule {r}" for r in rule or []) + opposition
                       + ("" if out is None else f" --out {out}"))
            _tournament(rules, design, specs, n, seed, jobs, as_json, reference, rule_obj, field_specs, swap_hands,
                        quiet, out=out, command=command, tsv=tsv)
            return
        if swap_hands:
            raise UsageError("--swap-hands belongs to --design round-robin, not field")
        n = matches or deals or (200_000 if rule_obj is not None else 20_000)
        stopping = None
        with progress(n, "matches" if matches else "decks", "compare", quiet) as bar:
            if rule_obj is None:
                cmp = compare_run.run_compare(rules, specs, n, seed=seed, matches=bool(matches), jobs=jobs, on_chunk=bar.advance)
            else:  # --until-ci / --sprt on the rotations: chunks until the rule stops (compare_run.run_compare_until)
                cmp, stopping = compare_run.run_compare_until(rules, specs, n, rule_obj, seed=seed, matches=bool(matches),
                                                  jobs=jobs, on_chunk=bar.advance)
        result = summarize_comparison(cmp)
        if stopping is not None:
            result["stopping"] = stopping
        if csv is not None:
            write_frame(api.compare_frame(result, rules), csv=csv)
        if out is not None:
            rules_args = "".join(f" --rule {r}" for r in rule or [])
            stop_args = (f" --until-ci {until_ci:g}" if until_ci is not None else
                         f" --sprt {sprt:g} --alpha {alpha:g} --beta {beta:g}" if sprt is not None else "")
            command = (f"durak compare --variant {variant} --players {rules.players} {shlex.join(specs)} "
                       f"--{'matches' if matches else 'deals'} {n} --seed {seed}{rules_args}{stop_args} --out {out}")
            compare_run.store_compare(result, out, command=command)
    if as_json:
        typer.echo(json.dumps(result))
        return
    if tsv:
        render_tsv(compare_blocks(result) + stopping_blocks(result))
    else:
        print_comparison(result)
        if stopping is not None:
            render_rich(stopping_blocks(result))
    if out is not None:
        typer.echo(f"comparison written to {out}/compare.md and {out}/compare.html")


def compare_rules(*, rules_a: list[str] | None, rules_b: list[str] | None, variant: str, players: int | None,
                  strategies: str, deals: int, seed: int, as_json: bool, quiet: bool, tsv: bool = False) -> None:
    """Two rule sets on the same decks (analyzer.execution.rules_pair), paired differences with intervals."""
    with user_errors(*HEAVY_ERRORS):
        positive("--deals", deals)
        if deals < 2:
            raise UsageError("--deals must be at least 2 (an interval needs a spread)")
        check_seed_jobs(seed, 1)
        ra, rb = rules_of(variant, players, rules_a), rules_of(variant, players, rules_b)
        if ra == rb:
            raise UsageError(f"--rules-a and --rules-b give the same rules ({ra.label()}): nothing to compare")
        specs = lineup_of(strategies, ra.players)
        for s in dict.fromkeys(specs):
            get_strategy(s)
        with progress(deals, "decks", "compare-rules", quiet) as bar:
            a, b = play_pair(ra, rb, specs, deals, seed=seed, on_chunk=bar.advance)
    table = rules_differences(a, b, ra.players)
    out = {"variant": ra.variant, "players": ra.players, "a": ra.describe(), "b": rb.describe(), "decks": deals,
           "seed": seed, "strategies": list(specs), "rows": table.to_dict("records"),
           "jack_note": None if "deal" in (ra.wild_rule, rb.wild_rule) else
           f"The Jack's share is 0 by the rules: with wild_rule={ra.wild_rule} the wild decides no single deal "
           "(CZ7: a wild held decides only a match's last deal; PR7's wild_rule=deal decides every deal)."}
    if as_json:
        typer.echo(json.dumps(out))
        return
    render_tsv(rules_pair_blocks(out)) if tsv else render_rich(rules_pair_blocks(out), terminal(120))


def rules_pair_blocks(out: dict[str, Any]) -> list[Block]:
    """The terminal view of ``durak compare-rules``: one row per quantity and seat, A, B and A − B."""
    rows = []
    for r in out["rows"]:
        if r["quantity"] == "turns":
            cells = [num_ci(r["a"], r["a_lo"], r["a_hi"]), num_ci(r["b"], r["b_lo"], r["b_hi"]),
                     f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"]
        else:
            cells = [pct_ci(r["a"], r["a_lo"], r["a_hi"]), pct_ci(r["b"], r["b_lo"], r["b_hi"]),
                     pp_ci(r["diff"], r["lo"], r["hi"])]
        seat = "" if r["seat"] is None else str(r["seat"])
        rows.append([RULES_QUANTITIES[r["quantity"]], seat, *cells])
    frame = pd.DataFrame(rows, columns=["quantity", "pos", "A [95% CI]", "B [95% CI]", "A − B [95% CI] (paired)"])
    head = (f"{out['variant']} {out['players']}p, {out['decks']:,} decks played under both rule sets by "
            f"{', '.join(out['strategies'])} (seed {out['seed']})")
    blocks = [Block("p", f"A: {out['a']}"), Block("p", f"B: {out['b']}"), Block("table", frame, head)]
    if out["jack_note"]:
        blocks.append(Block("p", out["jack_note"]))
    return blocks


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
                reference: str | None, rule: Any, background: list[str] | None = None, swap_hands: bool = False,
                quiet: bool = False, *, out: Path | None = None, command: str = "", tsv: bool = False) -> None:
    """``durak compare --design round-robin|hero``: every line-up of the design on the same decks; with ``out``
    also report.md, report.html and charts there, as an experiment of tournaments writes them (``durak report
    OUT`` rebuilds them from results/tournaments.json)."""

    try:
        hero_ref = (reference or "weighted") if design == "hero" and background is None else None
        d = make_design(design, specs, rules.players, reference=hero_ref, background=background, swap_hands=swap_hands)
        with progress(n, "decks", design, quiet) as bar:
            result = run_design(rules, d, n, seed=seed, jobs=jobs, rule=rule, on_chunk=bar.advance)
    except TournamentError as exc:
        raise UsageError(str(exc)) from None
    if out is not None:
        store_design(result, out, design=design, command=command)
    if as_json:
        typer.echo(json.dumps(result))
    else:
        (render_tsv if tsv else render_rich)(tournament_blocks(result))
        if out is not None:
            typer.echo(f"report written to {out}/report.md and {out}/report.html")


def tune(*, strategy: str, variant: str, players: int | None, rule: list[str] | None, reference: str | None,
         budget: int, decks: int, holdout: int, sigma: float, seed: int, jobs: int, out: Path | None,
         as_json: bool, quiet: bool = False) -> None:
    """Tune a strategy's parameters with CMA-ES on duplicate decks; check the winner on fresh decks."""


    with user_errors(*HEAVY_ERRORS):
        for name, value in (("--budget", budget), ("--decks", decks), ("--holdout", holdout)):
            positive(name, value)
        if decks < 2 or holdout < 2:
            raise UsageError(f"{'--decks' if decks < 2 else '--holdout'} must be at least 2 (an interval needs a spread)")
        if not (math.isfinite(sigma) and sigma > 0):
            raise UsageError(f"--sigma must be a positive number, got {sigma}")
        check_seed_jobs(seed, jobs)
        check_out(out)
        rules = rules_of(variant, players, rule)
        try:
            target = parse_spec(strategy)[0]
            gens = budget // decks
            ref = reference or target
            rules_args = "".join(f" --rule {r}" for r in rule or [])
            command = (f"durak tune {shlex.quote(strategy)} --variant {rules.variant} --players {rules.players}"
                       f"{rules_args}" + (f" --reference {shlex.quote(reference)}" if reference else "")
                       + f" --budget {budget} --decks {decks} --holdout {holdout} --sigma {sigma:g} --seed {seed}")
            with progress(max(gens, 1), "generations", "tune", quiet) as bar:
                res, spec, run = run_tune(rules, strategy, out=out or runs.RUNS / "tuning" /
                                          f"{target}-{rules.variant}-{rules.players}p", command=command,
                                          reference=reference, budget=budget, decks_per_generation=decks,
                                          holdout=holdout, sigma0=sigma, seed=seed, jobs=jobs,
                                          on_generation=lambda _g: bar.advance(1))
        except (TuneError, StrategySpecError) as exc:
            raise UsageError(str(exc)) from None
        report = run.report(".md", "tune")
    h = res.holdout
    if as_json:
        typer.echo(json.dumps({"spec": spec, "start": res.start, "tuned": res.tuned, "holdout": h,
                               "generations": len(res.curve), "training_decks": int(res.curve["deals"].iloc[-1]),
                               "evaluations": res.evaluations, "report": str(report)}))
        return
    typer.echo(f"tuned: {spec}")
    verdict = ("better than the start" if h["lo"] > 0 else "worse than the start" if h["hi"] < 0
               else "not distinguishable from the start")
    typer.echo(f"hold-out ({h['n_decks']:,} fresh decks, every seat against {ref}): tuned − start = "
               f"{100 * h['margin']:+.2f} pp [{100 * h['lo']:+.2f}, {100 * h['hi']:+.2f}] (95%, paired): {verdict}")
    typer.echo(f"report: {report}")


def balance(*, variant: str | None, players: int | None, rule_space: Path | None, target_pp: float | None,
            strong: str | None, opponent: list[str] | None, seed: int | None, out: Path | None, jobs: int,
            backend: str, scheduler: str | None, fresh: bool, quiet: bool, fairness: str | None = None,
            as_json: bool = False) -> None:
    """Explore house rules (analyzer.execution.runs.balance): the fairest, most skilful rule sets, with intervals."""
    with user_errors(*HEAVY_ERRORS):
        check_seed_jobs(seed or 0, jobs)
        if variant is None and rule_space is None:
            raise UsageError("give --variant (czech, prague or svinya) or a --rule-space file that names one")
        if fairness is not None and fairness not in FAIRNESS_KINDS:
            raise UsageError(f"--fairness must be one of {', '.join(FAIRNESS_KINDS)}, not {fairness!r}")
        if variant is not None:
            rules_of(variant, players, None)  # an unknown variant or player count: the rules' own one line
        if target_pp is not None and not (math.isfinite(target_pp) and target_pp > 0):
            raise UsageError(f"--target-pp must be a positive number of points, got {target_pp}")
        table = dict(read_toml_file(rule_space)) if rule_space is not None else {}
        given = {"seed": seed, "target_pp": target_pp, "strong": strong, "opponents": opponent or None,
                 "fairness": fairness}
        table.update({k: v for k, v in given.items() if v is not None})
        source = str(rule_space) if rule_space is not None else "durak balance"
        space = parse_space(table, source=source, default_name=rule_space.stem if rule_space else None,
                            variant=variant, players=players)
        argv = ["durak", "balance", "--variant", space.variant, "--players", str(space.players)]
        argv += ["--rule-space", str(rule_space)] if rule_space is not None else []
        for name, value in (("--target-pp", target_pp), ("--strong", strong), ("--seed", seed),
                            ("--fairness", fairness)):
            argv += [name, str(value)] if value is not None else []
        for o in opponent or []:
            argv += ["--opponent", o]
        _balance_run(space, out, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh, quiet=quiet,
                     command=shlex.join(argv), as_json=as_json)


def _balance_run(space: Any, out: Path | None, *, jobs: int, backend: str, scheduler: str | None, fresh: bool,
                 quiet: bool, command: str, as_json: bool = False) -> None:
    """Run a checked space and print the recommendations' first lines and where the report is (``as_json``: the
    one JSON object of :func:`analyzer.report.balance_view.balance_json` instead)."""
    folder = out or Path("reports") / space.name
    check_out(folder)
    check_backend(backend, scheduler)  # a mistake is the only line on stderr, before the run says what it explores
    if not quiet:
        typer.echo(f"{space.variant} {space.players}p: {len(space.arms):,} rule sets", err=True)
    done = runs.explore(space, folder, jobs=jobs, backend=backend, scheduler=scheduler, fresh=fresh,
                        command=command, on_round=None if quiet else (lambda line: typer.echo(line, err=True)),
                        progress=not quiet)
    if as_json:
        typer.echo(json.dumps(balance_json(folder)))
        return
    _print_balance(done, space)


def _print_balance(done: BalanceRun, space: Any) -> None:
    """The recommendations' first lines and where the report is, from the run's rows in memory."""
    arms = done.arms
    for why, row in [*recommendations(arms), (space.reference_name, arms[arms["reference"]].iloc[0])]:
        f = 100 * row[["report_fairness", "report_fairness_lo", "report_fairness_hi"]].to_numpy(float)
        fpa = 100 * row[["report_fpa", "report_fpa_lo", "report_fpa_hi"]].to_numpy(float)
        sk = 100 * row[["report_skill0", "report_skill0_lo", "report_skill0_hi"]].to_numpy(float)
        typer.echo(f"{why}: {row['rules']}: seat fairness {f[0]:.1f} pp [{f[1]:.1f}, {f[2]:.1f}] (position "
                   f"{int(row['report_fairness_seat'])}, {row['report_fairness_outcome']}); first mover (position "
                   f"{space.arms[space.reference].rules.first_mover}) {fpa[0]:+.1f} pp [{fpa[1]:+.1f}, {fpa[2]:+.1f}]; "
                   f"skill gap {sk[0]:+.1f} pp [{sk[1]:+.1f}, {sk[2]:+.1f}]")
    typer.echo(f"report: {done.folder / 'report.html'}")


def solve(*, variant: str, deck: int, hand: int, strategies: str | None, target: float, out: Path | None,
          as_json: bool, rule: list[str] | None = None, draws: int = 3, summary: Path | None = None,
          max_nodes: int) -> None:
    """``durak solve``: a research size solved by CFR+ (analyzer.exact), the strategies' distance from it."""
    with user_errors():
        if summary is not None:
            page, sizes = write_solve_summary(summary)
            if not sizes:
                raise UsageError(f"--summary: no */solve.json in {summary}")
            typer.echo(f"wrote {page} ({sizes} sizes)")
            return
        if not 0 < target < 1:
            raise UsageError(f"--target must be between 0 and 1, got {target}")
        if draws < 2:
            raise UsageError(f"--draws must be at least 2 (a lower estimate needs two), got {draws}")
        if max_nodes < 1:
            raise UsageError(f"--max-nodes must be at least 1, got {max_nodes}")
        specs = specs_of([strategies], "--strategies") if strategies else None
        if out is not None:
            check_out(out)
        say = (lambda _s: None) if as_json else (lambda s: typer.echo(s, err=True))
        res = run_solve(variant, deck, hand, strategies=specs, target=target, on_progress=say, draws=draws,
                        max_nodes=max_nodes,
                        overrides=parse_rule_args(rule or []) or None, out=out,
                        command=solve_command(variant, deck, hand, rule or [], strategies, draws, target, out))
    if as_json:
        keys = ("variant", "deck", "hand", "research_size", "exploitability", "first_mover_value", "strategies",
                "wild_effect", "iterations", "nodes", "information_sets", "build_seconds", "solve_seconds",
                "turn_cap", "capped_share", "not_measured", "rules")
        typer.echo(json.dumps({k: res[k] for k in keys if k in res}))
        return
    typer.echo(f"{variant} 2p, research deck of {deck} (ranks {res['cards']}), hands of {hand}, "
               f"cap {res['turn_cap']} turns")
    typer.echo(f"equilibrium: exploitability {res['exploitability']:.5f}, first mover's value "
               f"{res['first_mover_value']:+.4f} ({res['iterations']} CFR+ iterations, {res['nodes']:,} nodes, "
               f"{res['information_sets']:,} information sets)")
    for spec, d in res["strategies"].items():
        typer.echo(f"  {spec:32s} exploitability {d['exploitability']:.4f}  loss {d['loss']:+.4f}")
