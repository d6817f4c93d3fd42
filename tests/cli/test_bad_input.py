"""Every user mistake through the real CLI: exit code 2, one stderr line naming the culprit.

Each case runs the typer app in-process (``typer.testing.CliRunner``) with its
working directory set to a temporary folder, so that nothing is written into
the repository.  The contract checked by :func:`assert_user_error`:

* exit code 2, and no exception other than the ``SystemExit`` of ``typer.Exit``;
* stderr is exactly one line, starting with ``durak: error:``;
* the line names the culprit (file, key, token index, value ...);
* no ``Traceback`` anywhere in stdout or stderr.

A few cases also go through ``python -m analyzer`` in a subprocess, the way a
user runs it, so that the entry point itself (``analyzer.cli.app.main``) is covered.
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli.app import app
from tests.helpers_reports import copy_as_cloned

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "experiments" / "deal_000_prague_reference.toml"
PLUGIN = ROOT / "tests" / "plugin_example.py"

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
except TypeError:  # click >= 8.2: stderr is always captured on its own
    RUNNER = CliRunner()


def invoke(args: Sequence[str], cwd: Path | None = None):
    """Run ``durak ARGS`` in-process (inside ``cwd`` when given); return the click Result."""
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return RUNNER.invoke(app, [str(a) for a in args], catch_exceptions=True)
    finally:
        os.chdir(old)


def crash_text(res) -> str:
    """The traceback of an exception that escaped the CLI ('' if none did)."""
    exc = res.exception
    if exc is None or isinstance(exc, SystemExit):
        return ""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def assert_user_error(res, *culprits: str) -> str:
    """The one-line contract for a user mistake; returns the message line."""
    crash = crash_text(res)
    assert not crash, f"a user mistake raised instead of exiting 2:\n{crash}"
    out, err = res.stdout, res.stderr
    assert "Traceback" not in out + err, out + err
    assert res.exit_code == 2, f"exit code {res.exit_code}, stderr {err!r}, stdout {out[:300]!r}"
    lines = err.splitlines()
    assert len(lines) == 1, f"stderr is not one line: {err!r}"
    line = lines[0]
    assert line.startswith("durak: error: "), line
    for c in culprits:
        assert c in line, f"message does not name {c!r}: {line}"
    return line


# --------------------------------------------------------------------------- files


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


PLUGIN_BAD = """
class Raises:
    name = "raises"
    def choose(self, view, rng):
        raise ZeroDivisionError("boom")

class Illegal:
    name = "illegal"
    def choose(self, view, rng):
        return 60, None

class NotAnAction:
    name = "not-an-action"
    def choose(self, view, rng):
        return "AS", None

class NoName:
    def choose(self, view, rng):
        return view.legal[0], None

class BadInit:
    name = "bad-init"
    def __init__(self):
        raise RuntimeError("cannot start\\nsecond line")
