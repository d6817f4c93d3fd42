"""RuleSet, options and validation (RULES.md "Option names", CZ1, PR1, SV1, CZ8)."""

from __future__ import annotations

import dataclasses

import pytest

from analyzer.core.rules import (
    NEEDS,
    OPTIONS,
    RulesError,
    RuleSet,
    make_rules,
    parse_description,
    parse_rule_args,
    parse_value,
)

# The RULES.md option table: option -> {variant: default}; a missing variant is "—".
TABLE = {
    "hand_size": {"czech": 5, "prague": 6, "svinya": 5},
    "wild_on_anything": {"czech": True, "prague": True, "svinya": True},
    "starter_effects": {"czech": False, "prague": True},
    "sevens": {"czech": False},
    "seven_chain": {"czech": "transfer"},
    "eight_stop": {"czech": False},
    "queen_needs_king": {"czech": False},
    "jack_finish_doubles": {"czech": False},
    "last_card_call": {"czech": False},
    "forget_rate": {"czech": 0.0},
    "no_card": {"czech": "draw_one", "prague": "draw_one", "svinya": "draw_until_play"},
    "voluntary_draw": {"czech": False, "prague": False, "svinya": True},
    "reshuffle": {"czech": "turn_over", "prague": "turn_over", "svinya": "turn_over"},
    "serve_last_effect": {"czech": False, "prague": False, "svinya": False},
    "target": {"czech": 500, "prague": None, "svinya": 100},
    "turn_cap": {"czech": 2000, "prague": 2000, "svinya": 2000},
}
PLAYERS = {"czech": 4, "prague": 3, "svinya": 2}

# A non-default value per option, as a CLI string and as the typed value it must become.
NON_DEFAULT = {
    "deck_size": ("48", 48),
    "hand_size": ("6", 6),
    "wild_on_anything": ("off", False),
    "starter_effects": ("on", True),
    "sevens": ("on", True),
    "seven_chain": ("accumulate", "accumulate"),
    "eight_stop": ("on", True),
    "queen_needs_king": ("on", True),
    "jack_finish_doubles": ("on", True),
    "last_card_call": ("on", True),
    "forget_rate": ("0.25", 0.25),
    "no_card": ("draw_until_play", "draw_until_play"),
    "voluntary_draw": ("on", True),
    "reshuffle": ("shuffle", "shuffle"),
    "serve_last_effect": ("on", True),
    "target": ("250", 250),
    "turn_cap": ("300", 300),
}


#: Where the value above is already the variant's default, the opposite value is used.
OTHER = {"hand_size": ("4", 4), "starter_effects": ("off", False), "no_card": ("draw_one", "draw_one"),
         "voluntary_draw": ("off", False)}


def _non_default(variant: str, option: str) -> tuple[str, object]:
    text, value = NON_DEFAULT[option]
    if getattr(make_rules(variant, PLAYERS[variant]), option) == value:
        text, value = OTHER[option]
    return text, value


def _applies(option: str, variant: str) -> bool:
    if option == "deck_size":
        return True
    return variant in TABLE[option]


# ----------------------------------------------------------------- defaults
@pytest.mark.parametrize("variant", ["czech", "prague", "svinya"])
def test_option_table_defaults_per_variant(variant):
    """RULES.md option table: every default of every variant."""
    r = make_rules(variant, PLAYERS[variant])
    for option, per_variant in TABLE.items():
        if variant in per_variant:
            assert getattr(r, option) == per_variant[variant], option
    opts = r.options()
    for option, per_variant in TABLE.items():
        assert (option in opts) == (variant in per_variant), option


@pytest.mark.parametrize("players,deck", [(2, 32), (3, 32), (4, 32), (5, 36), (6, 36), (7, 52), (8, 52)])
def test_cz1_czech_deck_by_player_count(players, deck):
    """CZ1: 2..4 players -> 32 cards, 5..6 -> 36, 7..8 -> 52."""
    assert make_rules("czech", players).deck_size == deck


