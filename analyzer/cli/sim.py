"""``durak simulate``: one line-up, many deals, rates with 95% intervals.

Its own module, loaded by :mod:`analyzer.cli.app` only when the command runs,
so that it imports what playing one cell needs (the executor, numba; pandas only for --csv or --tsv)
and nothing a command that plays no cell uses: no report builders, no
tournaments, no matplotlib (``tests/test_cli_startup.py``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from analyzer.cli.common import UsageError, check_seed_jobs, lineup_of, positive, progress, rules_of, user_errors
from analyzer.core.registry import get_strategy
from analyzer.execution import executor, play
from analyzer.execution.experiment import single_cell
from analyzer.execution.totals import as_frames
from analyzer.report.render import Block, render_rich, render_tsv, terminal

if TYPE_CHECKING:
    import pandas as pd


def simulate(*, variant: str, players: int | None, strategies: str, deals: int, matches: int | None, seed: int,
             rule: list[str] | None, jobs: int, check: bool, as_json: bool,
             quiet: bool = False, csv: Path | None = None, tsv: bool = False, out: Path | None = None) -> None:
    """Play deals (or matches) of one line-up and print rates with 95% intervals."""
    with user_errors():
        positive("--deals", deals)
        positive("--matches", matches)
        check_seed_jobs(seed, jobs)
        rules = rules_of(variant, players, rule)
        specs = lineup_of(strategies, rules.players)
        for s in dict.fromkeys(specs):
            get_strategy(s)
        n = matches or deals
        cell = single_cell(rules, specs, unit="match" if matches else "deal", n=n)
        used = executor.cell_engines([cell])[0]
        stored: dict = {}
        if out is None and not play.keeps_chunks(cell):
            with progress(n, "matches" if matches else "deals", "simulate", quiet) as bar:
                t0 = time.perf_counter()  # the executor straight away: six calls of ours from the command to a kernel
                tables = play.cell_tables(executor.simulate_cells(
                    [cell], seed=seed, jobs=jobs, check=check, columns=True,
                    on_chunk=lambda _cell, units: bar.advance(units)), cell.index)
                elapsed = time.perf_counter() - t0
        else:
            from analyzer.execution import kept  # here: the cells run kind and its chunk store, for a run that keeps chunks

            tables, elapsed, stored = kept.play_kept(cell, seed, out, jobs=jobs, check=check, quiet=quiet)
        if csv is not None:
            from analyzer import api  # here: the table of --csv only; the API loads the run kinds

            write_frame(api.cell_frame(cell, as_frames(tables)), csv=csv)
    out_json = {**play.summary_json(rules, tables, elapsed, seed=seed, matches=bool(matches)), "engine": used,
                **stored}
    if as_json:
        typer.echo(json.dumps(out_json))
        return
    _print_summary(out_json, tsv)


def write_frame(frame: pd.DataFrame, *, csv: Path | None = None, parquet: Path | None = None) -> None:
    """Write a frame of the API (analyzer.api) as CSV and/or Parquet, without the index; at least one is asked."""
    if csv is None and parquet is None:
        raise UsageError("give --csv FILE or --parquet FILE (or both)")
    for path in (csv, parquet):
        if path is not None and path.parent != Path() and not path.parent.is_dir():
            raise UsageError(f"{path}: folder {path.parent} does not exist")
    if csv is not None:
        frame.to_csv(csv, index=False)
    if parquet is not None:
        frame.to_parquet(parquet, index=False)



def _print_summary(out: dict, tsv: bool = False) -> None:
    """The human table of ``durak simulate``: every rate and mean with its 95% interval (``tsv``: for scripts)."""
    units = "matches" if out["unit"] == "match" else "deals"
    pct = lambda r, ci: f"{100 * r:.2f} [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"  # noqa: E731
    mark = "*" if out.get("notes") else ""
    columns = ("pos", "strategy", "win % [95% CI]", "loser % [95% CI]", "mean points [95% CI]",
               f"wild held % [95% CI]{mark}")
    rows = [(str(p), s, pct(out["win_rate"][p], out["win_ci"][p]), pct(out["loser_rate"][p], out["loser_ci"][p]),
             f"{out['mean_points'][p]:.2f} [{out['mean_points_ci'][p][0]:.2f}, {out['mean_points_ci'][p][1]:.2f}]",
             pct(out["wild_held_rate"][p], out["wild_held_ci"][p])) for p, s in enumerate(out["strategies"])]
    title = (f"{out['variant']} {out['players']}p {out['rules']} — {out.get('matches', out['deals']):,} {units}, "
             f"seed {out['seed']}")
    extra = ""
    if "mean_turns" in out:
        lo, hi = out["mean_turns_ci"]
        extra = f"mean turns {out['mean_turns']:.2f} [{lo:.2f}, {hi:.2f}]; "
    elif "mean_deals_per_match" in out:
        extra = f"mean deals per match {out['mean_deals_per_match']:.2f}; "
    lines = [Block("p", f"{extra}blocked {out['blocked']}, capped {out['capped']} deals; "
                        f"{out['deals_per_second'] or 0:,.0f} deals/s")]
    if out["capped"] and out["capped"] / out["deals"] > 0.001:
        lines.append(Block("warn", f"WARNING: {out['capped']} deals hit the turn cap "
                                   f"({100 * out['capped'] / out['deals']:.2f}%) — rates exclude them as wins and losses"))
    if out.get("chunks_resumed"):
        lines.append(Block("p", f"{out['chunks_resumed']:,} finished chunks read back from "
                                f"{out['stored'] or 'the user cache'}; {out['deals_this_run']:,} {units} played now"))
    lines += [Block("p", note) for note in out.get("notes", [])]
    if tsv:
        import pandas as pd  # here: the table for scripts only

        render_tsv([Block("table", pd.DataFrame(rows, columns=list(columns)), title), *lines])
        return
    t = Table(title=title)
    for col in columns:
        t.add_column(col, no_wrap=col != "strategy", overflow="fold")  # an interval never breaks in two
    for row in rows:
        t.add_row(*row)
    c = terminal(120)
    c.print(t)
    render_rich(lines, c)
