"""The compiled replay equals the independent plain-Python replay on every one of its seven outputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.codes import STATUS_NAMES
from fastspe_hanoi import DOMAIN
from fastspe_hanoi.rules import ERROR_NAMES, PEGS, RULES, SYMBOLS, TOKENS, move, read_start
from fastspe_hanoi.verify.replay import VERIFIER
from hanoi_helpers import bank_of

OUTPUTS = ("status", "error_kind", "first_error", "final_h", "min_h", "revisits", "goal_midway")
INVALID = len(TOKENS)  # the vocabulary's invalid code


def kernel_replay(table, plans: list[list[int]]) -> list[dict]:
    """Replay plan i (action codes) on bank row i with the domain's kernel; outputs as the verifier names them."""
    packed = DOMAIN.pack(DOMAIN.check_bank(table))
    codes = np.array([c for plan in plans for c in plan], dtype=np.uint8)
    offsets = np.zeros(len(plans) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in plans], out=offsets[1:])
    out = DOMAIN.replay(packed, np.arange(len(plans), dtype=np.int64), codes, offsets)
    rows = []
    for i in range(len(plans)):
        values = [o[i] for o in out]
        rows.append(
            {
                "status": STATUS_NAMES[values[0]],
                "error_kind": ERROR_NAMES[values[1]],
                "first_error": int(values[2]),
                "final_h": int(values[3]),
                "min_h": int(values[4]),
                "revisits": int(values[5]),
                "goal_midway": bool(values[6]),
            }
        )
    return rows


def verifier_replay(table, plans: list[list[int]]) -> list[dict]:
    boards = VERIFIER.boards(table)
    ids = table.column("board_id").to_pylist()
    return [
        VERIFIER.replay(boards[bid], "".join(SYMBOLS[c] if c < INVALID else "?" for c in plan))
        for bid, plan in zip(ids, plans)
    ]


@st.composite
def cases(draw):
    """A state and a plan that mostly follows legal moves (so it goes far, revisits and passes the goal), with
    arbitrary actions (forbidden, illegal or no action at all) mixed in."""
    disks = draw(st.integers(1, 6))
    rule = draw(st.sampled_from(RULES))
    start = "".join(draw(st.lists(st.sampled_from(PEGS), min_size=disks, max_size=disks)))
    pegs, plan = read_start(start), []
    for choice in draw(st.lists(st.tuples(st.booleans(), st.integers(0, 255)), max_size=40)):
        legal_step, n = choice
        legal = [c for c in range(len(TOKENS)) if move(pegs, c, rule)[2] == 0]
        code = legal[n % len(legal)] if legal_step and draw(st.integers(0, 9)) else min(n % 10, 255)
        plan.append(code)
        after = move(pegs, code, rule)[0]
        if after is not None:
            pegs = after
    return start, rule, plan


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(cases(), min_size=1, max_size=12))
def test_kernel_equals_the_independent_replay(batch):
    table = bank_of([(start, rule) for start, rule, _ in batch])
    plans = [plan for _, _, plan in batch]
    assert kernel_replay(table, plans) == verifier_replay(table, plans)


def test_each_kind_of_illegal_move_and_the_order_of_the_checks():
    table = bank_of(
        [("AAA", "adjacent"), ("AAA", "classic"), ("AAA", "classic"), ("AAA", "adjacent"), ("AAA", "classic")]
    )
    ab, ac, ba, bc, ca, cb = range(6)
    plans = [
        [ab, ac],  # AC under adjacent: forbidden, whatever the pegs hold
        [ab, bc, ba],  # B is empty again after AB, BC
        [ab, ab],  # disk 2 onto disk 1
        [ca],  # forbidden comes before empty_peg (C is empty)
        [ab, 6, ab],
    ]  # not an action
    got = kernel_replay(table, plans)
    assert [(r["error_kind"], r["first_error"]) for r in got] == [
        ("forbidden_move", 1),
        ("empty_peg", 2),
        ("larger_on_smaller", 1),
        ("forbidden_move", 0),
        ("invalid_action", 1),
    ]
    assert all(r["status"] == "illegal" for r in got)
    assert got == verifier_replay(table, plans)


def test_revisits_goal_midway_and_the_goal_state():
    table = bank_of([("B", "classic"), ("B", "classic"), ("C", "classic"), ("CC", "adjacent")])
    ab, ac, ba, bc, ca, cb = range(6)
    plans = [
        [bc, cb, bc],  # goal, back to the start (a revisit), goal again: complete, goal midway
        [ba, ab, ba, ab],  # A, B, A, B: three revisits, never the goal
        [],  # already at the goal: complete with the empty plan
        [cb, bc],
    ]  # off the goal and back: one revisit, and the start (the goal) was before the last action
    got = kernel_replay(table, plans)
    assert [(r["status"], r["revisits"], r["goal_midway"], r["min_h"], r["final_h"]) for r in got] == [
        ("complete", 2, True, 0, 0),
        ("legal_noncompletion", 3, False, 1, 1),
        ("complete", 0, False, 0, 0),
        ("complete", 1, True, 0, 0),
    ]
    assert got == verifier_replay(table, plans)


@pytest.mark.parametrize("rule", RULES)
def test_certificates_replay_to_the_goal_in_depth_moves(rule):
    table = bank_of([("AAAAAAA", rule), ("BACBACB", rule)])
    plans = [[SYMBOLS.index(s) for s in cert] for cert in table.column("certificate").to_pylist()]
    got = kernel_replay(table, plans)
    assert [r["status"] for r in got] == ["complete", "complete"]
    assert [len(p) for p in plans] == table.column("depth").to_pylist()
    assert table.column("depth")[0].as_py() == (127 if rule == "classic" else 3**7 - 1)