"""

GOOD_EXPERIMENT = 'name = "tiny"\nvariant = "czech"\nplayers = 2\ndeals = 20\nreports = []\n'


class Files:
    """Bad (and a few good) input files in one temporary folder."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        ref = REFERENCE.read_text(encoding="utf-8")
        w = lambda name, text: _write(tmp / name, text)  # noqa: E731
        # experiments
        self.exp = w("exp.toml", GOOD_EXPERIMENT)
        self.exp_bad_toml = w("exp_bad_toml.toml", 'variant = "czech\ndeals = 10\n')
        self.exp_binary = w("exp_binary.toml", b"\xff\xfe\x00variant = 1\n")
        self.exp_unknown_key = w("exp_unknown_key.toml", GOOD_EXPERIMENT + "playerz = 3\n")
        self.exp_no_deals = w("exp_no_deals.toml", 'variant = "czech"\nplayers = 2\n')
        self.exp_bad_rule = w("exp_bad_rule.toml", GOOD_EXPERIMENT + "[rules]\nsevens = \"maybe\"\n")
        self.exp_deck = w("exp_deck.toml", 'variant = "czech"\nplayers = 8\ndeals = 10\n[rules]\ndeck_size = 32\n')
        self.exp_bad_strategy = w("exp_bad_strategy.toml", GOOD_EXPERIMENT + 'lineup = ["nosuch"]\n')
        self.exp_players = w("exp_players.toml", 'variant = "svinya"\nplayers = 4\ndeals = 10\n')
        # scenarios (from the PR8 reference deal)
        self.sc_bad_toml = w("sc_bad_toml.toml", ref.replace('variant = "prague"', 'variant = "prague'))
        self.sc_binary = w("sc_binary.toml", b"\xff\xfe\x00\x01")
        self.sc_no_variant = w("sc_no_variant.toml", ref.replace('variant = "prague"\n', ""))
        self.sc_players_str = w("sc_players_str.toml", ref.replace("players = 3", 'players = "3"'))
        self.sc_unknown_key = w("sc_unknown_key.toml", "seed = 4\n" + ref)
        self.sc_bad_card = w("sc_bad_card.toml", ref.replace('["JC", "AD"', '["JC", "1Z"'))
        self.sc_twice = w("sc_twice.toml", ref.replace('["JC", "AD"', '["JC", "10C"'))
        self.sc_bad_token = w("sc_bad_token.toml", ref.replace('"10C", "6C",', '"10C", "6X",'))
        self.sc_illegal = w("sc_illegal.toml", ref.replace('"10C", "6C",', '"10C", "AS",'))
        self.sc_short = w("sc_short.toml", ref.replace('"QC",                 # Yuri goes out', ""))
        self.sc_long = w("sc_long.toml", ref.replace('"QC",                 # Yuri goes out', '"QC", "8S",'))
        self.sc_talon_int = w("sc_talon_int.toml", _replace_line(ref, "talon = ", "talon = 5"))
        self.sc_variant = w("sc_variant.toml", ref.replace('variant = "prague"', 'variant = "moscow"'))
        self.sc_players = w("sc_players.toml", ref.replace("players = 3", "players = 7"))
        # plugins
        self.plugin_syntax = w("plugin_syntax.py", "def oops(:\n    pass\n")
        self.plugin_empty = w("plugin_empty.py", "X = 1\n")
        self.plugin_bad = w("plugin_bad.py", PLUGIN_BAD)
        # a regular file where a folder is expected
        self.regular = w("regular_file", "not a folder\n")
        # stored results that cannot be read back
        self.corrupt = tmp / "corrupt"
        (self.corrupt / "results").mkdir(parents=True)
        for name in ("cells", "positions", "totals", "hist"):
            w(f"corrupt/results/{name}.parquet", "not parquet\n")
        self.no_tables = tmp / "no_tables"
        (self.no_tables / "results").mkdir(parents=True)

    def finished(self, name: str) -> Path:
        """A finished run of the good experiment in ``name`` (made on demand: it costs a run)."""
        out = self.tmp / name
        res = invoke(["run", self.exp, "--deals", "20", "--jobs", "1", "--quiet", "--out", out], cwd=self.tmp)
        assert res.exit_code == 0, res.stderr
        return out

    def bad_manifest(self) -> Path:
        out = self.finished("bad_manifest")
        (out / "manifest.json").write_text("{not json", encoding="utf-8")
        return out

    def changed_experiment(self) -> Path:
        """A finished run, then a different experiment aimed at the same folder (resume refused)."""
        out = self.finished("resumed")
        _write(self.tmp / "exp_changed.toml", GOOD_EXPERIMENT.replace("players = 2", "players = 3"))
        return out


def _replace_line(text: str, start: str, new: str) -> str:
    return "\n".join(new if line.startswith(start) else line for line in text.splitlines()) + "\n"


@pytest.fixture
def f(tmp_path: Path) -> Files:
    return Files(tmp_path)


# --------------------------------------------------------------------------- cases

SIM = ["simulate", "--deals", "20", "--jobs", "1"]


def _strats(first: str, players: int = 4) -> str:
    return ",".join([first] + ["random"] * (players - 1))


def _fifo(path: Path) -> Path:
    """A FIFO with no writer: reading it used to wait forever."""
    os.mkfifo(path)
    return path


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:  # no disk used, but stat says ``size``
        fh.truncate(size)
    return path


def _copied_report(f: Files, name: str, table: str | None = None) -> Path:
    """A copy of a committed example report as a fresh clone has it (no local chunk store), optionally
    with a table's columns damaged."""
    import pandas as pd

    out = copy_as_cloned(name, f.tmp / name)
    if table is not None:
        path = out / "results" / f"{table}.parquet"
        pd.read_parquet(path).drop(columns=["cell"]).to_parquet(path)
    return out


def _damaged(out: Path, name: str, data: bytes) -> Path:
    (out / name).write_bytes(data)
    return out


def _foreign(f: Files) -> Path:
    (f.tmp / "mine").mkdir()
    (f.tmp / "mine" / "thesis.tex").write_text("mine\n", encoding="utf-8")
    return f.tmp / "mine"


EXP_DEEP = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
EXP_GRID = (GOOD_EXPERIMENT + "[grid]\nforget_rate = [" + ", ".join(str(i / 1000) for i in range(1000)) + "]\n"
            + "target = [" + ", ".join(str(i) for i in range(1, 1001)) + "]\n")
RUN = ["--jobs", "1", "--quiet"]


