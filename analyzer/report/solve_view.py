"""The page of a solved research size (``solve.md``) and of every solved size (``durak solve --summary``), from
what :func:`analyzer.exact.run.solve_size` returns and ``solve.json`` keeps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analyzer.core.files import write_text


def markdown(out: dict[str, Any]) -> str:
    """One solved size as a report page: the equilibrium, the wild's effect, every strategy's distance."""
    lines = [f"# {out['variant']} 2p solved exactly: research deck of {out['deck']}, hands of {out['hand']}", "",
             f"A research size, not a RULES.md game: the deck is the ranks {out['cards']} of four suits (the wild "
             f"first, then the ranks with an effect, then the highest), a deal is capped at {out['turn_cap']} turns "
             "(G10) and a capped deal pays 0.  Exact numbers (no sampling): the whole game tree "
             f"({out['nodes']:,} nodes, {out['information_sets']:,} information sets) solved by CFR+.", "",
             "| measure | value |", "|---|---|",
             f"| exploitability of the equilibrium found (stake 1) | {out['exploitability']:.5f} |",
             f"| first mover's (position 0's) expected return | {out['first_mover_value']:+.4f} |",
             f"| share of deals reaching the cap under equilibrium play | {out['capped_share']:.4f} |",
             f"| CFR+ iterations, tree build, solve | {out['iterations']}, {out['build_seconds']} s, "
             f"{out['solve_seconds']} s |", "",
             "## The wild under equilibrium play", "",
             "Expected return (+1 win, -1 дурак) by the wilds each position was dealt:", "",
             "| position | " + " | ".join(k for k in out["wild_effect"]["position 0"] if "wilds" in k) + " |",
             "|---|" + "---|" * sum("wilds" in k for k in out["wild_effect"]["position 0"])]
    for pos, row in out["wild_effect"].items():
        lines.append(f"| {pos} | " + " | ".join(f"{v:+.4f} (dealt {row['share dealt ' + k.split()[0]]:.3f})"
                                                for k, v in row.items() if "wilds" in k) + " |")
    lines += ["", "## Every strategy's distance from perfect play", "",
              "Exploitability: what a best response wins from the strategy; loss: what the equilibrium wins from "
              "it; both averaged over the two seats, in units of the stake.  Exact for a deterministic strategy "
              "(and random, weighed by its stated probabilities); a strategy that answers at random (pimc, "
              "ismcts) is measured by draws of its play (analyzer.exact.measure): the loss's 95% t-interval, and "
              "the exploitability between a lower estimate (a best response to one draw played against the "
              "next) and an upper one (a best response to each draw), with the interval from the lower's lower "
              "end to the upper's upper end.", "",
              "| strategy | exploitability | loss against the equilibrium | how |", "|---|---|---|---|"]
    for spec, d in out["strategies"].items():
        lines.append(f"| `{spec}` | {cell(d, 'exploitability')} | {cell(d, 'loss')} | {how(d)} |")
    if out.get("not_measured"):
        lines += ["", "Not measured on this size: " + ", ".join(f"`{s}`" for s in out["not_measured"])
                  + " (docs/perfect_play.md says which sizes measure them, and why not the larger ones)."]
    rules = "".join(f" --rule {k}={v}" for k, v in (out.get("rules") or {}).items())
    lines += ["", f"Reproduce: `durak solve --variant {out['variant']} --deck {out['deck']} --hand {out['hand']}"
              f"{rules} --json`", ""]
    return "\n".join(lines)


def cell(d: dict[str, Any], key: str) -> str:
    """A measure with its interval where it was sampled."""
    if key == "loss":
        text = f"{d['loss']:+.4f}"
        iv = d.get("loss_interval")
        return text + (f" [{iv[0]:+.4f}, {iv[1]:+.4f}]" if iv else "")
    iv = d.get("exploitability_interval")
    if not iv:
        return f"{d['exploitability']:.4f}"
    return f"{max(d['exploitability_lower'], 0.0):.4f} to {d['exploitability']:.4f} [{max(iv[0], 0.0):.4f}, {iv[1]:.4f}]"


def how(d: dict[str, Any]) -> str:
    """How a strategy was measured."""
    if d.get("exploitability_interval"):
        return f"{d['draws']} draws, {d.get('sets_asked', 0):,} sets asked a draw"
    if d.get("sets_asked"):
        return f"exact, {d['sets_asked']:,} sets asked"
    return "exact" if d.get("samples", 1) == 1 else f"{d['samples']} answers a set"


def size_label(out: dict[str, Any]) -> str:
    rules = ", ".join(f"{k}={v}" for k, v in (out.get("rules") or {}).items())
    return f"{out['variant']} {out['deck']}x{out['hand']}" + (f" ({rules})" if rules else "")


def summary(results: Sequence[dict[str, Any]]) -> str:
    """Every solved size on one page: the equilibria, the wild under equilibrium play, every strategy's
    distance from perfect play (``durak solve --summary``)."""
    lines = ["# Distance from perfect play on solved research sizes", "",
             "Research sizes, not RULES.md games: two players, a short deck (the wild first, then the ranks with "
             "an effect, then the highest, four suits each), a turn cap after which a deal pays 0.  Each size's "
             "own page (its folder's solve.md) says how it was measured.  Stake 1: +1 for the winner, -1 for the "
             "дурак.", "",
             "## The equilibria", "",
             "| size | ranks | nodes | information sets | CFR+ iterations | build + solve | exploitability "
             "| first mover's value | capped share |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {size_label(r)} | {r['cards']} | {r['nodes']:,} | {r['information_sets']:,} | "
                     f"{r['iterations']} | {r['build_seconds']} s + {r['solve_seconds']} s | "
                     f"{r['exploitability']:.5f} | {r['first_mover_value']:+.4f} | {r['capped_share']:.4f} |")
    lines += ["", "## The wild under equilibrium play", "",
              "Expected return of each position by the wilds it was dealt (share of deals in brackets).", "",
              "| size | position | 0 wilds | 1 wild | 2 wilds | 3 wilds |", "|---|---|---|---|---|---|"]
    for r in results:
        for pos, row in r["wild_effect"].items():
            cells = [f"{row[f'{k} wilds']:+.3f} ({row[f'share dealt {k}']:.3f})" if f"{k} wilds" in row else ""
                     for k in range(4)]
            lines.append(f"| {size_label(r)} | {pos} | " + " | ".join(cells) + " |")
    specs = list(dict.fromkeys(s.replace(f"{r['variant']}-2p", "VARIANT-2p") for r in results
                               for s in r["strategies"]))
    lines += ["", "## Every strategy's distance from perfect play", "",
              "exploitability / loss against the equilibrium; sampled strategies with their intervals "
              "(exploitability: lower to upper estimate [interval]; loss [95% interval]); blank: not measured "
              "on that size.", "",
              "| strategy | " + " | ".join(size_label(r) for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for spec in specs:
        row = []
        for r in results:
            d = r["strategies"].get(spec.replace("VARIANT-2p", f"{r['variant']}-2p"))
            row.append("" if d is None else f"{cell(d, 'exploitability')} / {cell(d, 'loss')}")
        lines.append(f"| `{spec}` | " + " | ".join(row) + " |")
    lines += ["", "Rebuild: `durak solve --summary reports/perfect` (reads every */solve.json there).", ""]
    return "\n".join(lines)


def write_page(out: dict[str, Any], folder: Path) -> Path:
    """``folder/solve.md`` for one solved size."""
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / "solve.md", markdown(out))
    return folder / "solve.md"


def redraw_page(folder: Path) -> Path:
    """``solve.md`` again from the folder's ``solve.json`` (new wording, the same numbers)."""
    return write_page(json.loads((folder / "solve.json").read_text()), folder)


def write_summary(folder: Path) -> tuple[Path, int]:
    """``folder/README.md``: every ``*/solve.json`` under ``folder`` on one page; the page and the sizes read."""
    solved = sorted(folder.glob("*/solve.json"))
    if solved:
        write_text(folder / "README.md", summary([json.loads(f.read_text()) for f in solved]))
    return folder / "README.md", len(solved)