@pytest.mark.parametrize("variant,players", [("prague", 2), ("prague", 5), ("svinya", 2)])
def test_pr1_sv1_deck_is_36(variant, players):
    """PR1, SV1: 36 cards."""
    assert make_rules(variant, players).deck_size == 36


def test_g4_wild_rank_per_variant():
    """G4/CZ4/PR3/SV3: Jack is wild in czech and prague, Queen in svinya."""
    assert make_rules("czech", 3).wild_rank == 11
    assert make_rules("prague", 3).wild_rank == 11
    assert make_rules("svinya", 2).wild_rank == 12


def test_cz6_pr6_sv6_point_tables():
    """CZ6/SV6: A=11 K=4 Q=3 J=2, others their number; PR6: 10 J Q K = 10, A = 11."""
    cz, pr, sv = make_rules("czech", 3), make_rules("prague", 3), make_rules("svinya", 2)
    for r in (cz, sv):
        assert [r.points[k] for k in range(2, 15)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4, 11]
    assert [pr.points[k] for k in range(2, 15)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11]
    assert sv.lone_wild_points == 20  # SV6: a lone Queen
    assert cz.lone_wild_points is None and pr.lone_wild_points is None


def test_pr5_sv5_cz8_effect_tables():
    """PR5: A draw 1 + skip, 7 draw 1, 6 draw 2; SV5: A/7/6 skip, 7 draw 1, 6 draw 2; CZ8 sevens/eight_stop."""
    pr = make_rules("prague", 3).effects
    assert (pr[14].draw, pr[14].skip) == (1, True)
    assert (pr[7].draw, pr[7].skip) == (1, False)
    assert (pr[6].draw, pr[6].skip) == (2, False)
    assert all(pr[k].draw == 0 and not pr[k].skip for k in range(8, 14))
    sv = make_rules("svinya", 2).effects
    assert (sv[14].draw, sv[14].skip) == (0, True)
    assert (sv[7].draw, sv[7].skip) == (1, True)
    assert (sv[6].draw, sv[6].skip) == (2, True)
    cz = make_rules("czech", 3).effects
    assert all(e.draw == 0 and not e.skip for e in cz)
    cz = make_rules("czech", 3, {"sevens": True, "eight_stop": True}).effects
    assert (cz[8].draw, cz[8].skip) == (0, True)
    # CZ8 sevens: the 7 makes the next player draw 1 and lose the turn; the chain reads this entry
    assert (cz[7].draw, cz[7].skip) == (1, True)


def test_cz8_sevens_is_the_only_source_of_a_sevens_penalty():
    """CZ8: with sevens on, the 7's penalty comes from seven_penalty (1 card, or one per 7 when
    accumulating, read off the 7's table entry), both in the engine and in the simulator; the entry
    does not also serve as a plain G5 effect (no pending draw besides the chain)."""
    from analyzer.engine.deal import Deal

    on = make_rules("czech", 2, {"sevens": "on", "seven_chain": "accumulate"})
    assert on.seven_penalty(1) == 1 and on.seven_penalty(3) == 3
    assert make_rules("czech", 2, {"sevens": "on"}).seven_penalty(3) == 1
    deal = Deal(rules=on, hands=[[0], [1]], talon=[])
    deal._set_pending(4 * (7 - 2), chain=0)  # the 7 of clubs (card id rank*4 + suit)
    assert (deal.pending_seven, deal.pending_draw, deal.pending_skip) == (1, 0, False)
    import dataclasses

    from analyzer.core.rules import Effect

    doubled = dataclasses.replace(on, effects=tuple(Effect(2, True) if r == 7 else e for r, e in enumerate(on.effects)))
    assert doubled.seven_penalty(3) == 6  # the entry is read, not ignored


# ----------------------------------------------------------------- overrides
def _cases():
    for variant in ("czech", "prague", "svinya"):
        for option in NON_DEFAULT:
            if _applies(option, variant):
                yield variant, option


