"""``expert``: pimc with the exact endgame -- registered, legal, deterministic, where the choices list it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analyzer.core.cards import shuffled_decks
from analyzer.core.registry import available, get_strategy
from analyzer.core.rules import make_rules
from analyzer.execution.balance_space import parse_space
from analyzer.execution.executor import play_decks
from analyzer.kernel.params import rule_params
from strategies.expert import Expert, ranked_scores

ROOT = Path(__file__).resolve().parents[2]


def test_expert_is_registered_with_pimcs_parameters_and_its_own() -> None:
    assert "expert" in available()
    e = get_strategy("expert?nodes=1000,worlds=64,solve=4")
    assert isinstance(e, Expert) and e.nodes == 1000 and e.worlds == 64 and e.solve == 4
    assert get_strategy("expert").nodes > 0 and get_strategy("expert").solve == 0


def test_a_proven_win_comes_first_and_pimc_ranks_the_rest() -> None:
    pimc = np.array([-0.2, -0.1, -np.inf, -0.3])
    assert int(np.argmax(ranked_scores(np.zeros(4), pimc))) == 1  # nothing proven: pimc's choice
    assert int(np.argmax(ranked_scores(np.array([0, -1, 0, 0]), pimc))) == 0  # pimc's choice is a proven loss
    assert int(np.argmax(ranked_scores(np.array([-1, -1, 1, 1]), pimc))) == 3  # two wins: the one pimc ranks higher
    assert int(np.argmax(ranked_scores(np.array([-1, -1, -1, -1]), pimc))) == 1  # all lose: pimc's choice
    assert int(np.argmax(ranked_scores(np.array([0, 0]), np.array([-0.5, -0.5])))) == 0  # a tie: the first


def test_the_endgame_is_left_out_where_it_is_not_exact() -> None:
    class Row:
        in_match = False

    e = Expert()
    assert e.exact(rule_params(make_rules("czech", 2, {})), Row())
    assert not e.exact(rule_params(make_rules("czech", 3, {})), Row())
    assert not e.exact(rule_params(make_rules("czech", 2, {"reshuffle": "shuffle"})), Row())
    assert not e.exact(rule_params(make_rules("czech", 2, {"last_card_call": True, "forget_rate": 0.1})), Row())
    assert not e.exact(rule_params(make_rules("czech", 2, {"voluntary_draw": True})), Row())  # G7
    assert not e.exact(rule_params(make_rules("svinya", 2, {})), Row())  # SV4: drawing at will
    Row.in_match = True
    assert not e.exact(rule_params(make_rules("czech", 2, {})), Row())
    assert not Expert(nodes=0).exact(rule_params(make_rules("czech", 2, {})), Row)


def _play(variant: str, spec: str, decks: np.ndarray, seed: int) -> tuple[np.ndarray, object]:
    rules = make_rules(variant, 2, {})
    e = get_strategy(spec)
    res = play_decks(rules, [e, get_strategy("weighted")], decks, np.random.SeedSequence(seed))
    return np.stack([res.winner, res.turns, res.points[:, 0]]), e


def test_expert_plays_legal_deals_the_same_for_a_seed_and_its_endgame_acts() -> None:
    """The simulator refuses an illegal move; the same seed gives the same deals.  Long deals reach an empty
    talon with both hands still held where many turns are lost and few cards follow a Queen (hands of 10 on czech's
    32 cards, eight_stop, queen_needs_king: CZ8)."""
    for variant in ("czech", "prague"):
        decks = shuffled_decks(make_rules(variant, 2, {}).deck_size, 12, np.random.default_rng(5))
        a, _ = _play(variant, "expert", decks, 1)
        b, _ = _play(variant, "expert", decks, 1)
        assert (a == b).all()
    rules = make_rules("czech", 2, {"hand_size": 10, "queen_needs_king": True, "eight_stop": True})
    decks = shuffled_decks(rules.deck_size, 8, np.random.default_rng(2))
    e = get_strategy("expert?nodes=5000")
    play_decks(rules, [e, get_strategy("weighted")], decks, np.random.SeedSequence(4))
    assert e.positions > 0 and e.solved > 0  # the endgame searched, and its values changed a choice of pimc's


def test_expert_is_a_strong_player_for_balance() -> None:
    space = parse_space({"variant": "czech", "players": 2, "strong": "expert", "space": {"sevens": [False, True]}})
    assert space.strong == "expert"


def test_in_svinya_expert_does_not_draw_on_to_put_off_a_proven_loss() -> None:
    """G7/SV4: with the endgame on, a seat whose every play was a proven loss drew on from a pile that turns over,
    and self-play deals of these decks ran 200, 409 and 934 turns (25 million positions searched).  Drawing at will
    leaves the endgame out: the endgame searches nothing and no deal runs long."""
    rules = make_rules("svinya", 2, {})
    decks = shuffled_decks(rules.deck_size, 6, np.random.default_rng(5))
    e = get_strategy("expert")
    res = play_decks(rules, [e, get_strategy("expert")], decks, np.random.SeedSequence(5))
    assert e.positions == 0 and int(res.turns.max()) < 400, res.turns


def test_a_tuned_rollout_is_the_preset_of_the_rules_and_the_default_is_pimcs() -> None:
    """``expert?rollout=tuned`` rolls out with the tuned preset of the variant and player count (default weighted
    where none was tuned); ``expert`` keeps pimc's rollout and adaptive stop (docs/perfect_play.md: the preset's
    rollouts win more from the preset and lose to the defaults head to head)."""
    from analyzer.core.registry import get_strategy
    from analyzer.core.rules import make_rules

    tuned = get_strategy("expert?rollout=tuned")
    for variant, players, name in (("czech", 2, "weighted?preset=czech-2p"), ("prague", 2, "weighted?preset=prague-2p"),
                                   ("svinya", 2, "weighted?preset=svinya-2p"), ("czech", 5, "weighted")):
        assert tuned.rollout_for(make_rules(variant, players, {})).name == name
    plain = get_strategy("expert")
    assert plain.rollout_for(make_rules("czech", 2, {})).name == "weighted"
    assert plain.tolerance == get_strategy("pimc").tolerance > 0
    assert get_strategy("expert?rollout=greedy").rollout_for(make_rules("czech", 2, {})).name == "greedy"
