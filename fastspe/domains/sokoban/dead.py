"""The first dead move of a Sokoban answer: the first move after which the level can no longer be solved.

Exact, decided by search: a state is dead when the solver's ``is_solvable`` (a search over pushes that stops at the
first plan, in any room the solver takes) proves it has no plan; a check that stops at the node limit is *unknown*,
never guessed. Three facts keep it cheap (0.5 CPU s for the 10,000 answers of ``benchmarks/bench_sokoban_dead.py``,
where the move-optimal batch search took 2.7):

- only a push can make a level dead: a walk is undone by walking back, so the player's cell matters only up to
  the region it can reach (states are cached under that region's least cell);
- a solvability check needs no optimal plan: the first plan found ends it;
- dead is monotone along a plan: what follows a dead state is dead. So the pushes of the legal prefix are
  binary-searched: O(log pushes) checks per answer, one when the level is still solvable after the last push.

``DEAD_NONE`` (-1): no move of the legal prefix makes the level dead; ``DEAD_UNKNOWN`` (-2): a check on the way hit
the node limit (the answer's first dead move is not known). Otherwise the 0-based index of the move, as verdicts
count ``first_error``: move ``index + 1``. Many answers are searched together, round by round: each round checks
the states all of them probe next at once (``are_solvable``). ``are_solvable`` (and ``is_solvable``, one state) is
the one oracle, so a faster exact one swaps in there.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import numpy as np

from .level import DIRECTIONS, Level

__all__ = [
    "DEAD_NONE",
    "DEAD_UNKNOWN",
    "DEAD_NODE_LIMIT",
    "DeadMoves",
    "is_solvable",
    "are_solvable",
    "push_moves",
    "frozen_boxes",
    "first_dead_moves",
]

DEAD_NONE = -1
DEAD_UNKNOWN = -2
DEAD_NODE_LIMIT = 1_000_000  # states per check: small rooms are decided far inside it
CACHE_STATES = 1 << 16  # (room, region, boxes) verdicts kept, least recently used dropped first


def is_solvable(level: Level, player: int, boxes: tuple[int, ...], node_limit: int = DEAD_NODE_LIMIT) -> bool | None:
    """Whether ``level``'s room with the player on ``player`` and boxes on ``boxes`` can still be solved: True, False,
    or None when the search stopped at ``node_limit`` states (the solver's ``is_solvable``: over pushes, no
    optimality, any room the solver takes)."""
    from .solver import SokobanUnsolved, is_solvable as solvable

    try:
        return solvable(replace(level, boxes=tuple(sorted(boxes)), player=int(player)), node_limit)
    except SokobanUnsolved as exc:
        if exc.kind != "node_limit":
            raise
        return None


def are_solvable(states, node_limit: int = DEAD_NODE_LIMIT) -> list[bool | None]:
    """``is_solvable`` of many (level, player, boxes) states, in order."""
    return [is_solvable(level, player, boxes, node_limit) for level, player, boxes in states]


def push_moves(level: Level, moves: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """(move index, player cell, sorted boxes) after each push of ``moves``'s legal prefix."""
    player, boxes, out = level.player, frozenset(level.boxes), []
    for i, move in enumerate(moves):
        if move not in DIRECTIONS:
            break
        player, boxes, pushed, error = level.step(player, boxes, DIRECTIONS.index(move))
        if error:
            break
        if pushed >= 0:
            out.append((i, player, tuple(sorted(boxes))))
    return out


def region_key(level: Level, player: int, boxes: tuple[int, ...]) -> int:
    """The least cell the player can walk to among ``boxes``: states with the same key are one state to solve."""
    ahead, blocked = level._ahead, set(boxes)
    seen, stack, least = {player}, [player], player
    while stack:
        c = stack.pop()
        for n in ahead[c]:
            if n >= 0 and n not in seen and n not in blocked:
                seen.add(n)
                stack.append(n)
                least = min(least, n)
    return least


