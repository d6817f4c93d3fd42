"""Fuzzing the CLI: mutated command lines and mutated input files never crash it.

Whatever is thrown at ``durak``, the outcome must be one of

* exit code 0;
* exit code 2 with exactly one stderr line starting ``durak: error:`` (our own refusals);
* exit code 2 with typer's usage box (``Usage:`` on stderr) for what the parser refuses;

and never an escaped exception, a ``Traceback`` or another exit code.

Command lines start from valid ones and are mutated (tokens dropped, duplicated,
replaced, inserted, swapped; option values drawn from negative, huge, empty and
unicode values).  Files start from valid scenario and experiment files and are
mutated structurally (keys deleted, values retyped) and textually (truncated,
garbage bytes injected, lines dropped or repeated).

Work is bounded by construction: any ``--deals`` is capped at 200 and any
``--matches`` at 5 after mutation, ``--jobs`` is forced to 0 or 1 (0 is an
error; 1 keeps joblib in-process), the dask backend is never chosen and
``bench`` is never run.  Everything runs in a fresh temporary working folder.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
import tomllib
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analyzer.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "experiments" / "deal_000_prague_reference.toml"
SCENARIOS = [REFERENCE, *sorted((ROOT / "tests" / "scenarios").glob("*.toml"))]
PLUGIN = ROOT / "tests" / "plugin_example.py"

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
except TypeError:  # click >= 8.2: stderr is always captured on its own
    RUNNER = CliRunner()

DEALS_CAP = 200
MATCHES_CAP = 5
FUZZ = settings(max_examples=80, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --------------------------------------------------------------------------- experiment bases

TINY = {"name": "fz_tiny", "variant": "czech", "players": 2, "lineup": ["random"], "deals": 100,
        "reports": ["positions"]}
MEDIUM = {
    "name": "fz_medium", "description": "fuzz base", "variants": ["czech", "prague"], "players": [3],
    "field": ["random", "greedy"], "deals": 1000, "seed": 7, "chunk_size": 500, "reports": [],
    "rules": {"hand_size": 5, "czech": {"sevens": True}}, "grid": {"reshuffle": ["turn_over", "shuffle"]},
}
MATCHES = {
    "name": "fz_matches", "variant": "svinya", "lineup": ["greedy", "random"], "matches": 10,
    "match_chunk_size": 5, "seed": 3, "reports": ["positions", "length"], "rules": {"target": 60},
}
BASES = [TINY, MEDIUM, MATCHES]


def toml_value(v: Any) -> str:
    """A TOML inline value (enough for what the fuzzer builds: no dates)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_dumps(d: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(str(k))} = {toml_value(v)}\n" for k, v in d.items())


def test_toml_writer_round_trips() -> None:
    for base in BASES + [tomllib.loads(p.read_text(encoding="utf-8")) for p in SCENARIOS]:
        assert tomllib.loads(toml_dumps(base)) == base


# --------------------------------------------------------------------------- running and the contract


