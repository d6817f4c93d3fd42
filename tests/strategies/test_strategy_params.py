"""Every strategy parameter is checked in the constructor against what the compiled path takes.

A budget beyond int64 or a rollout with no compiled form (a search player, a
plugin) passed the constructor, then failed at the first decision as "the
strategy raised TypingError / NotCompiled" and wrote a fault scenario; ``durak
tune pimc`` handed CMA-ES's decimals to whole-number parameters, so it could
never run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.core.registry import StrategySpecError, get_strategy
from analyzer.execution.runs.tune import param_bounds, spec_with
from tests.cli.test_bad_input import assert_user_error, invoke

HUGE = "1" + "0" * 20


@pytest.mark.parametrize("spec, culprits", [
    (f"pimc?budget={HUGE}", ("budget must be a whole number", "1,000,000,000,000", HUGE)),
    (f"ismcts?budget={HUGE}", ("budget must be a whole number", HUGE)),
    (f"ismcts?depth={HUGE}", ("depth must be a whole number", HUGE)),
    ("pimc?worlds=2.5", ("worlds must be a whole number from 1 to 4,096", "2.5")),
    ("pimc?worlds=1024.0", ("worlds must be a whole number", "1024.0")),
    ("ismcts?iterations=0", ("iterations must be a whole number from 1", "0")),
    ("pimc?z=0", ("z must be a number of standard errors above 0", "0")),
    ("pimc?tolerance=-1", ("tolerance must be a number", "-1")),
    ("pimc?rollout=ismcts", ("rollout must name a strategy with a compiled form", "'ismcts'")),
    ("ismcts?rollout=pimc", ("rollout must name a strategy with a compiled form", "'pimc'")),
    ("pimc?rollout=tests/plugin_example.py:HighestCard", ("rollout must name a strategy with a compiled form",
                                                         "HighestCard")),
    (f"weighted?w_wild={'9' * 400}", ("weight w_wild must be a finite number",)),
])
def test_a_value_the_compiled_path_cannot_take_is_refused_by_the_constructor(spec: str, culprits: tuple[str, ...]
                                                                           ) -> None:
    with pytest.raises(StrategySpecError) as err:
        get_strategy(spec)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"strategy {spec}: cannot build it: ValueError: ")
    for c in culprits:
        assert c in msg, msg


def test_a_rollout_with_a_compiled_form_and_its_parameters_is_accepted() -> None:
    assert get_strategy("pimc?rollout=weighted?w_wild=1,worlds=8").rollout.weights["w_wild"] == 1.0


def test_a_bad_parameter_stops_simulate_before_any_deal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DURAK_FAULT_DIR", str(tmp_path / "faults"))
    res = invoke(["simulate", "--variant", "czech", "--players", "2", "--deals", "20", "--jobs", "1",
                  "--strategies", f"pimc?budget={HUGE},greedy"], tmp_path)
    assert_user_error(res, f"pimc?budget={HUGE}", "budget must be a whole number")
    assert not (tmp_path / "faults").exists()


def test_tune_rounds_whole_number_parameters_within_their_bounds() -> None:
    assert spec_with("pimc", ["worlds", "z"], [747.4, 2.5], whole={"worlds"}) == "pimc?worlds=747,z=2.5"
    bounds, whole = param_bounds("pimc", ["worlds", "budget", "tolerance", "z"])
    assert whole == {"worlds", "budget"}
    assert bounds is not None and bounds[0][:3] == [1, 0, 0] and bounds[1][:2] == [4096.0, 1e12]
    assert 0 < bounds[0][3] < 1e-3 and bounds[1][3] == 100.0  # z: above 0
    assert param_bounds("weighted", ["w_wild"]) == (None, set())


def test_durak_tune_pimc_runs(tmp_path: Path) -> None:
    res = invoke(["tune", "pimc", "--players", "2", "--budget", "2", "--decks", "2", "--holdout", "2", "--jobs", "1",
                  "--out", str(tmp_path / "t"), "--json"], tmp_path)
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    tuned = get_strategy(out["spec"])  # the spec that ships builds
    assert isinstance(tuned.worlds, int) and isinstance(tuned.budget, int)
    assert float(out["tuned"]["worlds"]).is_integer() and float(out["tuned"]["budget"]).is_integer()