class DeadMoves:
    """The first dead move of answers, with every state's verdict cached (per room, player region and boxes).

    ``oracle``: a one-state oracle (``is_solvable``'s signature) to use instead of the solver's batch (tests)."""

    def __init__(self, node_limit: int = DEAD_NODE_LIMIT, oracle=None, cache_states: int = CACHE_STATES):
        self.node_limit, self.cache_states = node_limit, cache_states
        self.batch = are_solvable if oracle is None else (lambda states, limit: [oracle(*s, limit) for s in states])
        self.cache: OrderedDict = OrderedDict()
        self.checks = 0  # states the oracle was asked about (cache misses)

    def _known(self, key):
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        return "?"

    def _solvable(self, probes: list) -> list:
        """The verdicts of (level, player, boxes) states: cached, solved (every box on a goal), or searched in one
        batch."""
        keys = [(level.text, region_key(level, player, boxes), boxes) for level, player, boxes in probes]
        found = [
            True if all(level.goal[b] for b in boxes) else self._known(key)
            for key, (level, player, boxes) in zip(keys, probes)
        ]
        asked = {key: probe for key, probe, f in zip(keys, probes, found) if f == "?"}
        answers = dict(zip(asked, self.batch(list(asked.values()), self.node_limit)))
        self.checks += len(asked)
        for key, verdict in answers.items():
            self.cache[key] = verdict
            if len(self.cache) > self.cache_states:
                self.cache.popitem(last=False)
        return [answers[key] if f == "?" else f for key, f in zip(keys, found)]

    def first_dead_move(self, level: Level, moves: str) -> int:
        """The 0-based index of the first move of ``moves`` (one of U, D, L, R per move; anything else stops the
        legal prefix, as does an illegal move) after which ``level`` is dead; ``DEAD_NONE`` or ``DEAD_UNKNOWN``."""
        return int(self.many([level], [moves])[0])

    def many(self, levels, moves) -> np.ndarray:
        """``first_dead_move`` of answer i (``moves[i]`` on ``levels[i]``), int64 (n,), in rounds: the last push of
        every answer first (alive: none), then a binary search over the pushes of those that end dead, each round's
        states checked together."""
        out = np.full(len(moves), DEAD_NONE, dtype=np.int64)
        searching = {}  # answer -> [pushes, lo, hi, the last push not checked yet]
        for i, (level, plan) in enumerate(zip(levels, moves)):
            pushes = push_moves(level, plan)
            if pushes:
                searching[i] = [pushes, 0, len(pushes) - 1, True]
        while searching:
            probe = {i: hi if last else (lo + hi) // 2 for i, (_, lo, hi, last) in searching.items()}
            found = self._solvable([(levels[i], *searching[i][0][k][1:]) for i, k in probe.items()])
            for (i, k), alive in zip(probe.items(), found):
                pushes, lo, hi, last = search = searching[i]
                if alive is None:
                    out[i] = DEAD_UNKNOWN
                elif last and alive:
                    out[i] = DEAD_NONE
                elif not last:  # pushes[hi] is dead: the first dead one lies in pushes[lo..hi]
                    search[1:3] = (k + 1, hi) if alive else (lo, k)
                search[3] = False
                if alive is not None and not (last and alive) and search[1] == search[2]:
                    out[i] = pushes[search[1]][0]
                if out[i] != DEAD_NONE or (last and alive):
                    del searching[i]
        return out


def first_dead_moves(levels, moves, checked, finder: DeadMoves | None = None) -> np.ndarray:
    """int64 (n,): ``DeadMoves.first_dead_move`` of answer i (``moves[i]`` on ``levels[i]``) where ``checked[i]``,
    ``DEAD_NONE`` elsewhere."""
    finder = finder or DeadMoves()
    out = np.full(len(moves), DEAD_NONE, dtype=np.int64)
    index = np.flatnonzero(np.asarray(checked, dtype=bool))
    out[index] = finder.many([levels[i] for i in index], [moves[i] for i in index])
    return out


def frozen_boxes(level: Level, boxes) -> tuple[int, ...]:
    """The boxes that can never move again, off a goal (sorted): on a square from which no goal is reachable by pushes
    (a corner, along a wall with no goal), or frozen by walls and other frozen boxes on both axes (the classic
    freeze deadlock). What the viewer shows of a dead state; a dead state may have none (dead by search alone)."""
    boxes, ahead = set(boxes), level._ahead
    dead_square = level.push_distance >= 100  # DEAD_PUSHES: no goal by pushes

    def blocked(box: int, axis: tuple[int, int], walls: frozenset) -> bool:
        a, b = ahead[box][axis[0]], ahead[box][axis[1]]
        if a < 0 or b < 0 or a in walls or b in walls:
            return True  # a wall (or a box taken as frozen) on one side: no push along this axis
        if dead_square[a] and dead_square[b]:
            return True  # pushed either way, the box lands on a dead square
        return any(n in boxes and n not in walls and frozen(n, walls | {box}) for n in (a, b))

    def frozen(box: int, walls: frozenset) -> bool:
        return blocked(box, (0, 1), walls) and blocked(box, (2, 3), walls)

    out = {b for b in boxes if dead_square[b]}
    out |= {b for b in boxes if not level.goal[b] and frozen(b, frozenset())}
    return tuple(sorted(b for b in out if not level.goal[b]))


DEAD_COLUMN = "first_dead_move"
_FINDER = DeadMoves()  # one per process: a state's verdict is the same in every batch


def dead_move_columns(packed, rows: np.ndarray, replayed) -> dict:
    """``Domain.verdict_extras``: ``first_dead_move`` of every answer that did not complete and has a move (an
    illegal answer's legal prefix included), ``DEAD_NONE`` for the rest."""
    status = np.asarray(replayed["status"].to_numpy(zero_copy_only=False))
    moves = replayed["moves"].to_pylist()
    checked = (status != "complete") & (np.asarray([len(m) for m in moves]) > 0)
    return {DEAD_COLUMN: first_dead_moves(packed.levels[rows], moves, checked, _FINDER)}