def crash_text(res) -> str:
    exc = res.exception
    if exc is None or isinstance(exc, SystemExit):
        return ""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def invoke(args: Sequence[str], cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return RUNNER.invoke(app, list(args), catch_exceptions=True)
    finally:
        os.chdir(old)


def check_contract(res, args: Sequence[str]) -> None:
    crash = crash_text(res)
    assert not crash, f"durak {args!r} raised:\n{crash}"
    out, err = res.stdout, res.stderr
    assert "Traceback" not in out + err, f"durak {args!r}:\n{out}\n{err}"
    assert res.exit_code in (0, 2), f"durak {args!r}: exit {res.exit_code}\n{err}"
    if res.exit_code == 2:
        if err.startswith("durak: error: "):
            assert len(err.splitlines()) == 1, f"durak {args!r}: multi-line error {err!r}"
        else:  # typer/click refused the command line itself (usage line, its plain or boxed error), or printed help
            plain = err.startswith("Error: ") and len(err.strip().splitlines()) == 1
            assert "Usage:" in err + out or "─ Error ─" in err or plain, \
                f"durak {args!r}: exit 2 without a message: {err!r} {out!r}"


# --------------------------------------------------------------------------- shared inputs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    """Input files and a finished experiment folder, shared read-mostly by every example."""
    d = tmp_path_factory.mktemp("fuzz_inputs")
    exp = d / "tiny.toml"
    exp.write_text(toml_dumps(TINY), encoding="utf-8")
    regular = d / "regular_file"
    regular.write_text("x\n")
    done = d / "done"
    res = invoke(["run", str(exp), "--deals", "20", "--jobs", "1", "--quiet", "--out", str(done)], cwd=d)
    assert res.exit_code == 0, res.stderr
    return {"exp": str(exp), "regular": str(regular), "done": str(done), "dir": str(d),
            "scenario": str(REFERENCE), "plugin": f"{PLUGIN}:HighestCard"}


@pytest.fixture(scope="module")
def workdir():
    """A factory of fresh working folders: one per hypothesis example."""
    made: list[str] = []

    def make() -> Path:
        made.append(tempfile.mkdtemp(prefix="durak_fuzz_"))
        return Path(made[-1])

    yield make
    for m in made:
        shutil.rmtree(m, ignore_errors=True)


# --------------------------------------------------------------------------- command lines


def seed_lines(i: dict[str, str]) -> list[list[str]]:
    return [
        ["simulate", "--variant", "czech", "--players", "4", "--deals", "50", "--seed", "1"],
        ["simulate", "--variant", "svinya", "--players", "2", "--deals", "40", "--strategies", "greedy,random",
         "--json", "--check"],
        ["simulate", "--variant", "prague", "--players", "3", "--deals", "30", "--rule", "hand_size=5",
         "--rule", "reshuffle=shuffle", "--strategies", f"random,{i['plugin']},greedy"],
        ["simulate", "--variant", "czech", "--players", "2", "--matches", "3", "--rule", "target=100"],
        ["replay", i["scenario"]],
        ["replay", i["scenario"], "--json"],
        ["rules", "prague"],
        ["rules", "czech", "--players", "8"],
        ["strategies"],
        ["run", i["exp"], "--deals", "100", "--out", "out", "--quiet"],
        ["run", i["exp"], "--deals", "20", "--out", "out", "--fresh", "--check", "--quiet"],
        ["report", i["done"]],
        ["compare", "random", "greedy", "--players", "2", "--deals", "20"],
    ]


OPTIONS = ["--variant", "--players", "--strategies", "--deals", "--matches", "--seed", "--rule", "-r", "--jobs",
           "--check", "--json", "--out", "--fresh", "--quiet", "--backend", "--scheduler", "--help"]
COMMANDS = ["simulate", "replay", "rules", "strategies", "run", "report", "compare"]
RULE_ITEMS = ["sevens=on", "sevens=maybe", "bogus=1", "hand_size=-1", "hand_size=7", "deck_size=32",
              "deck_size=52", "turn_cap=1", "turn_cap=0", "target=none", "target=50", "forget_rate=0.5",
              "last_card_call=on", "seven_chain=accumulate", "no_card=draw_until_play", "=", "sevens=",
              "lone_wild_points=30", "wild_on_anything=off", "queen_needs_king=on", "eight_stop=yes"]
STRATEGY_SPECS = ["random", "greedy", "aggressive", "suit-keeper", "wild-keeper", "wild-dumper",
                  "weighted?w_points=2", "weighted?nope=1", "nosuch", "x.py:Y", "no_module:Y", "?", ":",
                  "random,random", "greedy,greedy,greedy", "random,greedy,random,greedy"]
VALUES = ["czech", "prague", "svinya", "moscow", "", " ", "0", "-1", "1", "2", "3", "8", "-0", "1e3", "2.5",
          "99999999999999999999999", "-99999999999999999999", "nan", "čeština", "♠♣♥♦", "名前", "--", "-",
          "loky", "spark", "tcp://127.0.0.1:1"]


def pool(i: dict[str, str]) -> list[str]:
    paths = [i["exp"], i["scenario"], i["dir"], i["regular"], i["done"], "out", "nonexistent.toml",
             f"{i['regular']}/sub", str(PLUGIN), i["plugin"]]
    return OPTIONS + COMMANDS + RULE_ITEMS + STRATEGY_SPECS + VALUES + paths


# unicode text that a real argv can carry: no NUL, no lone surrogates
ARG_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


def tokens(i: dict[str, str]):
    return st.one_of(
        st.sampled_from(pool(i)),
        st.integers(-10**30, 10**30).map(str),
        st.integers(-3, 300).map(str),
        ARG_TEXT,
        st.sampled_from(RULE_ITEMS).map(lambda r: r.split("=")[0]).flatmap(
            lambda k: st.one_of(st.integers(-10**6, 10**6).map(str), ARG_TEXT).map(lambda v: f"{k}={v}")),
    )


@st.composite
def command_lines(draw, i: dict[str, str]) -> list[str]:
    line = list(draw(st.sampled_from(seed_lines(i))))
    tok = tokens(i)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["drop", "dup", "replace", "insert", "swap", "value"]))
        if not line and op != "insert":
            op = "insert"
        k = draw(st.integers(0, max(0, len(line) - 1)))
        if op == "drop":
            del line[k]
        elif op == "dup":
            line.insert(k, line[k])
        elif op == "replace":
            line[k] = draw(tok)
        elif op == "insert":
            line.insert(draw(st.integers(0, len(line))), draw(tok))
        elif op == "swap":
            j = draw(st.integers(0, len(line) - 1))
            line[k], line[j] = line[j], line[k]
        else:  # a random value for an option that takes one
            opts = [n for n, t in enumerate(line[:-1]) if t.startswith("-") and not t[1:2].isdigit()]
            if opts:
                line[draw(st.sampled_from(opts)) + 1] = draw(tok)
    return sanitize(line)