@pytest.mark.parametrize("variant,option", list(_cases()))
def test_option_table_every_option_settable_by_override(variant, option):
    """Option names: each option of the table is settable through make_rules overrides (typed value)."""
    text, value = _non_default(variant, option)
    partner = dict([NEEDS[option]]) if option in NEEDS else {}  # seven_chain acts with sevens on (CZ8)
    if option == "serve_last_effect" and variant == "czech":  # G9: it needs an effect card to serve (CZ8)
        partner = {"sevens": True}
    r = make_rules(variant, PLAYERS[variant], {option: value, **partner})
    assert getattr(r, option) == value
    assert r.changed().get(option) == value


@pytest.mark.parametrize("variant,option", list(_cases()))
def test_option_table_every_option_settable_by_cli_string(variant, option):
    """Option names: `--rule name=value` strings through parse_rule_args reach the RuleSet."""
    text, value = _non_default(variant, option)
    partner = [f"{NEEDS[option][0]}=on"] if option in NEEDS else []
    if option == "serve_last_effect" and variant == "czech":  # G9: it needs an effect card to serve (CZ8)
        partner = ["sevens=on"]
    args = parse_rule_args([f"{option}={text}", *partner])
    assert args[option] == text
    r = make_rules(variant, PLAYERS[variant], args)
    assert getattr(r, option) == value


@pytest.mark.parametrize("text,value", [("on", True), ("off", False), ("true", True), ("false", False),
                                        ("yes", True), ("no", False), ("1", True), ("0", False)])
def test_option_table_bool_spellings(text, value):
    """Option names: bool options accept on/off and friends."""
    assert make_rules("czech", 3, parse_rule_args([f"sevens={text}"])).sevens is value


@pytest.mark.parametrize("variant", ["czech", "prague", "svinya"])
def test_g11_target_none_means_single_deals(variant):
    """G11 / option target: 'none' switches match play off."""
    assert make_rules(variant, PLAYERS[variant], parse_rule_args(["target=none"])).target is None


def test_pr7_prague_match_target_is_an_option():
    """PR7: match play to a target is an option in prague."""
    assert make_rules("prague", 3, parse_rule_args(["target=200"])).target == 200


def test_cz1_deck_forced_by_user_and_48_allowed():
    """CZ1: any deck may be forced (deck_size), 48 allowed as an option."""
    assert make_rules("czech", 8, {"deck_size": 48}).deck_size == 48
    assert make_rules("czech", 2, {"deck_size": 52}).deck_size == 52
    assert make_rules("czech", 3, parse_rule_args(["deck_size=36"])).deck_size == 36


@pytest.mark.parametrize("hs", [6, 7])
def test_cz8_hand_size_6_or_7(hs):
    """CZ8/CZ2: hand_size 6 or 7."""
    assert make_rules("czech", 4, {"hand_size": hs}).hand_size == hs


def test_several_cli_options_at_once():
    args = parse_rule_args(["sevens=on", "seven_chain=accumulate", "hand_size=6", "target=none"])
    r = make_rules("czech", 3, args)
    assert (r.sevens, r.seven_chain, r.hand_size, r.target) == (True, "accumulate", 6, None)
    assert set(r.changed()) == {"sevens", "seven_chain", "hand_size", "target"}


# ----------------------------------------------------------------- refusals
def _one_line(exc: pytest.ExceptionInfo) -> str:
    msg = str(exc.value)
    assert msg and "\n" not in msg
    return msg


@pytest.mark.parametrize("variant,players", [("czech", 9), ("czech", 1), ("svinya", 7), ("svinya", 3),
                                             ("prague", 6), ("prague", 1)])
def test_cz1_pr1_sv1_refuse_player_counts(variant, players):
    """CZ1: 2..8; PR1: 2..5; SV1: exactly 2 players."""
    with pytest.raises(RulesError) as e:
        make_rules(variant, players)
    msg = _one_line(e)
    assert variant in msg and str(players) in msg


