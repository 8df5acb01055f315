"""The exact solver: goal distances of every state of (disks, rule) by one breadth-first search (``kernels.distances``),
kept once per process, and an optimal plan of any state by following the search's step-closer moves.

``fastspe solve --domain hanoi --start CAB [--rule adjacent]`` prints ``{length, moves, start, rule}``;
``--input`` lines are ``{id, start, rule}`` (rule optional, classic by default). The search covers every state (at
most 3**10), so ``--max-nodes`` bounds nothing here and is ignored.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache

import numpy as np

from fastspe.errors import UserError

from .rules import FORBIDDEN, MAX_DISKS, REVERSE, SOURCE, SYMBOLS, TARGET, TOKENS, check_rule, read_start, state_code

__all__ = ["DistanceTable", "distance_table", "certificate", "solve_state", "solve", "record_solver"]


class DistanceTable:
    """Goal distances (int32 (3**disks,)) and one step-closer action code per state (uint8) of (disks, rule)."""

    def __init__(self, disks: int, rule: str):
        from .kernels.distances import goal_distances

        self.disks, self.rule = disks, rule
        self.dist, self.toward = goal_distances(
            disks,
            np.array(FORBIDDEN[rule]),
            np.array(SOURCE, np.int64),
            np.array(TARGET, np.int64),
            np.array(REVERSE, np.int64),
        )

    def plan(self, state: int) -> str:
        """An optimal plan from ``state`` as stored symbols (one per action)."""
        out = []
        while self.dist[state] > 0:
            code = int(self.toward[state])
            disk = _top(state, self.disks, SOURCE[code])
            state += (TARGET[code] - SOURCE[code]) * 3**disk
            out.append(SYMBOLS[code])
        return "".join(out)


def _top(state: int, disks: int, peg: int) -> int:
    return next(i for i in range(disks) if (state // 3**i) % 3 == peg)


@lru_cache(maxsize=2 * MAX_DISKS)
def distance_table(disks: int, rule: str) -> DistanceTable:
    """The table of (disks, rule), searched once per process (3**10 states at most: milliseconds)."""
    return DistanceTable(disks, rule)


def certificate(start: str, rule: str) -> str:
    """An optimal plan (stored symbols) from the state ``start`` (peg letters, disk 1 first) under ``rule``."""
    pegs = read_start(start)
    return distance_table(len(pegs), rule).plan(state_code(pegs))


def solve_state(start, rule) -> dict:
    """The certified optimum of one state: ``{length, moves (tokens joined by commas), start, rule}``."""
    rule = check_rule("classic" if rule is None else rule)
    plan = certificate(start, rule)
    return {
        "length": len(plan),
        "moves": ",".join(TOKENS[SYMBOLS.index(s)] for s in plan),
        "start": start,
        "rule": rule,
    }


def solve(args, ui) -> dict:
    """``fastspe solve --domain hanoi --start ...``."""
    if args.start is None:
        raise UserError(
            "--domain hanoi needs --start PEGS (one peg letter per disk, disk 1 first: CAB) or --input STATES.jsonl"
        )
    read_start(args.start, "--start")
    return solve_state(args.start, "classic" if args.rule is None else args.rule)


@contextlib.contextmanager
def record_solver(args, ui):
    """``fastspe solve --input``: each line ``{id, start, rule}`` plus its answer, or plus an ``error`` naming the file
    and the line."""

    def solve_one(record: dict, number: int) -> dict:
        where = f"id {record['id']!r}" if isinstance(record.get("id"), (str, int)) else f"line {number}"
        unknown = set(record) - {"id", "start", "rule"}
        try:
            if unknown:
                raise UserError(f"unknown fields {sorted(unknown)} (a line is {{id, start, rule}})")
            read_start(record.get("start"), "start")
            return {**record, **solve_state(record["start"], record.get("rule"))}
        except UserError as exc:
            return {**record, "error": f"{args.input}: {where}: {exc}"}

    yield solve_one
