"""The push search's deadlock table and corral pruning (``kernels.deadlocks``): each check equals its plain-Python
twin on random rooms, every state either drops is unsolvable by an exhaustive search, and the search's optima
with each pruning alone equal the exhaustive twins' (both objectives)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fastspe.domains.sokoban.kernels.deadlocks import DEAD, SOLVED, corral_dead, flood, pair_dead, subset_verdict
from fastspe.domains.sokoban.kernels.push_search import FOUND, MOVES, PUSHES, push_search
from fastspe.domains.sokoban.kernels.search import INF, neighbours, push_distances
from fastspe.domains.sokoban.level import parse_level
from fastspe.errors import UserError

from . import naive_sokoban_deadlocks as twin
from .naive_sokoban_bfs import naive_solve, naive_solve_pushes
from .test_sokoban_solver import rooms

_SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much]}
_ALL = 1 << 40  # a state cap no test room reaches: the kernels' verdicts are exhaustive


class Room:
    """A parsed level as the kernels see it (cells, neighbours, dead squares) and as the twins do ((r, c) sets)."""

    def __init__(self, text):
        self.level = level = parse_level(text)
        self.nbr = neighbours(level.wall, level.rows, level.cols)
        push = push_distances(self.nbr, np.flatnonzero(level.goal).astype(np.int64))
        self.dead = (push >= INF).all(axis=1)
        self.floor = np.flatnonzero(~level.wall).astype(np.int64)
        cols = level.cols
        self.rc = lambda c: (int(c) // cols, int(c) % cols)
        walls = {self.rc(c) for c in np.flatnonzero(level.wall)}
        self.room = (level.rows, cols, walls, {self.rc(c) for c in np.flatnonzero(level.goal)})
        self.live = [int(c) for c in self.floor if not self.dead[c]]

    def corral(self, boxes, player, beyond, limit=_ALL):
        occ = np.zeros(self.nbr.shape[0], dtype=np.bool_)
        occ[list(boxes)] = True
        region, stamp = np.zeros(self.nbr.shape[0], np.int64), np.zeros(self.nbr.shape[0], np.int64)
        queue = np.empty(self.nbr.shape[0], np.int64)
        flood(player, self.nbr, occ, region, 1, queue)
        return corral_dead(
            beyond,
            player,
            occ,
            np.array(sorted(boxes), np.int64),
            self.nbr,
            self.level.goal,
            self.dead,
            region,
            1,
            stamp,
            1,
            queue,
            np.zeros_like(occ),
            np.zeros((2, len(occ)), np.int64),
            limit,
        )[0]

    def pair(self, a, b, table=None):
        table = np.full(self.nbr.shape[0] ** 2, -1, np.int8) if table is None else table
        return pair_dead(a, b, table, self.floor, self.nbr, self.level.goal, self.dead)


@settings(max_examples=150, **_SETTINGS)
@given(rooms(most_boxes=3, side=5), st.randoms(use_true_random=False))
def test_subset_verdict_equals_the_twin(text, rnd):
    r = Room(text)
    boxes = [b for b in r.level.boxes if not r.dead[b]]
    assume(boxes)
    sub = sorted(rnd.sample(boxes, rnd.randint(1, len(boxes))))
    starts = rnd.sample(list(r.floor), rnd.randint(1, 3))
    got = subset_verdict(
        np.array(sub, np.int64), np.array(starts, np.int64), r.nbr, r.level.goal, r.dead, _ALL, r.floor[:1], -1
    )
    want = twin.subset_solvable(r.room, [r.rc(b) for b in sub], [r.rc(s) for s in starts])
    assert got == (SOLVED if want else DEAD), text


@settings(max_examples=150, **_SETTINGS)
@given(rooms(most_boxes=2, side=5), st.randoms(use_true_random=False))
def test_pair_table_equals_the_twin(text, rnd):
    r = Room(text)
    assume(len(r.live) >= 2)
    a, b = rnd.sample(r.live, 2)
    table = np.full(r.nbr.shape[0] ** 2, -1, np.int8)
    got = r.pair(a, b, table)
    assert got == twin.pair_dead(r.room, r.rc(a), r.rc(b)), text
    assert r.pair(b, a, table) == got and (table >= 0).sum() == 1  # one entry, read back either way


@settings(max_examples=150, **_SETTINGS)
@given(rooms(most_boxes=4, side=5))
def test_corral_check_equals_the_twin(text):
    r = Room(text)
    boxes, player = r.level.boxes, r.level.player
    for beyond in boxes:
        want = twin.corral_dead(r.room, {r.rc(b) for b in boxes}, r.rc(player), r.rc(beyond))
        assert r.corral(boxes, player, beyond) == want, (text, beyond)
        if not want:  # a capped search may give up, never call a live corral dead
            assert not r.corral(boxes, player, beyond, limit=2)


def _random_level(rnd):
    """A random closed room of 5x5 to 7x7 inside, some inner walls, 1-4 boxes and goals, a player: XSB."""
    rows, cols = rnd.randint(5, 7), rnd.randint(5, 7)
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(rnd.sample(inside, rnd.randint(0, len(inside) // 4)))
    floor = [c for c in inside if c not in walls]
    n = rnd.randint(1, 4)
    boxes = rnd.sample(floor, n)
    goals = rnd.sample(floor, n)
    player = rnd.choice([c for c in floor if c not in boxes])
    grid = [["#"] * (cols + 2) for _ in range(rows + 2)]
    for cell in floor:
        grid[cell[0]][cell[1]] = " "
    for cell in goals:
        grid[cell[0]][cell[1]] = "."
    for cell in boxes:
        grid[cell[0]][cell[1]] = "*" if cell in goals else "$"
    grid[player[0]][player[1]] = "+" if player in goals else "@"
    return "\n".join("".join(line) for line in grid)


def test_every_dropped_state_is_unsolvable_by_exhaustive_search():
    """Seeded random small rooms (5x5 to 7x7 inside, 1-4 boxes): every state the deadlock table (any pair of its
    boxes) or the corral check (any box as the one pushed) drops has no plan by the plain BFS, and both checks
    drop some."""
    rnd = random.Random(39)
    drops = {"table": 0, "corral": 0}
    tried = 0
    while tried < 400:
        text = _random_level(rnd)
        try:
            r = Room(text)
        except UserError:
            continue
        boxes = r.level.boxes
        if any(r.dead[b] for b in boxes):
            continue
        try:
            solvable = naive_solve(text, 100_000) is not None
        except RuntimeError:
            continue
        tried += 1
        pair = any(r.pair(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        corral = any(r.corral(boxes, r.level.player, b) for b in boxes)
        assert not (solvable and (pair or corral)), text
        drops["table"] += pair
        drops["corral"] += corral
    assert drops["table"] >= 5 and drops["corral"] >= 5, drops


@pytest.mark.parametrize(
    "flags", [(True, False, False), (False, True, False), (False, False, True)], ids=["freeze", "table", "corral"]
)
@settings(max_examples=60, **_SETTINGS)
@given(text=rooms(most_boxes=4, side=5))
def test_each_pruning_alone_keeps_both_optima(flags, text):
    level = parse_level(text)
    want = {MOVES: naive_solve(text), PUSHES: naive_solve_pushes(text)}
    for objective in (MOVES, PUSHES):
        out = push_search(
            level.wall,
            level.goal,
            np.array(level.boxes, dtype=np.int64),
            level.player,
            level.rows,
            level.cols,
            10**7,
            objective,
            True,
            flags[0],
            np.zeros(4, np.int64),
            flags[1],
            flags[2],
        )
        got = (out[1], out[2]) if out[0] == FOUND else None
        assert got == want[objective], (text, objective, flags)


def test_microban_ii_is_read_and_its_small_levels_keep_their_optima():
    """tests/data/sokoban/microban2.txt (see its README): 135 levels numbered 1..135, each parsed; on the first ten
    the optional prunings keep both optima and every answer replays."""
    from fastspe.domains.sokoban.verify.bank import read_xsb, replay

    from .sokoban_published import microban2

    levels = microban2()
    assert [n for n, _ in levels] == [str(i) for i in range(1, 136)]
    for number, text in levels[:10]:
        level = parse_level(text)
        for objective in (MOVES, PUSHES):
            got = set()
            for table, corral in ((False, False), (True, True)):
                out = push_search(
                    level.wall,
                    level.goal,
                    np.array(level.boxes, dtype=np.int64),
                    level.player,
                    level.rows,
                    level.cols,
                    10**7,
                    objective,
                    True,
                    True,
                    np.zeros(4, np.int64),
                    table,
                    corral,
                )
                assert out[0] == FOUND, number
                plan = "".join("UDLR"[int(d)] for d in out[3])
                assert replay(read_xsb(level.text), plan) == (out[2], True), number
                got.add((out[1], out[2]))
            assert len(got) == 1, (number, got)