def test_cz1_refuse_deck_too_small_for_deal():
    """CZ1: players x hand + 1 > deck is a configuration error (8 x 7 + 1 = 57 > 52)."""
    with pytest.raises(RulesError) as e:
        make_rules("czech", 8, {"hand_size": 7})
    msg = _one_line(e)
    assert "52" in msg and "small" in msg


def test_cz1_deck_exactly_large_enough_is_accepted():
    """CZ1: players x hand + 1 == deck is fine (4 x 7 + 1 = 29 <= 32; 6 x 5 + 1 = 31 <= 32)."""
    make_rules("czech", 4, {"hand_size": 7})
    make_rules("czech", 6, {"deck_size": 32})  # 31 <= 32
    with pytest.raises(RulesError):
        make_rules("czech", 7, {"deck_size": 32})  # 36 > 32
    with pytest.raises(RulesError):
        make_rules("prague", 5, {"hand_size": 8})  # 41 > 36
    make_rules("prague", 5, {"hand_size": 7})  # 36 <= 36


def test_refuse_unknown_option():
    with pytest.raises(RulesError) as e:
        make_rules("czech", 3, {"jokers": True})
    assert "jokers" in _one_line(e)
    with pytest.raises(RulesError) as e:  # --rule strings are checked once, by make_rules
        make_rules("czech", 3, parse_rule_args(["jokers=on"]))
    assert "jokers" in _one_line(e)


@pytest.mark.parametrize("item", ["sevens=maybe", "hand_size=0", "hand_size=11", "hand_size=six",
                                  "deck_size=40", "forget_rate=1.5", "forget_rate=-0.1", "forget_rate=x",
                                  "seven_chain=double", "no_card=draw_two", "reshuffle=cut",
                                  "target=-5", "target=abc", "turn_cap=0", "turn_cap=many"])
def test_refuse_bad_value(item):
    name = item.split("=")[0]
    with pytest.raises(RulesError) as e:
        make_rules("czech", 3, parse_rule_args([item]))
    msg = _one_line(e)
    assert name in msg


def test_refuse_malformed_cli_item():
    with pytest.raises(RulesError) as e:
        parse_rule_args(["sevens"])
    assert "sevens" in _one_line(e)


@pytest.mark.parametrize("variant,option,value", [
    ("prague", "sevens", True), ("svinya", "sevens", True), ("prague", "eight_stop", True),
    ("prague", "queen_needs_king", True), ("svinya", "jack_finish_doubles", True),
    ("prague", "last_card_call", True), ("svinya", "forget_rate", 0.5),
    ("svinya", "starter_effects", True), ("prague", "seven_chain", "accumulate"),
])
def test_refuse_option_not_applying_to_variant(variant, option, value):
    """Option table "—": the option does not exist in that variant."""
    with pytest.raises(RulesError) as e:
        make_rules(variant, PLAYERS[variant], {option: value})
    msg = _one_line(e)
    assert option in msg and variant in msg


def test_refuse_unknown_variant():
    with pytest.raises(RulesError) as e:
        make_rules("bridge", 4)
    assert "bridge" in _one_line(e)


def test_parse_value_types():
    assert parse_value("hand_size", "7") == 7
    assert parse_value("forget_rate", "1") == 1.0
    assert parse_value("target", "None") is None
    with pytest.raises(RulesError):
        parse_value("hand_size", True)