# (id, args builder, culprits builder): each names what the message must contain.
Case = tuple[str, Callable[[Files], list[str]], Callable[[Files], list[str]]]
CASES: list[Case] = [
    # ---- variants, options, values
    ("unknown-variant", lambda f: SIM + ["--variant", "moscow"], lambda f: ["'moscow'", "czech, prague, svinya"]),
    ("rules-unknown-variant", lambda f: ["rules", "moscow"], lambda f: ["'moscow'"]),
    ("unknown-option", lambda f: SIM + ["--rule", "sevns=on"], lambda f: ["'sevns'"]),
    ("option-without-value", lambda f: SIM + ["--rule", "sevens"], lambda f: ["'sevens'", "name=value"]),
    ("bad-bool-value", lambda f: SIM + ["--rule", "sevens=maybe"], lambda f: ["'maybe'", "'sevens'"]),
    ("bad-enum-value", lambda f: SIM + ["--rule", "seven_chain=double"], lambda f: ["'double'", "'seven_chain'"]),
    ("bad-int-value", lambda f: SIM + ["--rule", "hand_size=many"], lambda f: ["'many'", "'hand_size'"]),
    ("bad-deck-size", lambda f: SIM + ["--rule", "deck_size=40"], lambda f: ["'40'", "'deck_size'"]),
    ("bad-float-value", lambda f: SIM + ["--rule", "forget_rate=1.5"], lambda f: ["'1.5'", "'forget_rate'"]),
    ("nan-float-value", lambda f: SIM + ["--rule", "forget_rate=nan"], lambda f: ["'nan'", "'forget_rate'"]),
    ("option-that-cannot-act", lambda f: SIM + ["--rule", "seven_chain=accumulate"],
     lambda f: ["seven_chain=accumulate", "without sevens=on"]),
    ("last-effect-without-effects", lambda f: SIM + ["--rule", "serve_last_effect=on"],
     lambda f: ["serve_last_effect=on", "sevens=on or eight_stop=on"]),
    ("zero-target", lambda f: SIM + ["--rule", "target=0"], lambda f: ["'0'", "'target'"]),
    ("option-of-other-variant",
     lambda f: SIM + ["--variant", "prague", "--players", "3", "--rule", "sevens=on"], lambda f: ["'sevens'", "prague"]),
    ("huge-lone-wild-points",  # int16 points: 40000 crashes, 65536 silently scores 0 (see docs/bad_input.md)
     lambda f: SIM + ["--variant", "svinya", "--players", "2", "--deals", "3000",
                      "--rule", "lone_wild_points=99999999999999999999"],
     lambda f: ["lone_wild_points"]),
    ("lone-wild-points-wraps",  # exit 0 today, and a lone Queen scores 65536 mod 2**16 = 0 points
     lambda f: SIM + ["--variant", "svinya", "--players", "2", "--rule", "lone_wild_points=65536"],
     lambda f: ["lone_wild_points", "65536"]),
    # ---- players and deck
    ("players-svinya", lambda f: SIM + ["--variant", "svinya", "--players", "3"], lambda f: ["svinya", "not 3"]),
    ("players-czech-9", lambda f: ["rules", "czech", "--players", "9"], lambda f: ["czech", "not 9"]),
    ("players-zero", lambda f: SIM + ["--players", "0"], lambda f: ["not 0"]),
    ("players-negative", lambda f: SIM + ["--players", "-3"], lambda f: ["not -3"]),
    ("deck-too-small", lambda f: SIM + ["--players", "8", "--rule", "deck_size=32"],
     lambda f: ["deck of 32", "8 players"]),
    ("deck-too-small-hand", lambda f: SIM + ["--players", "5", "--rule", "hand_size=7", "--rule", "deck_size=32"],
     lambda f: ["deck of 32", "7 cards"]),
    ("prague-hand-1", lambda f: SIM + ["--variant", "prague", "--players", "3", "--rule", "hand_size=1"],
     lambda f: ["hand_size"]),
    # ---- strategies
    ("unknown-strategy", lambda f: SIM + ["--strategies", _strats("greedyy")], lambda f: ["'greedyy'", "known:"]),
    ("strategy-count", lambda f: SIM + ["--strategies", "random,greedy,random,greedy,random"],
     lambda f: ["--strategies", "5 strategies", "4 players"]),
    ("empty-strategy", lambda f: SIM + ["--strategies", ",random,random,random"], lambda f: ["--strategies", "empty entry"]),
    ("strategy-param-alone", lambda f: SIM + ["--strategies", "random,w_wild=-2"],
     lambda f: ["--strategies", "'w_wild=-2'", "name?"]),
    ("strategy-bad-param", lambda f: SIM + ["--strategies", _strats("weighted?bogus=1")], lambda f: ["bogus"]),
    ("strategy-param-syntax", lambda f: SIM + ["--strategies", _strats("weighted?w_points")],
     lambda f: ["'w_points'"]),
    ("strategy-bad-weight", lambda f: SIM + ["--strategies", _strats("weighted?w_points=abc")],
     lambda f: ["w_points", "abc"]),
    ("plugin-missing-file", lambda f: SIM + ["--strategies", _strats(f"{f.tmp}/nope.py:Mine")],
     lambda f: ["nope.py"]),
    ("plugin-syntax-error", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_syntax}:Mine")],
     lambda f: ["plugin_syntax.py", "SyntaxError"]),
    ("plugin-missing-class", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_empty}:Mine")],
     lambda f: ["plugin_empty.py", "'Mine'"]),
    ("plugin-example-missing-class", lambda f: SIM + ["--strategies", _strats(f"{PLUGIN}:LowestCard")],
     lambda f: ["plugin_example.py", "'LowestCard'"]),
    ("plugin-not-a-strategy", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_empty}:X")],
     lambda f: ["plugin_empty.py:X", "int"]),
    ("plugin-raises", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_bad}:Raises")],
     lambda f: ["'raises'", "(czech, deal ", "ZeroDivisionError: boom"]),
    ("plugin-illegal-move", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_bad}:Illegal")],
     lambda f: ["'illegal'", "(czech, deal ", "move 60 is not legal"]),
    ("plugin-returns-text", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_bad}:NotAnAction")],
     lambda f: ["'not-an-action'", "(czech, deal ", "choose returned ('AS', None), not an action"]),
    ("plugin-without-name", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_bad}:NoName")],
     lambda f: ["plugin_bad.py:NoName", "'name'"]),
    ("plugin-init-fails", lambda f: SIM + ["--strategies", _strats(f"{f.plugin_bad}:BadInit")],
     lambda f: ["plugin_bad.py:BadInit", "RuntimeError: cannot start second line"]),
    ("plugin-missing-module", lambda f: SIM + ["--strategies", _strats("no_such_module_xyz:Mine")],
     lambda f: ["'no_such_module_xyz'"]),
    ("plugin-file-without-name", lambda f: SIM + ["--strategies", _strats("mine.py")],
     lambda f: ["'mine.py'", ":Name"]),
    # ---- counts, seeds, jobs
    ("deals-zero", lambda f: ["simulate", "--deals", "0", "--jobs", "1"], lambda f: ["--deals", "0"]),
    ("deals-negative", lambda f: ["simulate", "--deals", "-5", "--jobs", "1"], lambda f: ["--deals", "-5"]),
    ("matches-zero", lambda f: ["simulate", "--matches", "0", "--jobs", "1"], lambda f: ["--matches", "0"]),
    ("matches-no-target", lambda f: SIM + ["--variant", "prague", "--players", "3", "--matches", "2"],
     lambda f: ["prague", "target"]),
    ("seed-negative", lambda f: SIM + ["--seed", "-1"], lambda f: ["--seed", "-1"]),
    ("seed-negative-compare", lambda f: ["compare", "random", "greedy", "--players", "2", "--deals", "10",
                                         "--jobs", "1", "--seed", "-1"], lambda f: ["--seed", "-1"]),
    ("jobs-zero-simulate", lambda f: ["simulate", "--deals", "20", "--jobs", "0"], lambda f: ["--jobs", "0"]),
    ("bench-deals-zero", lambda f: ["bench", "--deals", "0"], lambda f: ["--deals", "0"]),
    ("bench-negative-simple-deals", lambda f: ["bench", "--deals", "10", "--simple-deals", "-5"],
     lambda f: ["--simple-deals", "-5"]),
    ("bench-unknown-variant", lambda f: ["bench", "--deals", "10", "--simple-deals", "10", "--engine-deals", "10",
                                         "--variants", "moscow"], lambda f: ["'moscow'"]),
    ("run-deals-zero", lambda f: ["run", f.exp, "--deals", "0", "--jobs", "1", "--quiet"], lambda f: ["--deals", "0"]),
    ("run-deals-negative", lambda f: ["run", f.exp, "--deals", "-3", "--jobs", "1", "--quiet"],
     lambda f: ["--deals", "-3"]),
    ("run-jobs-zero", lambda f: ["run", f.exp, "--deals", "10", "--jobs", "0", "--quiet"], lambda f: ["jobs", "0"]),
    ("run-backend", lambda f: ["run", f.exp, "--deals", "10", "--jobs", "1", "--backend", "spark"],
     lambda f: ["--backend", "'spark'"]),
    # ---- tournaments, stopping rules and tuning
    ("compare-unknown-design", lambda f: ["compare", "random", "greedy", "--design", "swiss"],
     lambda f: ["--design", "'swiss'"]),
    ("compare-until-ci-negative", lambda f: ["compare", "random", "greedy", "--design", "round-robin", "--players", "2",
                                             "--until-ci", "-1"], lambda f: ["--until-ci", "-1"]),
    ("compare-until-ci-and-sprt", lambda f: ["compare", "random", "greedy", "--design", "round-robin", "--players",
                                             "2", "--until-ci", "1", "--sprt", "1"], lambda f: ["--until-ci", "--sprt"]),
    ("compare-sprt-three-strategies", lambda f: ["compare", "random", "greedy", "weighted", "--design", "round-robin",
                                                 "--players", "2", "--sprt", "1", "--jobs", "1"],
     lambda f: ["SPRT", "3 comparisons", "--until-ci"]),
    ("compare-sprt-alpha", lambda f: ["compare", "random", "greedy", "--design", "round-robin", "--players", "2",
                                      "--sprt", "1", "--alpha", "0.7"], lambda f: ["--alpha", "0.7"]),
    ("compare-reference-without-hero", lambda f: ["compare", "random", "greedy", "--reference", "greedy"],
     lambda f: ["--reference", "hero"]),
    ("compare-field-sprt-three-strategies", lambda f: ["compare", "random", "greedy", "weighted", "--sprt", "1",
                                                      "--jobs", "1"], lambda f: ["SPRT", "field of 3", "--until-ci"]),
    ("compare-hero-unknown-reference", lambda f: ["compare", "greedy", "--design", "hero", "--reference", "nosuch",
                                                  "--players", "2", "--deals", "10", "--jobs", "1"],
     lambda f: ["'nosuch'"]),
    ("tune-no-parameters", lambda f: ["tune", "greedy", "--budget", "10", "--decks", "5", "--holdout", "5"],
     lambda f: ["'greedy'", "no numeric parameters"]),
    ("tune-budget-zero", lambda f: ["tune", "weighted", "--budget", "0"], lambda f: ["--budget", "0"]),
    ("tune-spec-with-parameters", lambda f: ["tune", "weighted?w_wild=1"], lambda f: ["without parameters"]),
    ("tune-sigma-zero", lambda f: ["tune", "weighted", "--sigma", "0"], lambda f: ["--sigma"]),
    ("tune-budget-below-a-generation", lambda f: ["tune", "weighted", "--budget", "10", "--decks", "100"],
     lambda f: ["budget", "100 decks"]),
    # ---- experiment files
    ("exp-missing", lambda f: ["run", f.tmp / "nope.toml", "--jobs", "1", "--quiet"], lambda f: ["nope.toml"]),
    ("exp-directory", lambda f: ["run", f.tmp, "--jobs", "1", "--quiet"], lambda f: [str(f.tmp)]),
    ("exp-bad-toml", lambda f: ["run", f.exp_bad_toml, "--jobs", "1", "--quiet"],
     lambda f: ["exp_bad_toml.toml", "not valid TOML", "line 1"]),
    ("exp-not-utf8", lambda f: ["run", f.exp_binary, "--jobs", "1", "--quiet"], lambda f: ["exp_binary.toml"]),
    ("exp-unknown-key", lambda f: ["run", f.exp_unknown_key, "--jobs", "1", "--quiet"],
     lambda f: ["exp_unknown_key.toml", "'playerz'"]),
    ("exp-no-deals", lambda f: ["run", f.exp_no_deals, "--jobs", "1", "--quiet"],
     lambda f: ["exp_no_deals.toml", "'deals'"]),
    ("exp-bad-rule", lambda f: ["run", f.exp_bad_rule, "--jobs", "1", "--quiet"],
     lambda f: ["exp_bad_rule.toml", "rules.sevens", "'maybe'"]),
    ("exp-deck-too-small", lambda f: ["run", f.exp_deck, "--jobs", "1", "--quiet"],
     lambda f: ["exp_deck.toml", "deck of 32"]),
    ("exp-unknown-strategy", lambda f: ["run", f.exp_bad_strategy, "--jobs", "1", "--quiet"],
     lambda f: ["exp_bad_strategy.toml", "'lineup'", "'nosuch'"]),
    ("exp-players", lambda f: ["run", f.exp_players, "--jobs", "1", "--quiet"],
     lambda f: ["exp_players.toml", "'players'", "4 players"]),
    # ---- output folders
    ("out-under-regular-file", lambda f: ["run", f.exp, "--deals", "10", "--jobs", "1", "--quiet",
                                          "--out", f.regular / "sub"], lambda f: ["regular_file"]),
    ("out-is-regular-file", lambda f: ["run", f.exp, "--deals", "10", "--jobs", "1", "--quiet",
                                       "--out", f.regular], lambda f: ["regular_file"]),
    ("report-no-results", lambda f: ["report", f.tmp / "empty"], lambda f: ["empty", "no run's results"]),
    ("report-regular-file", lambda f: ["report", f.regular], lambda f: ["regular_file"]),
    ("report-corrupt-tables", lambda f: ["report", f.corrupt], lambda f: ["corrupt", ".parquet"]),
    ("report-missing-tables", lambda f: ["report", f.no_tables], lambda f: ["no_tables", "cells.parquet", "missing"]),
    ("report-corrupt-manifest", lambda f: ["report", f.bad_manifest()], lambda f: ["manifest.json"]),
    ("resume-other-experiment", lambda f: ["run", f.tmp / "exp_changed.toml", "--deals", "20", "--jobs", "1",
                                           "--quiet", "--out", f.changed_experiment()],
     lambda f: ["resumed", "--fresh"]),
    # ---- scenario files
    ("sc-missing", lambda f: ["replay", f.tmp / "nope.toml"], lambda f: ["nope.toml"]),
    ("sc-directory", lambda f: ["replay", f.tmp], lambda f: [str(f.tmp)]),
    ("sc-bad-toml", lambda f: ["replay", f.sc_bad_toml], lambda f: ["sc_bad_toml.toml", "not valid TOML"]),
    ("sc-not-utf8", lambda f: ["replay", f.sc_binary], lambda f: ["sc_binary.toml"]),
    ("sc-missing-key", lambda f: ["replay", f.sc_no_variant], lambda f: ["sc_no_variant.toml", "'variant'"]),
    ("sc-wrong-type", lambda f: ["replay", f.sc_players_str], lambda f: ["sc_players_str.toml", "'players'"]),
    ("sc-unknown-key", lambda f: ["replay", f.sc_unknown_key], lambda f: ["sc_unknown_key.toml", "'seed'"]),
    ("sc-unknown-variant", lambda f: ["replay", f.sc_variant], lambda f: ["sc_variant.toml", "'moscow'"]),
    ("sc-players", lambda f: ["replay", f.sc_players], lambda f: ["sc_players.toml", "not 7"]),
    ("sc-bad-card", lambda f: ["replay", f.sc_bad_card], lambda f: ["sc_bad_card.toml", "deal.hands[0]", "'1Z'"]),
    ("sc-card-twice", lambda f: ["replay", f.sc_twice], lambda f: ["sc_twice.toml", "10C", "dealt twice"]),
    ("sc-talon-not-list", lambda f: ["replay", f.sc_talon_int], lambda f: ["sc_talon_int.toml", "talon"]),
    ("sc-bad-move-token", lambda f: ["replay", f.sc_bad_token], lambda f: ["sc_bad_token.toml", "move 1", "'6X'"]),
    ("sc-illegal-move", lambda f: ["replay", f.sc_illegal],
     lambda f: ["sc_illegal.toml", "move 1", "'AS'", "Ilya", "illegal", "does not hold"]),
    ("sc-moves-missing", lambda f: ["replay", f.sc_short], lambda f: ["sc_short.toml", "move 22", "Yuri", "QC"]),
    ("sc-moves-left-over", lambda f: ["replay", f.sc_long], lambda f: ["sc_long.toml", "move 23", "'8S'", "over"]),
    # ---- sizes and shapes bounded before any allocation
    ("exp-deals-10^12", lambda f: ["run", _write(f.tmp / "huge.toml", GOOD_EXPERIMENT.replace(
        "deals = 20", "deals = 1000000000000")), *RUN], lambda f: ["huge.toml", "'deals'", "too large"]),
    ("exp-deals-int64-max", lambda f: ["run", _write(f.tmp / "max.toml", GOOD_EXPERIMENT.replace(
        "deals = 20", "deals = 9223372036854775807")), *RUN], lambda f: ["max.toml", "'deals'", "too large"]),
    ("exp-matches-10^12", lambda f: ["run", _write(f.tmp / "m.toml", GOOD_EXPERIMENT.replace(
        "deals = 20", "matches = 1000000000000")), *RUN], lambda f: ["m.toml", "'matches'", "too large"]),
    ("exp-chunk-size-10^12",
     lambda f: ["run", _write(f.tmp / "c.toml", GOOD_EXPERIMENT + "chunk_size = 1000000000000\n"), *RUN],
     lambda f: ["c.toml", "'chunk_size'", "too large"]),
    ("exp-too-many-chunks", lambda f: ["run", _write(f.tmp / "many.toml", GOOD_EXPERIMENT.replace(
        "deals = 20", "deals = 10000000000")), *RUN], lambda f: ["many.toml", "200,000 chunks", "chunk_size"]),
    ("run-deals-too-many-chunks", lambda f: ["run", f.exp, "--deals", "10000000000", *RUN],
     lambda f: ["deals override", "chunks"]),
    ("exp-grid-million-cells", lambda f: ["run", _write(f.tmp / "grid.toml", EXP_GRID), *RUN],
     lambda f: ["grid.toml", "'grid'", "1,000,000 cells"]),
    ("exp-deep-toml", lambda f: ["run", _write(f.tmp / "deep.toml", EXP_DEEP), *RUN],
     lambda f: ["deep.toml", "nested more than 32 levels"]),
    ("exp-dev-zero", lambda f: ["run", "/dev/zero", *RUN], lambda f: ["/dev/zero", "not a regular file"]),
    ("exp-fifo", lambda f: ["run", _fifo(f.tmp / "fifo.toml"), *RUN], lambda f: ["fifo.toml", "FIFO"]),
    ("exp-2-GiB-file", lambda f: ["run", _sparse(f.tmp / "big.toml", 2 << 30), *RUN],
     lambda f: ["big.toml", "too large"]),
    ("exp-name-newline", lambda f: ["run", _write(f.tmp / "nl.toml", GOOD_EXPERIMENT.replace(
        'name = "tiny"', 'name = "tiny\\n"')), *RUN], lambda f: ["nl.toml", "'name'"]),
    ("sc-dev-zero", lambda f: ["replay", "/dev/zero"], lambda f: ["/dev/zero", "not a regular file"]),
    ("sc-fifo", lambda f: ["replay", _fifo(f.tmp / "fifo_sc.toml")], lambda f: ["fifo_sc.toml", "FIFO"]),
    ("sc-deep-toml", lambda f: ["replay", _write(f.tmp / "deep_sc.toml", EXP_DEEP)],
     lambda f: ["deep_sc.toml", "nested more than 32 levels"]),
    # ---- output folders durak did not write, damaged stores, lost clusters
    ("out-committed-report", lambda f: ["run", _write(f.tmp / "fp.toml", GOOD_EXPERIMENT.replace(
        '"tiny"', '"first_player"')), "--out", _copied_report(f, "first_player"), *RUN],
     lambda f: ["first_player", "another experiment", "another --out"]),
    ("out-committed-report-fresh", lambda f: ["run", _write(f.tmp / "fp.toml", GOOD_EXPERIMENT.replace(
        '"tiny"', '"first_player"')), "--out", _copied_report(f, "first_player"), "--fresh", *RUN],
     lambda f: ["first_player", "another experiment", "another --out"]),
    ("out-someone-elses-folder", lambda f: ["run", f.exp, "--out", _foreign(f), *RUN],
     lambda f: ["mine", "thesis.tex", "no manifest.json"]),
    ("resume-garbage-fingerprint", lambda f: ["run", f.exp, "--deals", "20", "--out", _damaged(
        f.finished("garbage_fp"), "chunks/FINGERPRINT", b"\xff\xfe\x00"), *RUN],
     lambda f: ["FINGERPRINT", "damaged", "--fresh"]),
    ("report-list-manifest", lambda f: ["report", _damaged(f.finished("list_manifest"), "manifest.json", b"[1, 2]")],
     lambda f: ["manifest.json", "JSON list"]),
    ("report-wrong-columns", lambda f: ["report", _copied_report(f, "quick", "cells")],
     lambda f: ["cells.parquet", "'cell'", "missing"]),
    ("run-scheduler-with-loky", lambda f: ["run", f.exp, "--scheduler", "tcp://127.0.0.1:8786", *RUN],
     lambda f: ["--scheduler", "--backend dask"]),
    # ---- strategy parameters the compiled search cannot take, the decision time limit, --out a file
    ("search-budget-beyond-int64", lambda f: SIM + ["--players", "2", "--strategies",
                                                   "pimc?budget=100000000000000000000,greedy"],
     lambda f: ["pimc?budget=100000000000000000000", "budget must be a whole number"]),
    ("search-rollout-not-compiled", lambda f: SIM + ["--players", "2", "--strategies", "pimc?rollout=ismcts,greedy"],
     lambda f: ["pimc?rollout=ismcts", "rollout must name a strategy with a compiled form"]),
    ("negative-decision-limit", lambda f: ["--decision-limit", "-1", *SIM],
     lambda f: ["--decision-limit", "-1.0"]),
    ("compare-out-is-a-file", lambda f: ["compare", "greedy", "random", "--players", "2", "--deals", "20", "--jobs",
                                         "1", "--out", f.exp],
     lambda f: [f"--out {f.exp}", "is a file, not a folder"]),
    # ---- a research size too large to solve: refused from an estimate, before the build fills the memory
    ("solve-size-too-large", lambda f: ["solve", "--variant", "czech", "--deck", "12", "--hand", "2"],
     lambda f: ["czech 12x2", "--max-nodes 10,000,000"]),
    ("solve-max-nodes-zero", lambda f: ["solve", "--max-nodes", "0"], lambda f: ["--max-nodes", "0"]),
]


