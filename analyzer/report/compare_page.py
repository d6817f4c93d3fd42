"""``durak compare --out DIR``: ``DIR/compare.html``, a page like an experiment's report.

The first screen answers the question the command asks -- which strategy wins, by how much, how sure --
in one sentence per point and the heat map of paired differences; a table of contents follows, then
the same blocks as ``compare.md`` and the terminal (:func:`analyzer.report.compare_view.blocks`),
through the one renderer (:func:`analyzer.report.render.render_html`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analyzer.core.files import write_text
from analyzer.report import compare_view
from analyzer.report.charts import save_figure
from analyzer.report.format import p_value, pct, pct_ci, size_ci
from analyzer.report.render import Block, render_html


def answer_sentences(out: dict[str, Any]) -> list[str]:
    """The first screen's sentences: the leader, its margin over the runner-up, and the design's narrowing."""
    unit = "matches" if out["unit"] == "match" else "deals"
    ranking = out["ranking"]
    if not ranking:
        return []
    first = ranking[0]
    said = [f"**{first['strategy']}** wins {pct_ci(first['win_rate'], first['lo'], first['hi'])} of its seat-{unit} "
            f"against a fair {pct(1 / out['players'])} ({out['n_decks']:,} duplicate decks)."]
    if len(ranking) > 1:
        second = ranking[1]["strategy"]
        pair = next((p for p in out["pairs"] if {p["a"], p["b"]} == {first["strategy"], second}), None)
        if pair is not None:
            sign = 1.0 if pair["a"] == first["strategy"] else -1.0
            d, lo, hi = sign * pair["diff"], *sorted((sign * pair["lo"], sign * pair["hi"]))
            margin = size_ci(d, lo, hi)
            if lo > 0 and pair["p_holm"] < 0.05:
                said.append(f"It wins {margin} more often than {second}, the runner-up (paired on the same decks, "
                            f"Holm p {p_value(pair['p_holm'])}).")
            else:
                said.append(f"Its lead over {second} ({margin}, Holm p {p_value(pair['p_holm'])}) is not "
                            "distinguishable from 0: the two are not told apart by these decks.")
    decided = [p["verdict"] for p in out["pairs"] if " better than " in str(p["verdict"])]
    said.append(f"{len(decided)} of {len(out['pairs'])} pairs are told apart (interval and Holm p agree).")
    said.append(compare_view.headline(out)[:1].upper() + compare_view.headline(out)[1:] + ".")
    return said


def write_compare_page(out: dict[str, Any], folder: Path, command: str | None = None) -> Path:
    """Write ``folder/compare.html`` (the heat map is drawn if ``compare.md`` has not drawn it); its path."""
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / "compare_heatmap.png"
    chart = [png] if png.exists() else save_figure(compare_view.heatmap(out).figure, folder / "compare_heatmap")
    details = compare_view.blocks(out, command, None)
    titles = [b.content for b in details if b.kind == "h2"]
    blocks = [details[0], Block("h2", "Summary"), Block("p", compare_view.title(out)),
              Block("list", answer_sentences(out)),
              Block("chart", chart, "Paired differences of win rates, row − column (≈ = not distinguishable)"),
              Block("toc", titles), *details[1:]]
    path = folder / "compare.html"
    write_text(path, render_html(blocks, f"durak compare: {', '.join(out['strategies'])}"))
    return path