def test_ruleset_is_frozen():
    r = make_rules("czech", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.sevens = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 4  # type: ignore[misc]
    assert isinstance(r, RuleSet)
    assert hash(r) == hash(make_rules("czech", 3))


def test_ruleset_equal_by_value_and_json_roundtrip():
    import json

    r = make_rules("czech", 5, {"sevens": "on", "hand_size": 6})
    assert r == make_rules("czech", 5, {"sevens": True, "hand_size": 6})
    data = json.loads(r.to_json())
    variant, players = data.pop("variant"), data.pop("players")
    assert make_rules(variant, players, data) == r
    assert r.describe() == "hand_size=6, sevens=on"  # table order, on/off, only what differs
    assert r.label() == "czech 5p hand_size=6, sevens=on"
    assert parse_description(r.describe()) == {"hand_size": 6, "sevens": True}
    assert parse_description(r.to_json()) == {"hand_size": 6, "sevens": True}  # results written before
    assert make_rules("czech", 5, parse_description(r.describe())) == r
    assert make_rules("czech", 4).describe() == "default rules" and parse_description("default rules") == {}


def test_rules_text_orders_options_as_the_table_and_never_shows_python_values():
    r = make_rules("czech", 4, {"seven_chain": "accumulate", "sevens": "on", "target": "none"})
    assert r.describe() == "sevens=on, seven_chain=accumulate, target=none"
    assert "True" not in r.describe() and "{" not in r.describe()
    with pytest.raises(RulesError, match="bogus"):
        parse_description("bogus=1")
    with pytest.raises(RulesError, match="name=value"):
        parse_description("sevens")


def test_players_default_fits_the_variant():
    """SV1: svinya is for two, so a command without --players plays 2; czech and prague 4."""
    assert make_rules("svinya").players == 2
    assert make_rules("czech").players == 4 and make_rules("prague").players == 4


def test_the_match_target_is_checked_in_one_place():
    assert make_rules("czech", 4).for_unit("match").target == 500
    with pytest.raises(RulesError, match="no match target"):
        make_rules("prague", 3).for_unit("match")
    assert make_rules("prague", 3).for_unit("deal").target is None


def test_options_cover_the_table():
    """Every option name of RULES.md is known to the code."""
    assert set(TABLE) | {"deck_size"} <= set(OPTIONS)


@pytest.mark.parametrize("overrides, needs", [
    ({"seven_chain": "accumulate"}, "sevens=on"),
    ({"forget_rate": 0.3}, "last_card_call=on"),
    ({"sevens": False, "seven_chain": "accumulate", "eight_stop": True}, "sevens=on"),
])
def test_an_option_that_cannot_act_is_refused_naming_what_it_needs(overrides: dict, needs: str) -> None:
    """CZ8: a sevens chain without sevens, or forgetting a call nobody makes, would change nothing; refused in one line."""
    name = next(k for k in overrides if k in NEEDS)
    with pytest.raises(RulesError, match=f"^rule {name}=.* changes nothing without {needs}: set {needs} too") as ei:
        make_rules("czech", 4, overrides)
    assert "\n" not in str(ei.value)
    kept = make_rules("czech", 4, overrides, inactive_ok=True)  # a grid crossing the two: kept, and said so
    assert kept.inactive() == {name: needs}


def test_options_that_can_act_are_taken_and_nothing_is_inactive() -> None:
    assert make_rules("czech", 4, {"sevens": True, "seven_chain": "accumulate"}).inactive() == {}
    assert make_rules("czech", 4, {"last_card_call": True, "forget_rate": 0.3}).inactive() == {}
    assert make_rules("czech", 4, {"seven_chain": "transfer"}).inactive() == {}  # the default: nothing claimed
    assert all(make_rules(v).inactive() == {} for v in ("czech", "prague", "svinya"))


def test_g9_serving_the_last_effect_without_an_effect_card_is_refused_naming_what_it_needs():
    """G9/CZ8: czech without sevens or eight_stop has no effect card, so serve_last_effect=on would change nothing:
    refused in one line naming the options that give it something to serve; prague's cards have effects (PR5)."""
    with pytest.raises(RulesError, match=r"serve_last_effect=on changes nothing without .*sevens=on or eight_stop=on"):
        make_rules("czech", 4, {"serve_last_effect": True})
    assert make_rules("czech", 4, {"serve_last_effect": True, "eight_stop": True}).serve_last_effect
    assert make_rules("prague", 4, {"serve_last_effect": True}).serve_last_effect
    assert make_rules("czech", 4, {"serve_last_effect": True}, inactive_ok=True).inactive() == {
        "serve_last_effect": "an effect card (sevens=on or eight_stop=on)"}