@pytest.mark.parametrize("make_args, make_culprits", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_user_mistake(f: Files, make_args, make_culprits) -> None:
    (f.tmp / "empty").mkdir()
    assert_user_error(invoke(make_args(f), cwd=f.tmp), *make_culprits(f))


def test_replay_json_illegal_move_is_one_line_too(f: Files) -> None:
    assert_user_error(invoke(["replay", f.sc_illegal, "--json"], cwd=f.tmp), "move 1", "'AS'", "Ilya")


def test_illegal_move_message_exact(f: Files) -> None:
    line = assert_user_error(invoke(["replay", f.sc_illegal], cwd=f.tmp))
    assert line == (f"durak: error: {f.sc_illegal}: move 1 ('AS') by Ilya: illegal: "
                    "Ilya: does not hold A♠ (legal: 6♣ A♣)")


def test_jobs_zero_above_one_chunk(f: Files) -> None:
    """More than one chunk (100,000 deals) reaches joblib: --jobs 0 must be refused before."""
    assert_user_error(invoke(["simulate", "--deals", "100001", "--jobs", "0"], cwd=f.tmp), "--jobs")


def test_nothing_written_on_refusal(f: Files) -> None:
    before = set(os.listdir(f.tmp))
    invoke(["run", f.exp_bad_rule, "--jobs", "1", "--quiet"], cwd=f.tmp)
    assert set(os.listdir(f.tmp)) == before


# --------------------------------------------------------------------------- the good inputs still work


def test_good_inputs_exit_0(f: Files) -> None:
    """The files the bad cases are mutated from are themselves fine."""
    for args in (["replay", REFERENCE], ["rules", "svinya", "--players", "2"],
                 SIM + ["--strategies", _strats(f"{PLUGIN}:HighestCard")],
                 ["run", f.exp, "--deals", "20", "--jobs", "1", "--quiet", "--out", f.tmp / "out"]):
        res = invoke(args, cwd=f.tmp)
        assert res.exit_code == 0, (args, res.stderr, crash_text(res))
        assert res.stderr == ""


# --------------------------------------------------------------------------- through the real entry point


def _durak(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "analyzer", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", ["unknown-variant", "sc-illegal-move", "exp-bad-toml", "plugin-syntax-error",
                                  "out-under-regular-file"])
