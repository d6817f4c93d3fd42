"""The guide a clone ships: the README is a user's guide of at most ~450 lines whose two commands, command list,
option list and numbers match the code, CI and docs/findings.md; every relative link in the README and docs/
resolves; the plugin guide's worked example (docs/examples/save_the_wild.py) is the code the page shows and plays
legal deals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from analyzer.core.cards import JACK, card_id, parse_card
from analyzer.core.contract import DecisionView
from analyzer.core.registry import get_strategy
from analyzer.core.rules import OPTIONS, make_rules

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|<a [^>]*href=\"([^\"]+)\"")
EXAMPLE = "docs/examples/save_the_wild.py:SaveTheWild"


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page, and its explicit ``<a id=...>`` ones."""
    text = page.read_text(encoding="utf-8")
    out = set(re.findall(r"<a [^>]*id=\"([^\"]+)\"", text))
    for heading in re.findall(r"^#+\s+(.*)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def broken_links(pages: list[Path], root: Path = ROOT) -> list[str]:
    """``page: target (why)`` for every relative link (outside code blocks) to a missing file or anchor."""
    bad = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code is not a link
        for m in LINK.finditer(text):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{page.relative_to(root)}: {target} (no such anchor)")
    return bad


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    assert len(PAGES) >= 4 and broken_links(PAGES) == []


def test_the_link_check_finds_a_missing_file_and_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Top\n[ok](#top) [gone](b.md) [no anchor](#nowhere) [web](https://x.org)\n")
    assert broken_links([tmp_path / "a.md"], tmp_path) == ["a.md: b.md (no such file)",
                                                           "a.md: #nowhere (no such anchor)"]


def test_the_readme_points_at_the_rules_a_clone_has() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "shared folder" not in text and "[docs/rules.md](docs/rules.md)" in text


MAIN_JOB = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/durak run experiments/quick.toml"
TEST_COMMAND = ('python3 -m venv .venv && .venv/bin/pip install -q --no-compile -e ".[test,openspiel]" '
                "&& .venv/bin/python -m pytest")
#: A number with its interval as the reports write it: ``52.4% [52.3, 52.5]``, ``+2.4 pp [+2.3, +2.5]``,
#: ``+45 Elo [+38, +52]``.
INTERVAL = re.compile(r"[+\-−]?\d[\d.,]*(?:%| pp| Elo)? \[[+\-−]?\d[\d.,]*%?, [+\-−]?\d[\d.,]*%?\]")


def readme_section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def guide_problems(readme: str, ci: str, findings: str, commands: list[str], options: list[str]) -> list[str]:
    """What keeps a README from being the guide: too long, the two commands not as CI runs them, a command or a
    rule option it does not name, a number with an interval that docs/findings.md does not hold."""
    bad = []
    if len(readme.splitlines()) > 450:
        bad.append(f"{len(readme.splitlines())} lines, over 450")
    blocks = re.findall(r"```sh\n(.*?)```", readme_section(readme, "The two commands"), flags=re.S)
    if [b.strip() for b in blocks] != [MAIN_JOB, TEST_COMMAND]:
        bad.append(f"the two commands are not the main job and the test command: {blocks}")
    if TEST_COMMAND not in ci.splitlines():
        bad.append("the test command is not the line .ci/run runs")
    cli = readme_section(readme, "Command line")
    bad += [f"command {c!r} is not in the command line section" for c in commands if f"durak {c} " not in cli
            and f"durak {c}\n" not in cli]
    table = readme_section(readme, "Rule options")
    bad += [f"option {o!r} is not in the rule options table" for o in options if f"`{o}`" not in table]
    bad += [f"{n!r} is not in docs/findings.md" for n in INTERVAL.findall(readme) if n not in findings]
    return bad


def _commands() -> list[str]:
    return sorted(c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands)


def test_the_readme_is_the_guide_its_commands_options_and_numbers_are_the_real_ones() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    findings = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    commands = _commands()
    assert {"simulate", "run", "compare", "findings", "bench"} <= set(commands)
    assert guide_problems(readme, ci, findings, commands, sorted(OPTIONS)) == []
    assert len(INTERVAL.findall(readme)) >= 5  # the headline numbers are checked, not absent


def test_the_guide_check_fails_on_a_drifted_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    findings = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    drifted = (readme.replace("21.1% [21.0, 21.2]", "21.3% [21.0, 21.2]").replace("durak findings [", "durak x [")
               .replace("| `eight_stop` |", "| eight stop |").replace("--no-compile ", ""))
    drifted += "\n".join(["x"] * 120)
    problems = guide_problems(drifted, ci, findings, _commands(), sorted(OPTIONS))
    assert any("450" in p for p in problems) and any("two commands" in p for p in problems)
    assert "command 'findings' is not in the command line section" in problems
    assert "option 'eight_stop' is not in the rule options table" in problems
    assert "'21.3% [21.0, 21.2]' is not in docs/findings.md" in problems


def test_the_readme_links_every_page_of_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert {"architecture.md", "findings.md", "performance.md"} <= set(pages)
    assert [p for p in pages if f"](docs/{p})" not in readme] == []


def test_the_plugin_page_shows_the_example_file_as_it_is() -> None:
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    source = (ROOT / "docs" / "examples" / "save_the_wild.py").read_text(encoding="utf-8")
    shown = re.search(r"```python\n(.*?)```", page, flags=re.S)
    assert shown is not None and shown.group(1) in source


def _view(hand: str, legal: str, top: str) -> DecisionView:
    cards = tuple(parse_card(t) for t in hand.split())
    return DecisionView(rules=make_rules("czech", 3), seat=0, hand=cards,
                        legal=tuple(sorted(parse_card(t) for t in legal.split())), top=parse_card(top),
                        active_suit=parse_card(top) % 4, pending_seven=0, hand_sizes=(len(cards), 5, 5),
                        talon_size=10, played=frozenset())


def test_the_example_sheds_points_and_keeps_the_wild() -> None:
    s = get_strategy(EXAMPLE)
    rng = __import__("numpy").random.default_rng(0)
    assert s.choose(_view("AH 8H JS 9C", "AH 8H JS", "10H"), rng) == (parse_card("AH"), None)  # CZ6: A = 11
    wild = card_id(JACK, 0)
    action, suit = s.choose(_view("JS 9C 10C 7D", "JS", "8H"), rng)  # only the wild goes: clubs, its longest suit
    assert (action, suit) == (wild, 1)
    assert get_strategy(EXAMPLE + "?keep_until=4").choose(_view("AH 8H JS 9C", "AH 8H JS", "10H"), rng)[0] == wild


@pytest.mark.parametrize("variant, players", [("czech", 3), ("prague", 2), ("svinya", 2)])
def test_the_plugin_example_plays_whole_deals(variant: str, players: int) -> None:
    res = CliRunner().invoke(app, ["simulate", "--variant", variant, "--players", str(players), "--strategies",
                                   f"{EXAMPLE},random", "--deals", "300", "--jobs", "1", "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert "save-the-wild" in out["strategies"] and out["deals"] == 300


def test_the_newcomer_notebook_runs_and_answers_its_six_questions() -> None:
    """docs/examples/newcomer.py (a jupytext percent script) executed as a user would, with small samples."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "DURAK_EXAMPLE_DEALS": "1000"}
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "examples" / "newcomer.py")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    answered = {line.split(".", 1)[0] for line in out.stdout.splitlines() if line[:1].isdigit()}
    assert answered == {"1", "2", "3", "4", "5", "6"}, out.stdout
    assert all("[" in line for line in out.stdout.splitlines() if not line.startswith("5.")), out.stdout


# --------------------------------------------------------------------------- no development history

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
#: What development history looks like in a file: git history holds it, the tree does not.  Rule ids (CZ3, G10),
#: CSS colours (#999;), numbered display names (greedy#2) and ``datetime.UTC`` are not history.
HISTORY = {
    "an issue number": re.compile(r"\b[Ii]ssues?[ -]#?\d+"),
    "a session number": re.compile(r"\b[Ss]essions?[ -]#?\d+|\b(?:this|last|previous|earlier) session\b", re.I),
    "a ticket reference": re.compile(r"(?<![\w#&:\"'])#\d{1,4}(?![\w;}\"'])"),
    "a work-log item": re.compile(r"\b[Ii]tems? \d+\b"),
    "a time of day": re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:[–-]\d{1,2}:\d{2})?\s*UTC\b"),
    "a date": re.compile(rf"\b\d{{1,2}} (?:{_MONTHS})\b|\b(?:{_MONTHS}) \d{{1,2}}\b|\b20\d\d-\d\d-\d\d\b"),
    "a numbered heading": re.compile(r"^#{1,6} \d+\. ", re.M),
}
#: Where it must not be: the code, its tests, the experiments, the docs and the guide.
HISTORY_FREE = ("analyzer", "strategies", "experiments", "tests", "docs", "README.md", ".ci/run", "pyproject.toml")


def history_references(text: str) -> list[str]:
    """``line: what`` for every place in ``text`` that reads like a work log."""
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        found += [f"{i}: {what}: {m.group(0)!r}" for what, pat in HISTORY.items() if (m := pat.search(line))]
    return found


def test_no_development_history_in_code_tests_or_docs() -> None:
    files = []
    for name in HISTORY_FREE:
        path = ROOT / name
        files += [path] if path.is_file() else [f for f in sorted(path.rglob("*"))
                                                if f.suffix in (".py", ".md", ".toml", ".txt") and f.is_file()]
    bad = [f"{f.relative_to(ROOT)}:{where}" for f in files if f != Path(__file__)
           for where in history_references(f.read_text(encoding="utf-8"))]
    assert bad == []


def test_the_history_check_finds_each_kind_and_spares_rule_ids_and_colours() -> None:
    planted = ("fixed in issue 12\nsee session 17's run\nas asked in #41\nitem 4 of the list\n"
               "run at 07:38–07:56 UTC\non 3 December\n## 3. Defects found\n")
    kinds = [line.split(": ")[1] for line in history_references(planted)]
    assert kinds == list(HISTORY)
    assert history_references("CZ3 and G10; color:#999; greedy#2; from datetime import UTC; points 10/20") == []


def test_every_interval_the_readme_quotes_is_one_the_findings_page_gives() -> None:
    """The README's answers are the committed reports' numbers: each rate with its interval it quotes stands,
    as written, on docs/findings.md (generated from the reports), so a rerun that moves a number fails here until
    the README says the new one."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    quoted = re.findall(r"[+-]?\d[\d,.]*(?: ?(?:%|pp|Elo))? \[[+-]?\d[\d.]*, [+-]?\d[\d.]*\]", readme)
    assert len(quoted) >= 5
    missing = [q for q in quoted if q not in page]
    assert not missing, f"README quotes numbers docs/findings.md does not give: {missing}"
