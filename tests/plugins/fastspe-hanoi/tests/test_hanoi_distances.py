"""The solver's goal distances against a brute-force twin, the independent verifier's search and the known
closed forms; its plans are optimal certificates."""

from __future__ import annotations

from collections import Counter

import pytest

from fastspe_hanoi.rules import PEGS, RULES, TOKENS, goal_text, move, pegs_text, read_start, state_code, state_pegs
from fastspe_hanoi.solver import distance_table, solve_state
from fastspe_hanoi.verify.replay import distances as verifier_distances
from fastspe_hanoi.verify.replay import read_stacks


def brute_force_distance(start: tuple[int, ...], rule: str) -> int:
    """Fewest moves from ``start`` to the goal: every plan of length 0, 1, 2, ... tried in turn (layers of the set of
    states a plan of that length can reach, from the start, never from the goal)."""
    goal = read_start(goal_text(len(start)))
    reach, length = {start}, 0
    while goal not in reach:
        reach = {
            after for pegs in reach for code in range(len(TOKENS)) if (after := move(pegs, code, rule)[0]) is not None
        }
        length += 1
        assert length <= 3 ** len(start)
    return length


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("disks", [1, 2, 3, 4])
def test_distances_equal_the_brute_force_twin(disks, rule):
    table = distance_table(disks, rule)
    for code in range(3**disks):
        assert table.dist[code] == brute_force_distance(state_pegs(code, disks), rule), pegs_text(
            state_pegs(code, disks)
        )


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("disks", [1, 3, 5, 7])
def test_distances_equal_the_independent_verifiers_search(disks, rule):
    table, theirs = distance_table(disks, rule), verifier_distances(disks, rule)
    assert len(theirs) == 3**disks
    for code in range(3**disks):
        assert theirs[read_stacks(pegs_text(state_pegs(code, disks)))] == table.dist[code]


@pytest.mark.parametrize("disks", range(1, 11))
def test_the_closed_forms(disks):
    classic, adjacent = distance_table(disks, "classic").dist, distance_table(disks, "adjacent").dist
    assert classic.min() == 0 and adjacent.min() == 0  # every state reaches the goal
    assert classic.max() == 2**disks - 1 and classic[state_code((0,) * disks)] == 2**disks - 1
    # classic: depth d holds 2**(ones of d) states; adjacent: the state graph is one path, a state per depth
    assert Counter(classic.tolist()) == {d: 2 ** bin(d).count("1") for d in range(2**disks)}
    assert sorted(adjacent.tolist()) == list(range(3**disks))
    assert adjacent[state_code((0,) * disks)] == 3**disks - 1


@pytest.mark.parametrize("rule", RULES)
def test_plans_are_optimal_and_legal(rule):
    disks = 5
    table = distance_table(disks, rule)
    for code in range(3**disks):
        pegs, plan = state_pegs(code, disks), table.plan(code)
        assert len(plan) == table.dist[code]
        for symbol in plan:
            pegs, _, error = move(pegs, "abcdef".index(symbol), rule)
            assert error == 0
        assert pegs == (PEGS.index("C"),) * disks


def test_solve_state_answers_tokens():
    assert solve_state("CAB", "adjacent") == {
        "length": 11,
        "moves": "CB,BA,BC,AB,BC,AB,CB,BA,BC,AB,BC",
        "start": "CAB",
        "rule": "adjacent",
    }
    assert solve_state("AAA", None)["length"] == 7  # the rule defaults to classic
    assert solve_state("CCC", "classic") == {"length": 0, "moves": "", "start": "CCC", "rule": "classic"}
