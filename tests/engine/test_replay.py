"""Scenario replay (PR8's scenario format) and its one-line errors."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from analyzer.core.cards import DRAW, TAKE, parse_card
from analyzer.engine.replay import ScenarioError, load_scenario, outcome_json, parse_token, replay, scenario_from_dict

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "experiments" / "deal_000_prague_reference.toml"
SCEN = Path(__file__).resolve().parents[1] / "scenarios"


def _ref() -> dict:
    return tomllib.loads(REFERENCE.read_text(encoding="utf-8"))


def _err(data: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        replay(scenario_from_dict(data, "test.toml"))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("test.toml")
    return msg


# ----------------------------------------------------------------- PR8
def test_pr8_reference_deal_replays_to_the_narrated_penalties():
    """PR8: Ilya 17, Stepan 36, Stepan the durak; Yuri goes out."""
    sc = load_scenario(REFERENCE)
    deal, out = replay(sc)
    assert sc.names == ["Stepan", "Yuri", "Ilya"]
    assert out.points == [36, 0, 17]
    assert out.went_out == 1 and out.winner == 1
    assert out.loser == 0 and not out.loser_by_wild and out.wild_holders == []
    j = outcome_json(sc, out)
    # the JSON numbers positions (0 acts first: Yuri, Ilya, then the dealer Stepan), like every output
    assert j["names"] == ["Yuri", "Ilya", "Stepan"]
    assert j["points"] == [0, 17, 36] and j["loser"] == 2 and j["winner"] == 0 and j["went_out"] == 0
    assert not j["blocked"] and not j["capped"]
    assert sorted(deal.hands[0]) == sorted(parse_card(c) for c in "AS 9S 9C 7C".split())
    assert sorted(deal.hands[2]) == sorted(parse_card(c) for c in "7D KD".split())


def test_pr8_reference_deal_with_kc_as_yuris_last_club():
    """PR8: Yuri's last club may be the KC instead of the QC; the penalties are the same."""
    data = _ref()
    data["deal"]["hands"][1] = ["KC" if c == "QC" else c for c in data["deal"]["hands"][1]]
    data["deal"]["moves"] = ["KC" if m == "QC" else m for m in data["deal"]["moves"]]
    _, out = replay(scenario_from_dict(data, "kc.toml"))
    assert out.points == [36, 0, 17] and out.loser == 0


def test_pr8_reference_replay_is_deterministic_across_seeds():
    sc = load_scenario(REFERENCE)
    assert replay(sc, seed=0)[1].points == replay(sc, seed=99)[1].points == [36, 0, 17]


# ----------------------------------------------------------------- tokens
def test_parse_token_forms():
    assert parse_token("8C") == (parse_card("8C"), None)
    assert parse_token("JH>S") == (parse_card("JH"), 0)
    assert parse_token(" jh>d ") == (parse_card("JH"), 3)
    assert parse_token("draw") == (DRAW, None) and parse_token("TAKE") == (TAKE, None)
    assert parse_token("10S") == (parse_card("10S"), None)


# ----------------------------------------------------------------- errors
def test_replay_illegal_token_names_index_player_token_and_illegal():
    data = _ref()
    data["deal"]["moves"][0] = "AH"  # Yuri cannot put the AH on the 10S
    msg = _err(data)
    assert "move 0" in msg and "Yuri" in msg and "'AH'" in msg and "illegal" in msg


def test_replay_illegal_token_later_in_the_deal():
    data = _ref()
    data["deal"]["moves"][1] = "6D"  # Ilya cannot put the 6D on Yuri's 10C
    msg = _err(data)
    assert "move 1" in msg and "Ilya" in msg and "'6D'" in msg and "illegal" in msg


def test_replay_draw_while_holding_a_legal_card_is_illegal():
    data = _ref()
    data["deal"]["moves"][0] = "draw"
    msg = _err(data)
    assert "move 0" in msg and "Yuri" in msg and "illegal" in msg and "draw" in msg