def test_subprocess(f: Files, case: str) -> None:
    _, make_args, make_culprits = next(c for c in CASES if c[0] == case)
    p = _durak(*make_args(f), cwd=f.tmp)
    assert "Traceback" not in p.stdout + p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("durak: error: "), p.stderr
    for c in make_culprits(f):
        assert c in lines[0]


def test_subprocess_seed_negative(f: Files) -> None:
    p = _durak(*SIM, "--seed", "-1", cwd=f.tmp)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2


def test_typer_parse_error_in_the_installed_script_is_one_line(f: Files) -> None:
    """A value typer itself cannot parse, through the real `durak` script: exit 2, one line, no traceback."""
    p = _durak("simulate", "--players", "four", cwd=f.tmp)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("durak: error: ") and "'--players'" in lines[0], p.stderr


# --------------------------------------------------------------------------- the catalogue (docs/bad_input.md)


def catalogue() -> str:
    """Run every case and return the markdown table of docs/bad_input.md (input -> what durak printed).

    ``python -m tests.cli.test_bad_input > docs/bad_input.md`` regenerates the generated part.
    """
    import tempfile

    rows = ["| case | command | exit | stderr (exactly as printed) |", "|---|---|---|---|"]
    for name, make_args, _ in CASES:
        with tempfile.TemporaryDirectory(prefix="durak_bad_") as d:
            tmp = Path(d)
            fl = Files(tmp)
            (tmp / "empty").mkdir()
            args = [str(a) for a in make_args(fl)]
            res = invoke(args, cwd=tmp)
            crash = res.exception if crash_text(res) else None
            shown = (f"**traceback**: `{type(crash).__name__}: {' '.join(str(crash).split())}`" if crash
                     else "`" + res.stderr.strip().replace("\n", " ⏎ ") + "`" if res.stderr.strip()
                     else "(nothing)")

            def clean(s: str, tmp: Path = tmp) -> str:
                return s.replace(str(tmp), "<tmp>").replace(str(ROOT) + "/", "").replace("|", "\\|")

            cmd = "durak " + " ".join(a if a and " " not in a else repr(a) for a in args)
            rows.append(f"| {name} | `{clean(cmd)}` | {res.exit_code} | {clean(shown)} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(catalogue(), end="")


PARSE_ERRORS = [
    (["simulate", "--players", "four"], ["Invalid value for '--players'", "durak simulate --help"]),
    (["simulate", "--colour", "red"], ["No such option: --colour"]),
    (["frobnicate"], ["No such command 'frobnicate'"]),
    (["simulate", "--deals"], ["'--deals' requires an argument"]),
    (["rules", "czech", "--players", "x"], ["'--players'", "durak rules --help"]),
]


@pytest.mark.parametrize("argv,needles", PARSE_ERRORS, ids=[" ".join(a) for a, _ in PARSE_ERRORS])
def test_typer_parse_errors_are_one_line_through_the_durak_script(argv, needles, capsys) -> None:
    """The `durak` entry point (analyzer.cli.app.main) turns typer's own parse errors into one line, exit 2."""
    from analyzer.cli.app import main

    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("durak: error: "), err
    assert all(n in lines[0] for n in needles), lines[0]


def test_durak_script_help_and_bare_call(capsys) -> None:
    """--help exits 0 with the help; a bare `durak` shows the help too (exit 2, as typer does)."""
    from analyzer.cli.app import main

    try:
        main(["--help"])  # returns normally: the script then exits 0
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert "simulate" in capsys.readouterr().out
    with pytest.raises(SystemExit) as ei:
        main([])
    assert ei.value.code == 2
    out = capsys.readouterr()
    assert "simulate" in out.out + out.err


def test_the_catalogue_page_lists_every_case() -> None:
    """docs/bad_input.md's generated table has a row for each case and none for a case that is gone (regenerate it
    with ``python -m tests.cli.test_bad_input``)."""
    page = (ROOT / "docs" / "bad_input.md").read_text(encoding="utf-8")
    table = page[page.index("| case | command | exit |"):]
    rows = {line.split("|")[1].strip() for line in table[:table.index("\n\n")].splitlines()[2:]}
    assert rows == {name for name, *_ in CASES}
