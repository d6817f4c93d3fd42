"""The CFR+ solver and exact best responses (analyzer.exact.solver) on games solved by hand."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.exact import solver
from analyzer.exact.tree import Tree


def _tree(nodes: list[tuple[int, int, int, int, float, float]], sets: list[tuple[int, int]]) -> Tree:
    """A tree from rows (parent, kind, actor, set, chance probability, value to player 0); sets: (actor, actions)."""
    parent = np.array([r[0] for r in nodes], np.int64)
    n = len(nodes)
    set_count = np.array([k for _, k in sets], np.int64)
    set_base = np.concatenate([[0], np.cumsum(set_count)[:-1]]).astype(np.int64)
    edge = np.zeros(n, np.int64)
    seen: dict[int, int] = {}
    for c in range(1, n):
        edge[c] = seen.get(int(parent[c]), 0)
        seen[int(parent[c])] = edge[c] + 1
    count = np.bincount(parent[1:], minlength=n).astype(np.int64)
    first = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    return Tree(parent=parent, kind=np.array([r[1] for r in nodes], np.int8),
                actor=np.array([r[2] for r in nodes], np.int8),
                base=np.array([set_base[r[3]] if r[1] == 1 else -1 for r in nodes], np.int64), edge=edge,
                prob=np.array([r[4] for r in nodes]), util=np.array([r[5] for r in nodes]), first=first, count=count,
                kids=(np.argsort(parent[1:], kind="stable") + 1).astype(np.int64), set_base=set_base,
                set_count=set_count, set_actor=np.array([a for a, _ in sets], np.int8),
                set_actions=[list(range(k)) for _, k in sets], set_view=[], deal_of={})


def hidden_matrix_game(payoff: list[list[float]]) -> Tree:
    """Player 0 picks a row unseen, player 1 a column: one set each."""
    rows = [(-1, 1, 0, 0, 0.0, 0.0), (0, 1, 1, 1, 0.0, 0.0), (0, 1, 1, 1, 0.0, 0.0)]
    rows += [(1 + i, 2, -1, -1, 0.0, payoff[i][j]) for i in range(2) for j in range(2)]
    return _tree(rows, [(0, 2), (1, 2)])


def test_cfr_plus_finds_the_mixed_equilibrium_of_a_hidden_matrix_game() -> None:
    """Rows [2, -1] and [-1, 1]: by hand, each plays its first action with 2/5 and the value is 1/5."""
    tree = hidden_matrix_game([[2.0, -1.0], [-1.0, 1.0]])
    sol = solver.solve(tree, target=1e-4, max_iterations=20_000, check_every=10)
    assert sol.exploitability < 1e-4
    assert sol.first_mover_value == pytest.approx(0.2, abs=1e-3)
    assert sol.sigma[0] == pytest.approx(0.4, abs=2e-3) and sol.sigma[2] == pytest.approx(0.4, abs=2e-3)


def test_a_best_response_wins_what_the_hand_computation_says() -> None:
    """Against uniform columns row 0 earns 1/2 (row 1: 0); against uniform rows column 1 concedes 0."""
    tree = hidden_matrix_game([[2.0, -1.0], [-1.0, 1.0]])
    u = solver.uniform(tree)
    assert solver.best_response(tree, u, 0) == pytest.approx(0.5)
    assert solver.best_response(tree, u, 1) == pytest.approx(0.0)
    assert solver.exploitability(tree, u) == pytest.approx(0.25)


def test_chance_and_information_sets_spanning_it() -> None:
    """A fair coin player 1 does not see: heads pays the matrix, tails its negative; player 0 sees the coin.

    By hand, against column 0 with probability q: heads pays max(3q - 1, 1 - 2q), tails max(1 - 3q, 2q - 1);
    their mean is least, 0, at q = 2/5 only (1/6 at q = 1/3, 1/4 at q = 1/2)."""
    m = [[2.0, -1.0], [-1.0, 1.0]]
    rows = [(-1, 0, -1, -1, 0.0, 0.0), (0, 1, 0, 0, 0.5, 0.0), (0, 1, 0, 1, 0.5, 0.0)]
    for coin in range(2):  # player 0's rows under each coin: nodes 3..6
        rows += [(1 + coin, 1, 1, 2, 0.0, 0.0) for _ in range(2)]
    for k in range(4):  # terminals under node 3 + k
        coin, i = divmod(k, 2)
        rows += [(3 + k, 2, -1, -1, 0.0, (1 if coin == 0 else -1) * m[i][j]) for j in range(2)]
    tree = _tree(rows, [(0, 2), (0, 2), (1, 2)])
    sol = solver.solve(tree, target=1e-4, max_iterations=40_000, check_every=10)
    assert sol.exploitability < 1e-4
    q = sol.sigma[4]
    assert q == pytest.approx(0.4, abs=5e-3)
    assert sol.first_mover_value == pytest.approx(0.0, abs=5e-3)


def test_the_random_strategy_states_the_probabilities_it_plays() -> None:
    """random's stated policy matches its answers' frequencies (the solver weighs it by the policy)."""
    from analyzer.core.rules import make_rules
    from analyzer.engine.deal import Deal
    from strategies import get_strategy

    rules = make_rules("czech", 2)
    strat = get_strategy("random")
    deal = Deal.start(rules, [[40, 36, 37], [41, 42, 43]], list(range(28)), 38)  # K? J? ... a wild among the legal
    view = deal.view()
    pol = strat.policy(view)
    assert abs(sum(pol.values()) - 1) < 1e-12
    rng = np.random.default_rng(0)
    counts: dict[tuple[int, int | None], int] = {}
    for _ in range(20_000):
        a = strat.choose(view, rng)
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) == set(pol)
    for a, p in pol.items():
        assert abs(counts[a] / 20_000 - p) < 4 * np.sqrt(p * (1 - p) / 20_000) + 1e-9


@pytest.mark.parametrize("variant", ["czech"])
def test_fixing_the_starters_suit_changes_no_value(variant: str) -> None:
    """The reduced tree (starter or lead of spades only) and the tree of every starter: the same equilibrium value
    and the same value of uniform play, on a research deck with a three-turn cap."""
    from analyzer.exact.research import research_cards, research_rules
    from analyzer.exact.tree import build

    rules = research_rules(variant, 2, {"turn_cap": 3})
    cards = research_cards(rules, 8)
    small, full = build(rules, cards), build(rules, cards, symmetric=False)
    assert 3 * small.n_nodes < full.n_nodes
    assert abs(float(small.prob[small.parent == 0].sum()) - 1) < 1e-12
    assert solver.value(small, solver.uniform(small)) == pytest.approx(solver.value(full, solver.uniform(full)), abs=1e-12)
    a = solver.solve(small, target=1e-4, max_iterations=2_000)
    b = solver.solve(full, target=1e-4, max_iterations=2_000)
    assert a.first_mover_value == pytest.approx(b.first_mover_value, abs=1e-3)


def test_the_node_estimate_reads_a_small_tree_and_the_build_stops_at_its_limit() -> None:
    """Knuth's estimate of czech 8 cards capped at 3 turns is near the tree's count; a build past ``max_nodes``
    stops with one line, and the node limit it names is the one given."""
    from analyzer.exact.research import research_cards, research_rules
    from analyzer.exact.tree import TreeTooLarge, build, estimate_nodes

    rules = research_rules("czech", 2, {"turn_cap": 3})
    cards = research_cards(rules, 8)
    exact = build(rules, cards).n_nodes
    assert 0.8 * exact < estimate_nodes(rules, cards, walks=2_000, seed=1) < 1.25 * exact
    with pytest.raises(TreeTooLarge, match=f"passed {exact // 2:,} nodes") as e:
        build(rules, cards, max_nodes=exact // 2)
    assert "\n" not in str(e.value)
    assert build(rules, cards, max_nodes=exact + 1).n_nodes == exact


def test_the_build_reports_every_hundred_thousandth_node_terminal_or_not() -> None:
    """A build's progress was asked after a node's children only, so a round count that fell on a terminal node was
    never reported (a long build could stay silent)."""
    from analyzer.exact.tree import grow

    class Leaf:  # a chance root over 250,000 terminal leaves
        def __init__(self, root: bool) -> None:
            self.root = root

        def is_terminal(self) -> bool:
            return not self.root

        def returns(self) -> list[float]:
            return [0.0, 0.0]

        def is_chance_node(self) -> bool:
            return self.root

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return [(a, 1 / 250_000) for a in range(250_000)]

        def child(self, action: int) -> Leaf:
            return Leaf(False)

    heard: list[int] = []
    tree = grow([(Leaf(True), 1.0)], key=lambda s, q: 0, progress=heard.append)
    assert tree.n_nodes == 250_001 and heard == [0, 100_000, 200_000]