def test_replay_bad_card_token():
    data = _ref()
    data["deal"]["moves"][2] = "ZZ"
    msg = _err(data)
    assert "move 2" in msg and "Stepan" in msg and "'ZZ'" in msg and "bad card" in msg


def test_replay_tokens_left_over():
    data = _ref()
    data["deal"]["moves"] += ["draw", "9S"]
    msg = _err(data)
    assert "move 23" in msg and "over" in msg and "2 token(s) left over" in msg


def test_replay_missing_token():
    data = _ref()
    data["deal"]["moves"].pop()
    msg = _err(data)
    assert "move 22 missing" in msg and "Yuri" in msg and "QC" in msg


@pytest.mark.parametrize("where", ["top", "deal"])
def test_scenario_unknown_key(where):
    data = _ref()
    (data if where == "top" else data["deal"])["colour"] = "red"
    msg = _err(data)
    assert "unknown key" in msg and "colour" in msg


def test_scenario_missing_key():
    data = _ref()
    del data["variant"]
    assert "missing key 'variant'" in _err(data)
    data = _ref()
    del data["deal"]["hands"]
    assert "missing key 'hands'" in _err(data)


def test_scenario_duplicate_card():
    data = _ref()
    data["deal"]["hands"][2][0] = "JC"  # Stepan holds the JC too
    msg = _err(data)
    assert "JC" in msg and "twice" in msg


def test_scenario_duplicate_card_talon_and_hand():
    data = _ref()
    data["deal"]["talon"][0] = "10C"
    msg = _err(data)
    assert "10C" in msg and "twice" in msg and "talon" in msg


def test_scenario_card_not_in_deck():
    data = _ref()
    data["deal"]["talon"].append("2S")  # prague plays 36 cards: 6..A
    msg = _err(data)
    assert "2S" in msg and "36-card deck" in msg


def test_scenario_bad_card_in_hand():
    data = _ref()
    data["deal"]["hands"][0][0] = "1Z"
    msg = _err(data)
    assert "1Z" in msg and "hands[0]" in msg


@pytest.mark.parametrize("rules,needle", [({"sevens": True}, "does not apply"),
                                          ({"hand_size": 99}, "hand_size"),
                                          ({"jokers": 2}, "jokers")])
def test_scenario_bad_rules(rules, needle):
    data = _ref()
    data["rules"] = rules
    msg = _err(data)
    assert needle in msg


def test_scenario_bad_player_count():
    data = _ref()
    data["players"] = 6
    assert "6" in _err(data)


def test_scenario_names_must_match_players():
    data = _ref()
    data["names"] = ["Stepan", "Yuri"]
    assert "names" in _err(data)


def test_scenario_starter_suit_only_for_prague_jack_lead():
    data = _ref()
    data["deal"]["starter"] = "10S>H"
    assert "names a suit" in _err(data)


def test_scenario_svinya_has_no_starter():
    """SV2: no card is turned up; a starter in a svinya scenario is refused."""
    data = tomllib.loads((SCEN / "svinya_lone_queen.toml").read_text())
    data["deal"]["starter"] = "7S"
    assert "SV2" in _err(data)


def test_load_scenario_file_errors(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "nope.toml")
    p = tmp_path / "bad.toml"
    p.write_text("variant = \n")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(p)


# ----------------------------------------------------------------- scenarios per variant
def test_cz8_scenario_sevens_chain_accumulate():
    """CZ8 sevens, accumulate: a chain of three 7s costs the player without a 7 three cards."""
    sc = load_scenario(SCEN / "czech_sevens_accumulate.toml")
    deal, out = replay(sc)
    assert "Emil draws 3 penalty: 8♦ A♠ K♠" in deal.log
    assert out.points == [0, 29, 10] and out.went_out == 0 and out.loser == 1
    j = outcome_json(sc, out)
    assert j["winner"] == (0 - 1) % 3 and not j["blocked"] and j["turns"] == out.turns