def _int(s: str) -> int | None:
    try:
        return int(s.strip())
    except ValueError:
        return None


def sanitize(line: list[str]) -> list[str]:
    """Bound the work a mutated line can ask for (see the module docstring)."""
    out: list[str] = []
    for t in line:  # split --opt=value so that the caps below see the value
        m = re.match(r"^(--[a-z-]+)=(.*)$", t, re.S)
        out += [m.group(1), m.group(2)] if m else [t]
    caps = {"--deals": DEALS_CAP, "--matches": MATCHES_CAP, "--simple-deals": DEALS_CAP,
            "--engine-deals": DEALS_CAP}
    for n in range(len(out) - 1):
        opt, val = out[n], out[n + 1]
        v = _int(val)
        if opt in caps and v is not None and v > caps[opt]:
            out[n + 1] = str(caps[opt])
        elif opt == "--jobs" and v is not None and v not in (0, 1):
            out[n + 1] = "1"
        elif opt == "--backend" and val.strip().lower() == "dask":
            out[n + 1] = "loky"
    if out and out[0] == "bench":
        out[0] = "rules"
    if out and out[0] in ("run", "simulate", "compare"):
        out[1:1] = ["--jobs", "1"]  # a later --jobs (0 or 1 only) still wins
    return out


def test_sanitize_bounds_work() -> None:
    assert sanitize(["simulate", "--deals", "100000", "--jobs", "-1", "--deals=5000"]) == \
        ["simulate", "--jobs", "1", "--deals", "200", "--jobs", "1", "--deals", "200"]
    assert sanitize(["run", "x.toml", "--backend", "dask", "--matches", "99"]) == \
        ["run", "--jobs", "1", "x.toml", "--backend", "loky", "--matches", "5"]
    assert sanitize(["bench"]) == ["rules"]


def test_seed_lines_are_valid(inputs, workdir) -> None:
    for line in seed_lines(inputs):
        args = sanitize(line)
        res = invoke(args, workdir())
        assert res.exit_code == 0, (args, res.stderr, crash_text(res))


