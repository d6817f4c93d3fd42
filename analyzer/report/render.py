"""The one renderer: a report is a list of :class:`Block` s, written as Markdown or HTML.

``durak report`` and ``durak compare`` both build blocks and hand them here, so
a table, a caption or a chart looks the same in every output.
"""

from __future__ import annotations

import base64
import html
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:  # tables arrive as frames; this module builds none (durak simulate prints without pandas)
    import pandas as pd


@dataclass
class Block:
    """One piece of the report, rendered to both Markdown and HTML."""

    kind: str  # "h1" | "h2" | "h3" | "p" | "warn" | "list" | "table" | "chart" | "code" | "toc"
    content: Any
    caption: str = ""


def _md_cell(x: Any) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no tabulate dependency)."""
    if df.empty:
        return "_(no rows)_"
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    rows = ["| " + " | ".join(_md_cell(v) for v in r) + " |" for r in df.itertuples(index=False)]
    return "\n".join([head, sep, *rows])


def slug(title: str) -> str:
    """The anchor of a heading, as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return keep.strip().replace(" ", "-")


def render_md(blocks: list[Block], base: Path) -> str:
    out: list[str] = []
    for b in blocks:
        if b.kind == "toc":
            out.append("**Contents:** " + " · ".join(f"[{t}](#{slug(t)})" for t in b.content))
        elif b.kind in ("h1", "h2", "h3"):
            out.append("#" * int(b.kind[1]) + " " + b.content)
        elif b.kind in ("p", "warn"):
            out.append(b.content)
        elif b.kind == "list":
            out.append("\n".join(f"- {x}" for x in b.content))
        elif b.kind == "table":
            out.append((f"_{b.caption}_\n\n" if b.caption else "") + md_table(b.content))
        elif b.kind == "chart":
            png = Path(b.content[0]).relative_to(base).as_posix()
            out.append(f"![{b.caption}]({png})")
        elif b.kind == "code":
            out.append(f"```\n{b.content}\n```")
    return "\n\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#111;line-height:1.45}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #999;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee} .warn{border:3px solid #000;background:#ffe9e9;padding:0.6em;font-weight:bold}
figure{margin:1em 0} figcaption{font-style:italic;font-size:0.9em} img{max-width:100%}
pre{background:#f4f4f4;padding:0.8em;overflow-x:auto} .caption{font-style:italic}
h1{margin:0.2em 0 0.3em} #summary{margin-top:0.3em} nav#contents{margin:0.8em 0;line-height:1.8}
"""


def _inline(text: str) -> str:
    """Escape, then turn the Markdown **bold** we emit into <strong>."""
    t = html.escape(text)
    parts = t.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def render_html(blocks: list[Block], title: str) -> str:
    out = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{_CSS}</style></head><body>"]
    for b in blocks:
        if b.kind == "toc":
            links = " · ".join(f"<a href='#{slug(t)}'>{html.escape(t)}</a>" for t in b.content)
            out.append(f"<nav id='contents'><strong>Contents:</strong> {links}</nav>")
        elif b.kind in ("h2", "h3"):
            out.append(f"<{b.kind} id='{slug(b.content)}'>{html.escape(b.content)}</{b.kind}>")
        elif b.kind == "h1":
            out.append(f"<{b.kind}>{html.escape(b.content)}</{b.kind}>")
        elif b.kind == "p":
            out.append(f"<p>{_inline(b.content)}</p>")
        elif b.kind == "warn":
            out.append(f"<p class='warn'>{_inline(b.content)}</p>")
        elif b.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b.content) + "</ul>")
        elif b.kind == "table":
            cap = f"<p class='caption'>{html.escape(b.caption)}</p>" if b.caption else ""
            out.append(cap + (b.content.to_html(index=False, escape=True, border=0) if not b.content.empty
                              else "<p><em>(no rows)</em></p>"))
        elif b.kind == "chart":
            data = base64.b64encode(Path(b.content[0]).read_bytes()).decode("ascii")
            out.append(f"<figure><img alt='{html.escape(b.caption)}' src='data:image/png;base64,{data}'>"
                       f"<figcaption>{html.escape(b.caption)}</figcaption></figure>")
        elif b.kind == "code":
            out.append(f"<pre>{html.escape(b.content)}</pre>")
    out.append("</body></html>")
    return "\n".join(out)



#: the width of output that is not a terminal (a pipe, a file, a log): wide enough that no value is cut or folded
PIPE_WIDTH = 10_000


def terminal(min_width: int = 0) -> Console:
    """A console on stdout: a terminal's own width (at least ``min_width``); elsewhere :data:`PIPE_WIDTH`, so a
    piped table keeps every value whole on one line."""
    c = Console()
    return Console(width=max(min_width, c.width)) if c.is_terminal else Console(width=PIPE_WIDTH)


def _tsv(value: Any) -> str:
    return " ".join(str(value).split("\t")).replace("\n", " ")


def render_tsv(blocks: list[Block], file: Any = None) -> None:
    """The blocks for scripts (``--tsv``): each table as tab-separated values, a ``# caption`` line, the header
    row, then the rows; other text as ``# `` comment lines; charts left out."""
    out = file or sys.stdout
    for b in blocks:
        if b.kind == "table":
            if b.caption:
                print(f"# {b.caption}", file=out)
            print("\t".join(_tsv(c) for c in b.content.columns), file=out)
            for row in b.content.itertuples(index=False):
                print("\t".join(_tsv(v) for v in row), file=out)
        elif b.kind in ("h1", "h2", "h3", "p", "warn", "code"):
            print("# " + str(b.content).replace("**", "").replace("\n", " "), file=out)
        elif b.kind == "list":
            for x in b.content:
                print(f"# - {x}", file=out)


def render_rich(blocks: list[Block], console: Any = None) -> None:
    """The same blocks on the terminal: tables as rich tables, headings bold, warnings red."""
    c = console or terminal()
    for b in blocks:
        if b.kind in ("h1", "h2", "h3"):
            c.print(f"[bold]{b.content}[/]")
        elif b.kind == "p":
            c.print(b.content.replace("**", ""), markup=False)
        elif b.kind == "warn":
            c.print(f"[bold red]{b.content.replace('**', '')}[/]")
        elif b.kind == "list":
            for x in b.content:
                c.print(f"- {x}", markup=False)
        elif b.kind == "table":
            t = Table(title=b.caption or None)
            for col in b.content.columns:
                t.add_column(str(col))
            for row in b.content.itertuples(index=False):
                t.add_row(*(str(v) for v in row))
            c.print(t)
        elif b.kind == "code":
            c.print(b.content, markup=False)
        # charts are files: the terminal names them in a "p" block if at all