def test_cz8_scenario_sevens_chain_transfer_changes_the_deal():
    """CZ8 seven_chain=transfer: the same tokens now fail, because Emil takes only one card."""
    data = tomllib.loads((SCEN / "czech_sevens_accumulate.toml").read_text())
    data["rules"]["seven_chain"] = "transfer"
    msg = _err(data)
    assert "illegal" in msg and "Emil" in msg and "'KS'" in msg  # Emil never drew the KS


def test_pr2_pr5_scenario_jack_lead_names_suit():
    """PR2: a Jack lead named as JC>H; PR5 A/6/7; PR6 points: Olga 9S KH 7S = 26."""
    sc = load_scenario(SCEN / "prague_jack_lead.toml")
    assert sc.starter_suit == 2
    deal, out = replay(sc)
    assert out.points == [26, 0] and out.went_out == 1 and out.loser == 0
    assert "Olga draws 2 penalty: Q♠ 7♥" in deal.log


def test_pr2_scenario_jack_lead_other_suit_is_illegal_first_move():
    """PR2: naming spades for the lead makes Petr's AH illegal."""
    data = tomllib.loads((SCEN / "prague_jack_lead.toml").read_text())
    data["deal"]["starter"] = "JC>S"
    msg = _err(data)
    assert "move 0" in msg and "Petr" in msg and "illegal" in msg


def test_sv5_sv6_scenario_ace_skip_and_lone_queen():
    """SV2 any lead; SV5 Ace skip; SV6 a lone Queen scores 20."""
    sc = load_scenario(SCEN / "svinya_lone_queen.toml")
    deal, out = replay(sc)
    assert "Vera loses the turn" in deal.log
    assert out.points == [20, 0] and out.loser == 0 and out.wild_holders == [0]


def test_g10_full_deck_scenario_cannot_block():
    """G10/G8: scenario talons hold every unlisted card, so a blocked deal needs the Deal.start tests.

    (With a full deck, blocking requires every card but the top in hands with none legal,
    which the suit-mates of the top card make impossible.)  Checked here: the unlisted
    cards really do follow in the talon, in id order.
    """
    sc = load_scenario(SCEN / "svinya_lone_queen.toml")
    assert len(sc.talon) == 36 - 7 and sc.talon == sorted(sc.talon)
    full = load_scenario(REFERENCE)
    assert len(full.talon) == 36 - 17 - 1


@pytest.mark.parametrize("last", ["JC", "JC>H"])
def test_scenario_wild_as_last_card_with_or_without_suit(last):
    """RULES.md scenario notes: a wild played as the last card may carry a suit or not."""
    data = {
        "variant": "czech", "players": 2, "names": ["A", "B"],
        "deal": {"hands": [["AS", "10D"], ["JC"]], "starter": "9H", "moves": [last]},
    }
    deal, out = replay(scenario_from_dict(data, "w.toml"))
    assert out.went_out == 1 and out.points == [21, 0] and out.last_card == parse_card("JC")


def test_pr2_scenario_bare_jack_lead_names_its_own_suit():
    """PR2 scenario: a bare Jack lead (no '>') names its own suit."""
    data = tomllib.loads((SCEN / "prague_jack_lead.toml").read_text())
    data["deal"]["starter"] = "JC"
    sc = scenario_from_dict(data, "bare.toml")
    assert sc.starter_suit is None
    msg = _err(data)  # Petr's AH no longer fits: clubs are active
    assert "move 0" in msg and "Petr" in msg and "illegal" in msg


def test_pr2_scenario_named_jack_lead_needs_starter_effects():
    data = tomllib.loads((SCEN / "prague_jack_lead.toml").read_text())
    data["rules"] = {"starter_effects": False}
    assert "names a suit" in _err(data)
