"""The report of a tuning run (``durak tune``): tune.md, tune_curve.csv, tune.json and the curve's chart, drawn
from the run's :class:`~analyzer.stats.tuning.TuneResult` or read back from those files (:func:`rewrite_report`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer.core.files import naming, write_text
from analyzer.report.charts import figure, save_figure
from analyzer.report.format import fenced_command
from analyzer.stats.tuning import TuneResult


def report_markdown(result: TuneResult, *, title: str, spec: str | None = None, command: str | None = None) -> str:
    """tune.md: the tuned spec, the hold-out margin and the curve table."""
    h = result.holdout
    lines = [f"# Tuning: {title}", ""]
    if command:
        lines += ["```sh", command, "```", ""]
    if spec:
        lines += [f"Tuned spec: `{spec}`", ""]
    lines += ["| parameter | start | tuned |", "|---|---|---|"]
    lines += [f"| {n} | {result.start[n]:g} | {result.tuned[n]:g} |" for n in result.names]
    lines += ["", f"**Hold-out check** on {h['n_decks']:,} fresh decks no generation played: tuned − start = "
              f"{100 * h['margin']:+.2f} pp [{100 * h['lo']:+.2f}, {100 * h['hi']:+.2f}] (95 %, paired).", "",
              "The score is a strategy's win rate in every seat against the field, minus the fair share; so the "
              "margin is how many points of win rate the tuned weights gain over the start against the same field "
              "(against copies of the start, the start itself scores exactly the fair share).", "",
              "## Curve", "",
              "Gain of the CMA-ES mean over the start on each generation's own fresh decks (paired, 95 %); "
              "the best candidate's gain was picked on the same decks and is optimistic.", "",
              "| generation | decks | gain, pp [95% CI] | best candidate, pp | sigma |", "|---|---|---|---|---|"]
    for r in result.curve.itertuples():
        lines.append(f"| {r.generation} | {r.deals:,} | {100 * r.gain:+.2f} [{100 * r.lo:+.2f}, {100 * r.hi:+.2f}] | "
                     f"{100 * r.best_gain:+.2f} | {r.sigma:.3g} |")
    return "\n".join(lines) + "\n"


def plot_curve(result: TuneResult, title: str) -> Any:
    """The curve: the CMA-ES mean's gain over the start per generation with 95 % bars, the hold-out margin last."""
    c = result.curve
    fig = figure(figsize=(8.0, 4.5))
    ax = fig.subplots()
    x = c["deals"].to_numpy()
    y, lo, hi = (100 * c[k].to_numpy() for k in ("gain", "lo", "hi"))
    ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o-", ms=3, capsize=2,
                label="CMA-ES mean, on the generation's fresh decks (95 %)")
    ax.plot(x, 100 * c["best_gain"].to_numpy(), "x", color="grey", label="best candidate (optimistic)")
    h = result.holdout
    hx = x[-1] * 1.06 if len(x) else 1.0
    ax.errorbar([hx], [100 * h["margin"]], yerr=[[100 * (h["margin"] - h["lo"])], [100 * (h["hi"] - h["margin"])]],
                fmt="s", color="crimson", capsize=4, label=f"tuned, hold-out ({h['n_decks']:,} fresh decks)")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("training decks so far")
    ax.set_ylabel("win rate over the start (pp)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def write_report(result: TuneResult, folder: Path, *, title: str, spec: str | None = None,
                 command: str | None = None, chart: bool = False) -> list[Path]:
    """Write tune.md, tune_curve.csv and tune.json into ``folder`` (and tune_curve.png with ``chart``)."""
    folder.mkdir(parents=True, exist_ok=True)
    md, csv, js = folder / "tune.md", folder / "tune_curve.csv", folder / "tune.json"
    text = report_markdown(result, title=title, spec=spec, command=command)
    paths = [md, csv, js]
    if chart:
        fig = plot_curve(result, title)
        saved = save_figure(fig, folder / "tune_curve")
        png = [q for q in saved if q.suffix == ".png"]
        text = text.replace("## Curve\n", f"## Curve\n\n![curve]({png[0].name})\n" if png else "## Curve\n", 1)
        paths += saved
    write_text(md, text)
    with naming(csv):
        result.curve.to_csv(csv, index=False)
    write_text(js, json.dumps({"title": title, "spec": spec, "command": command, "start": result.start,
                              "tuned": result.tuned, "holdout": result.holdout, "evaluations": result.evaluations},
                             indent=1) + "\n")
    return paths


def rewrite_report(folder: Path) -> list[Path]:
    """Write a tuning report again from its tune.json and tune_curve.csv (new wording or chart, same numbers)."""
    meta = json.loads((folder / "tune.json").read_text())
    curve = pd.read_csv(folder / "tune_curve.csv")
    command = meta.get("command")
    if command is None:  # reports written before the command was kept in tune.json: read it off tune.md
        command = fenced_command((folder / "tune.md").read_text())
    result = TuneResult(names=list(meta["start"]), start=meta["start"], tuned=meta["tuned"], holdout=meta["holdout"],
                        curve=curve, evaluations=meta.get("evaluations", 0))
    return write_report(result, folder, title=meta["title"], spec=meta["spec"], command=command, chart=True)
