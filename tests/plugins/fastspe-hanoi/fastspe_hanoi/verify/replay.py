"""Independent Hanoi replay: every verdict field of a plan re-derived in plain Python from the rules alone.

It shares no code with the domain's rules, kernels, pack, builder or solver: a state here is three stacks of disks
(bottom first), read from the start text by its own code, h is the distance of its own breadth-first search from the
goal, and the action symbols are its own table. The rules, as the domain states them: a move takes the top disk of
its source peg onto its target peg; A<->C is ``forbidden_move`` under the adjacent rule (checked first), an empty
source is ``empty_peg``, a disk onto a smaller one ``larger_on_smaller``, any other symbol ``invalid_action``; the
first illegal action stops the replay.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from fastspe.domains.contract import Verifier
from fastspe.errors import UserError

__all__ = [
    "ACTIONS",
    "Stacks",
    "read_stacks",
    "goal_stacks",
    "step",
    "distances",
    "HanoiBoard",
    "bank_boards",
    "replay_hanoi",
    "VERIFIER",
]

# stored symbol -> (source peg, target peg), pegs 0..2 = A..C
ACTIONS = {"a": (0, 1), "b": (0, 2), "c": (1, 0), "d": (1, 2), "e": (2, 0), "f": (2, 1)}
Stacks = tuple  # (A, B, C): each a tuple of disk numbers, bottom first (so descending)


def read_stacks(start: str) -> Stacks:
    """The stacks of a start text (peg letter of disk 1, disk 2, ...)."""
    if not isinstance(start, str) or not start or any(ch not in "ABC" for ch in start):
        raise UserError(f"start {start!r} is not peg letters A, B, C")
    return tuple(tuple(sorted((d + 1 for d, ch in enumerate(start) if ch == peg), reverse=True)) for peg in "ABC")


def goal_stacks(disks: int) -> Stacks:
    return ((), (), tuple(range(disks, 0, -1)))


def step(stacks: Stacks, source: int, target: int, rule: str) -> Stacks | str:
    """The stacks after moving the top disk of ``source`` onto ``target``, or the name of why it is illegal."""
    if rule == "adjacent" and {source, target} == {0, 2}:
        return "forbidden_move"
    if not stacks[source]:
        return "empty_peg"
    disk = stacks[source][-1]
    if stacks[target] and stacks[target][-1] < disk:
        return "larger_on_smaller"
    out = list(stacks)
    out[source] = stacks[source][:-1]
    out[target] = stacks[target] + (disk,)
    return tuple(out)


@lru_cache(maxsize=None)
def distances(disks: int, rule: str) -> dict:
    """Every reachable state's distance to the goal (a breadth-first search from it; moves are reversible)."""
    goal = goal_stacks(disks)
    dist, queue = {goal: 0}, deque([goal])
    while queue:
        here = queue.popleft()
        for source, target in ACTIONS.values():
            there = step(here, source, target, rule)
            if not isinstance(there, str) and there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


@dataclass(frozen=True)
class HanoiBoard:
    """A bank row as the verifier reads it (a ``contract.VerifierBoard``)."""

    cohort: str
    disks: int
    rule: str
    depth: int
    start: Stacks

    @property
    def stratum(self) -> int:
        return self.disks

    @property
    def tag(self) -> str:
        return f"{self.rule}-{self.disks}"


def bank_boards(bank) -> dict[str, HanoiBoard]:
    """A bank's rows (an Arrow table or a DataFrame) keyed by board_id."""
    names = ("board_id", "cohort", "disks", "rule", "depth", "start")
    columns = [bank.column(c).to_pylist() if hasattr(bank, "schema") else list(bank[c]) for c in names]
    boards = {}
    for bid, cohort, disks, rule, depth, start in zip(*columns):
        try:
            stacks = read_stacks(start)
        except UserError as exc:
            raise UserError(f"board {bid!r}: {exc}") from None
        boards[str(bid)] = HanoiBoard(str(cohort), int(disks), str(rule), int(depth), stacks)
    return boards


def replay_hanoi(board: HanoiBoard, moves: str) -> dict:
    """Status, first illegal action, h along the legal prefix, revisits and a midway goal of ``moves``."""
    dist = distances(board.disks, board.rule)
    stacks = board.start
    h = dist[stacks]
    seen, min_h, revisits, midway, kind, first_error = {stacks}, h, 0, False, "", -1
    for i, symbol in enumerate(moves):
        midway = midway or h == 0
        if symbol not in ACTIONS:
            kind, first_error = "invalid_action", i
            break
        after = step(stacks, *ACTIONS[symbol], board.rule)
        if isinstance(after, str):
            kind, first_error = after, i
            break
        stacks = after
        h = dist[stacks]
        revisits += stacks in seen
        seen.add(stacks)
        min_h = min(min_h, h)
    status = "illegal" if kind else "complete" if h == 0 else "legal_noncompletion"
    return {
        "status": status,
        "error_kind": kind,
        "first_error": first_error,
        "final_h": h,
        "min_h": min_h,
        "revisits": revisits,
        "goal_midway": midway,
    }


VERIFIER = Verifier(bank_boards, replay_hanoi)