@FUZZ
@given(data=st.data())
def test_fuzz_command_lines(inputs, workdir, data) -> None:
    args = data.draw(command_lines(inputs), label="args")
    check_contract(invoke(args, workdir()), args)


# --------------------------------------------------------------------------- files


def json_like(max_leaves: int = 6):
    scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.integers(-3, 12),
                       st.floats(allow_nan=True), st.text(max_size=10),
                       st.sampled_from(["czech", "prague", "svinya", "random", "greedy", "10S", "JH>S", "draw",
                                        "take", "QS", "7C", "on", "off", "positions"]))
    return st.recursive(scalar, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
        max_leaves=max_leaves)


def _paths(d: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside nested dicts/lists."""
    out = [prefix] if prefix else []
    if isinstance(d, dict):
        for k, v in d.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for n, v in enumerate(d):
            out += _paths(v, prefix + (n,))
    return out


def _drop_none(v: Any) -> Any:
    """TOML has no null: a None becomes a missing key / list element."""
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_drop_none(x) for x in v if x is not None]
    return v


@st.composite
def mutated_table(draw, base: dict[str, Any]) -> dict[str, Any]:
    d = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(d)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = d
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        op = draw(st.sampled_from(["delete", "retype", "retype", "add"]))
        if op == "delete":
            del parent[last]
        elif op == "retype":
            parent[last] = draw(json_like())
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["deal", "hands", "talon", "moves", "rules", "grid", "players", "seed",
                                         "extra", "lineup", "field", "deals", "matches", "target"]))] = \
                draw(json_like())
        else:
            parent.append(draw(json_like()))
    return _drop_none(d)


@st.composite
def mutated_bytes(draw, text: str) -> bytes:
    b = text.encode("utf-8")
    op = draw(st.sampled_from(["truncate", "garbage", "drop_line", "dup_line", "flip"]))
    if op == "truncate":
        return b[: draw(st.integers(0, len(b)))]
    if op == "garbage":
        k = draw(st.integers(0, len(b)))
        return b[:k] + draw(st.binary(min_size=1, max_size=8)) + b[k:]
    lines = b.splitlines(keepends=True)
    k = draw(st.integers(0, max(0, len(lines) - 1)))
    if op == "drop_line" and lines:
        del lines[k]
    elif op == "dup_line" and lines:
        lines.insert(k, lines[k])
    elif lines:
        line = bytearray(lines[k])
        if line:
            line[draw(st.integers(0, len(line) - 1))] = draw(st.integers(0, 255))
        lines[k] = bytes(line)
    return b"".join(lines)


def mutated_file(base_text: str, base_table: dict[str, Any]):
    return st.one_of(mutated_table(base_table).map(lambda t: toml_dumps(t).encode("utf-8")),
                     mutated_bytes(base_text))


SCENARIO_TEXTS = [p.read_text(encoding="utf-8") for p in SCENARIOS]


@FUZZ
@given(data=st.data())
def test_fuzz_scenario_files(workdir, data) -> None:
    n = data.draw(st.integers(0, len(SCENARIO_TEXTS) - 1), label="scenario")
    text = SCENARIO_TEXTS[n]
    content = data.draw(mutated_file(text, tomllib.loads(text)), label="file")
    wd = workdir()
    path = wd / "scenario.toml"
    path.write_bytes(content)
    as_json = data.draw(st.booleans(), label="json")
    args = ["replay", str(path)] + (["--json"] if as_json else [])
    check_contract(invoke(args, wd), args)


@FUZZ
@given(data=st.data())
def test_fuzz_experiment_files(workdir, data) -> None:
    base = data.draw(st.sampled_from(BASES), label="base")
    content = data.draw(mutated_file(toml_dumps(base), base), label="file")
    wd = workdir()
    path = wd / "experiment.toml"
    path.write_bytes(content)
    args = ["run", str(path), "--deals", str(data.draw(st.integers(1, 10), label="deals")), "--jobs", "1",
            "--quiet", "--out", str(wd / "out")]
    check_contract(invoke(args, wd), args)
