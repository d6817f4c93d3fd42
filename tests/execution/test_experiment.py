"""Experiment files: parsing, refusal with one-line messages, cell expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.execution.experiment import Experiment, ExperimentError, load_experiment, parse_experiment
from tests import fake_sim

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def load(tmp_path: Path, text: str) -> Experiment:
    return load_experiment(write(tmp_path, text), resolve_strategy=fake_sim.get_strategy)


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ExperimentError) as ei:
        load(tmp_path, text)
    msg = str(ei.value)
    assert "\n" not in msg
    assert msg.startswith(f"{tmp_path / 'x.toml'}: ")
    return msg[len(str(tmp_path / "x.toml")) + 2:]


# --------------------------------------------------------------------------- refusals


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    assert refused(tmp_path, 'variant = "czech"\ndeals = \n').startswith("not valid TOML: ")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match=r"nope\.toml: cannot read: "):
        load_experiment(tmp_path / "nope.toml", resolve_strategy=fake_sim.get_strategy)


def test_unknown_key(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 10\nplayerz = [2]\n')
    assert msg.startswith("key 'playerz': unknown key; known keys: name, ")


@pytest.mark.parametrize("value", ["-5", "0", "1.5", '"many"', "true"])
def test_deals_must_be_positive_integer(tmp_path: Path, value: str) -> None:
    msg = refused(tmp_path, f'variant = "czech"\ndeals = {value}\n')
    assert msg.startswith("key 'deals': must be a positive integer, got ")


def test_deals_message_exact(tmp_path: Path) -> None:
    assert refused(tmp_path, 'variant = "czech"\ndeals = -5\n') == \
        "key 'deals': must be a positive integer, got -5"


def test_no_count(tmp_path: Path) -> None:
    assert refused(tmp_path, 'variant = "czech"\n').startswith("key 'deals': missing")


@pytest.mark.parametrize("text, key", [
    ('variants = "czech"\ndeals = 1\n', "variants"),
    ('variants = ["czech", "russian"]\ndeals = 1\n', "variants"),
    ('variant = "czech"\ndeals = 1\nplayers = "four"\n', "players"),
    ('variant = "czech"\ndeals = 1\nseed = -1\n', "seed"),
    ('variant = "czech"\ndeals = 1\nchunk_size = 0\n', "chunk_size"),
    ('variant = "czech"\ndeals = 1\nlineup = [1, 2]\n', "lineup"),
    ('variant = "czech"\ndeals = 1\nreports = ["pie"]\n', "reports"),
    ('variant = "czech"\ndeals = 1\nname = "../evil"\n', "name"),
    ('variant = "czech"\ndeals = 1\nrules = 3\n', "rules"),
    ('variant = "czech"\ndeals = 1\n[grid]\nsevens = true\n', "grid.sevens"),
    ('variant = "czech"\ndeals = 1\n[grid]\nsevens = [true, true]\n', "grid.sevens"),
])
def test_wrong_types_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    assert refused(tmp_path, text).startswith(f"key '{key}': ")


def test_unknown_strategy(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 1\nlineup = ["random", "clever"]\n')
    assert msg.startswith("key 'lineup': unknown strategy 'clever'")
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 1\nfield = ["clever"]\n')
    assert msg.startswith("key 'field': unknown strategy 'clever'")


def test_unknown_rule_option(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 1\n[rules]\nnines = true\n')
    assert msg.startswith("key 'rules.nines': unknown rule option 'nines'")


def test_bad_rule_value(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 1\nplayers = [2]\n[rules]\nsevens = "maybe"\n')
    assert msg == "key 'rules.sevens': bad value 'maybe' for rule 'sevens': expected on/off"


def test_option_not_of_variant(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variants = ["czech", "prague"]\nplayers = [3]\ndeals = 1\n'
                            '[grid]\nsevens = [false, true]\n')
    assert msg == "key 'grid.sevens': rule 'sevens' does not apply to prague"
    msg = refused(tmp_path, 'variants = ["czech", "svinya"]\ndeals = 1\n[rules.svinya]\neight_stop = true\n')
    assert msg == "key 'rules.svinya.eight_stop': rule 'eight_stop' does not apply to svinya"


def test_impossible_rules(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\nplayers = [6]\ndeals = 1\n[rules]\nhand_size = 7\n')
    assert msg == "key 'rules': czech 6p: deck of 36 is too small for 6 players x 7 cards + 1"
    ok = load(tmp_path, 'variant = "czech"\nplayers = [6]\ndeals = 1\n[rules]\nhand_size = 7\ndeck_size = 52\n')
    assert ok.cells[0].rules.hand_size == 7


def test_impossible_combination_names_the_grid(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\nplayers = [4]\ndeals = 1\n'
                            '[grid]\nhand_size = [5, 8]\ndeck_size = [32, 52]\n')
    assert msg == ("key 'grid': czech 4p hand_size=8 deck_size=32: "
                   "deck of 32 is too small for 4 players x 8 cards + 1")


def test_players_fitting_no_variant(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variants = ["prague", "svinya"]\nplayers = [2, 7]\ndeals = 1\n')
    assert msg == "key 'players': no variant of the experiment is played by 7 players (prague 2..5, svinya 2)"


def test_lineup_longer_than_players(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "svinya"\ndeals = 1\nlineup = ["random", "greedy", "weighted"]\n')
    assert msg.startswith("key 'lineup': 3 strategies for 2 players")


def test_matches_need_a_target(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "prague"\nmatches = 10\n')
    assert msg.startswith("key 'matches': prague has no match target")
    exp = load(tmp_path, 'variant = "prague"\nplayers = 3\nmatches = 10\n[rules.prague]\ntarget = 300\n')
    assert exp.cells[0].rules.target == 300


def test_variant_rules_for_absent_variant(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\ndeals = 1\n[rules.prague]\ntarget = 300\n')
    assert msg == "key 'rules.prague': prague is not among the variants of the experiment"


def test_both_lineup_and_field(tmp_path: Path) -> None:
    assert refused(tmp_path, 'variant = "czech"\ndeals = 1\nlineup = ["random"]\nfield = ["greedy"]\n') \
        .startswith("key 'field': give either lineup or field")


# --------------------------------------------------------------------------- expansion


def test_defaults(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "svinya"\ndeals = 1000\n')
    assert exp.name == "x" and exp.seed == 0 and exp.chunk_size == 50_000
    (cell,) = exp.cells
    assert (cell.variant, cell.players, cell.unit, cell.lineup, cell.n) == ("svinya", 2, "deal", ("random", "random"), 1000)
    assert cell.label == "svinya 2p"


def test_players_skipped_where_not_allowed(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variants = ["czech", "prague", "svinya"]\nplayers = [2, 3, 4, 5, 6]\ndeals = 10\n')
    got = [(c.variant, c.players) for c in exp.cells]
    assert got == [("czech", p) for p in range(2, 7)] + [("prague", p) for p in range(2, 6)] + [("svinya", 2)]
    assert [c.index for c in exp.cells] == list(range(len(got)))


def test_grid_product_and_labels(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "czech"\nplayers = [2, 4]\ndeals = 10\n[rules]\nhand_size = 6\n'
                         '[grid]\nsevens = [false, true]\neight_stop = [false, true]\n')
    assert len(exp.cells) == 8
    c = exp.cells[3]
    assert (c.players, c.grid) == (2, (("sevens", True), ("eight_stop", True)))
    assert c.label == "czech 2p sevens=on eight_stop=on"  # the rules text form, never Python values
    rs = c.rules
    assert rs.sevens and rs.eight_stop and rs.hand_size == 6


def test_field_rotations_put_everyone_everywhere(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "czech"\nplayers = [2, 4]\ndeals = 10\nfield = ["random", "greedy", "weighted"]\n')
    for p in (2, 4):
        lineups = [c.lineup for c in exp.cells if c.players == p]
        assert len(lineups) == 3
        for pos in range(p):
            assert {lu[pos] for lu in lineups} == {"random", "greedy", "weighted"}
    assert exp.cells[0].label == "czech 2p random,greedy"
    two = load(tmp_path, 'variant = "czech"\nplayers = 4\ndeals = 10\nfield = ["random", "greedy"]\n')
    assert [c.lineup for c in two.cells] == [("random", "greedy") * 2, ("greedy", "random") * 2]


def test_lineup_is_cycled(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "czech"\nplayers = [2, 3]\ndeals = 10\nlineup = ["greedy", "random"]\n')
    assert [c.lineup for c in exp.cells] == [("greedy", "random"), ("greedy", "random", "greedy")]


def test_deals_and_matches_make_both_units(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "svinya"\ndeals = 120\nmatches = 7\nchunk_size = 50\n')
    assert [(c.unit, c.n) for c in exp.cells] == [("deal", 120), ("match", 7)]
    assert exp.cells[0].chunks() == [(0, 50), (1, 50), (2, 20)]
    assert exp.cells[1].label == "svinya 2p matches"
    more = exp.with_count(130)
    assert [c.n for c in more.cells] == [130, 130] and more.cells[0].chunks()[:2] == [(0, 50), (1, 50)]
    with pytest.raises(ExperimentError):
        exp.with_count(0)


def test_to_dict_round_trip(tmp_path: Path) -> None:
    text = ('name = "t"\nvariants = ["czech", "prague"]\nplayers = [3]\nfield = ["random", "greedy"]\n'
            'deals = 10\nmatches = 2\nseed = 5\nreports = ["positions", "length"]\n'
            '[rules]\nhand_size = 6\n[rules.prague]\ntarget = 300\n[grid]\nreshuffle = ["turn_over", "shuffle"]\n')
    exp = load(tmp_path, text)
    d = exp.to_dict()
    assert d["rules"] == {"hand_size": 6, "prague": {"target": 300}}
    again = parse_experiment({k: v for k, v in d.items() if k not in ("source", "cells")},
                             source=exp.source, resolve_strategy=fake_sim.get_strategy)
    assert again == exp and again.cells == exp.cells


# --------------------------------------------------------------------------- shipped files


def _real_resolver():  # type: ignore[no-untyped-def]
    registry = pytest.importorskip("analyzer.core.registry")
    return registry.get_strategy


SHIPPED = ("quick", "first_player", "strategies", "wild_penalty", "house_rules")


@pytest.mark.parametrize("stem", SHIPPED)
def test_shipped_experiments_parse(stem: str) -> None:
    path = EXPERIMENTS / f"{stem}.toml"
    exp = load_experiment(path, resolve_strategy=_real_resolver())
    assert exp.name == path.stem and exp.cells
    if exp.counts.get("deal"):
        assert exp.counts["deal"] >= 40_000  # about +-0.5 pp at p = 0.5


def test_quick_is_quick_and_covers_every_variant() -> None:
    exp = load_experiment(EXPERIMENTS / "quick.toml", resolve_strategy=_real_resolver())
    assert {c.variant for c in exp.cells} == {"czech", "prague", "svinya"}
    work = sum(c.n for c in exp.cells if c.unit == "deal") + 20 * sum(c.n for c in exp.cells if c.unit == "match")
    assert work <= 6_000_000  # about a minute at ~100k deals/s


def test_a_grid_crossing_an_option_with_the_one_it_needs_names_it_inactive(tmp_path: Path) -> None:
    exp = load(tmp_path, 'variant = "czech"\nplayers = [4]\ndeals = 1\n'
                         '[grid]\nsevens = [false, true]\nseven_chain = ["transfer", "accumulate"]\n')
    labels = [c.label for c in exp.cells]
    assert labels == ["czech 4p sevens=off seven_chain=transfer",
                      "czech 4p sevens=off seven_chain=accumulate (inactive without sevens=on)",
                      "czech 4p sevens=on seven_chain=transfer", "czech 4p sevens=on seven_chain=accumulate"]


def test_an_option_inactive_in_every_cell_is_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, 'variant = "czech"\nplayers = [4]\ndeals = 1\n[grid]\nseven_chain = ["transfer", "accumulate"]\n')
    assert msg == ("key 'grid': seven_chain changes nothing without sevens=on (in no cell is it on): "
                   "set sevens too, or leave seven_chain out")
    msg = refused(tmp_path, 'variant = "czech"\nplayers = [4]\ndeals = 1\n[rules]\nforget_rate = 0.2\n')
    assert msg.startswith("key 'rules': forget_rate changes nothing without last_card_call=on")
