"""The games in OpenSpiel's API (analyzer.openspiel): registration, OpenSpiel's own consistency checks, bots."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason='the optional extra is not installed: pip install -e ".[openspiel]"')

import analyzer.openspiel as aos  # noqa: E402  (after the skip: it needs pyspiel)
from analyzer.core.cards import shuffled_decks  # noqa: E402
from analyzer.engine.deal import Deal, play_deal  # noqa: E402
from analyzer.exact.position import decode_action  # noqa: E402
from strategies import get_strategy  # noqa: E402

GAMES = ["durak_czech", "durak_czech(players=4,sevens=True,seven_chain=accumulate,eight_stop=True)",
         "durak_czech(players=3,last_card_call=True,forget_rate=0.5,reshuffle=shuffle)",
         "durak_prague", "durak_prague(players=5,wild_on_anything=False)",
         "durak_svinya(turn_cap=40)", "durak_czech(cards=JS JC JH JD AS AC AH AD KS KC KH KD,hand_size=2)"]


def test_importing_registers_the_three_games() -> None:
    names = set(pyspiel.registered_names())
    assert {"durak_czech", "durak_prague", "durak_svinya"} <= names


def test_every_rule_option_is_a_parameter() -> None:
    from analyzer.core.rules import OPTIONS

    for v in ("czech", "prague", "svinya"):
        params = pyspiel.load_game(f"durak_{v}").get_parameters()
        assert {k for k, (_, _, d) in OPTIONS.items() if v in d} | {"players", "cards"} == set(params)
    g = pyspiel.load_game("durak_czech(players=5,sevens=True)")
    assert g.num_players() == 5 and g.rules.sevens and g.rules.deck_size == 36  # CZ1


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_random_simulation_checks_pass(name: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=3, serialize=False, verbose=False)


def test_player_k_is_position_k_and_the_returns_are_the_engines() -> None:
    """Same deck, the same strategies: the OpenSpiel state ends as the engine's deal does (G2: position 0 = seat 1)."""
    game = pyspiel.load_game("durak_prague(players=3)")
    rules = game.rules
    strategies = [get_strategy("greedy")] * 3
    for i, order in enumerate(shuffled_decks(36, 30, np.random.default_rng(11))):
        order = [int(c) for c in order]
        deal = Deal.from_deck(rules, order)
        out = play_deal(deal, strategies, np.random.default_rng(i))
        state = game.new_initial_state()
        fed = 0
        bots = [aos.bot(game, k, "greedy", seed=k) for k in range(3)]
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(order[fed])
                fed += 1
            else:
                state.apply_action(bots[state.current_player()].step(state))
        assert state.position.deal.outcome.by_position() == out.by_position(), f"deck {i}"
        ret = state.returns()
        if out.winner is not None:
            assert ret[(out.winner - 1) % 3] == 1.0 and min(ret) < 0


def test_information_state_strings_hide_the_other_hands() -> None:
    game = pyspiel.load_game("durak_czech")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    mine = state.information_state_string(0)
    hand1 = state.position.hand(1)
    assert all(t not in mine.split() for t in (aos.game.action_text(c, game.rules) for c in hand1))
    assert all(aos.game.action_text(c, game.rules) in mine for c in state.position.hand(0))


def test_our_strategies_and_openspiels_bots_share_a_table() -> None:
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = pyspiel.load_game("durak_czech")
    wins = 0.0
    for seed in range(20):
        ret = aos.play(game, ["greedy", UniformRandomBot(1, np.random.RandomState(seed))], seed)
        assert sorted(ret) in ([-1.0, 1.0], [0.0, 0.0])
        wins += ret[0] > 0
    assert wins >= 8  # greedy beats uniform random at czech 2p (about 60 %)


def test_a_strategy_that_reads_the_history_plays_through_a_bot() -> None:
    game = pyspiel.load_game("durak_czech")
    ret = aos.play(game, ["tracker", "greedy"], 4)
    assert sorted(ret) in ([-1.0, 1.0], [0.0, 0.0])


def test_the_action_ids_name_a_wild_and_its_suit() -> None:
    rules = pyspiel.load_game("durak_czech").rules
    assert decode_action(54 + 4 * 2 + 1, rules) == (9 * 4 + 2, 1)  # JH naming C


def test_our_cfr_plus_solves_kuhn_poker_as_openspiel_measures_it() -> None:
    """Kuhn poker's value is -1/18 for the first player; OpenSpiel's own best response agrees with ours."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from analyzer.exact import solver
    from analyzer.openspiel.convert import policy_of, tree_of

    game = pyspiel.load_game("kuhn_poker")
    tree = tree_of(game)
    sol = solver.solve(tree, target=1e-4, max_iterations=20_000)
    assert sol.first_mover_value == pytest.approx(-1 / 18, abs=2e-3)
    theirs = os_exploitability.exploitability(game, policy_of(game, tree, sol.sigma))
    assert theirs == pytest.approx(sol.exploitability, abs=1e-9) and theirs < 1e-4



def test_openspiels_cfr_and_ours_agree_on_a_small_durak_deal() -> None:
    """A 4-card czech deal (two Jacks, two Aces; a card each, capped after 4 turns), as OpenSpiel's game: our
    CFR+ on the tree built from the engine, our CFR+ on OpenSpiel's own tree, and OpenSpiel's CFR+ solver find the
    same value within their exploitabilities, and OpenSpiel's best response measures our equilibrium as we do.
    The first mover's value is +3/4 and CFR+ needs tens of iterations to reach it (not a game solved at once,
    nor one whose every deal is capped), yet the tree is small enough for OpenSpiel's Python solver."""
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import expected_game_score
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from analyzer.core.cards import parse_cards
    from analyzer.exact import solver
    from analyzer.exact.research import research_rules
    from analyzer.exact.tree import build
    from analyzer.openspiel.convert import policy_of, tree_of

    cards = "JS JC AS AC"
    game = pyspiel.load_game(f"durak_czech(cards={cards},hand_size=1,turn_cap=4)")
    theirs_tree = tree_of(game)
    ours = solver.solve(theirs_tree, target=1e-4, max_iterations=5_000)
    assert ours.first_mover_value == pytest.approx(0.75, abs=2e-4)
    assert solver.solve(theirs_tree, target=1e-9, max_iterations=1, check_every=1).exploitability > 0.02  # not at once
    measured = os_exploitability.exploitability(game, policy_of(game, theirs_tree, ours.sigma))
    assert measured == pytest.approx(ours.exploitability, abs=1e-9)
    engine = solver.solve(build(research_rules("czech", 1, {"turn_cap": 4}), tuple(parse_cards(cards))),
                          target=1e-4, max_iterations=5_000)
    assert engine.first_mover_value == pytest.approx(ours.first_mover_value, abs=4 * 1e-4)
    cfr = os_cfr.CFRPlusSolver(game)
    for _ in range(8):
        cfr.evaluate_and_update_policy()
    avg = cfr.average_policy()
    e = os_exploitability.exploitability(game, avg)
    v = expected_game_score.policy_value(game.new_initial_state(), [avg, avg])[0]
    assert e < 0.02
    assert abs(v - ours.first_mover_value) <= 2 * e + 2 * ours.exploitability
