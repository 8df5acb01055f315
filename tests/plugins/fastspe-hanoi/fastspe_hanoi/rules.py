"""The Tower of Hanoi as the builder, solver, pack, baselines, prompt and viewer read it: pegs, disks, the two rule
variants, the action vocabulary, and states as text and as integer codes.

Pegs are A, B, C (0, 1, 2); disks are 1..n, disk 1 the smallest. A state gives the peg of every disk: as text, one
peg letter per disk, disk 1 first (``"CAB"``: disk 1 on C, disk 2 on A, disk 3 on B); as a code, the base-3 number
whose digit i is the peg of disk i + 1 (so a state of n disks is below 3**n). The goal is every disk on C.

A move takes the top (smallest) disk of its source peg onto its target peg, never onto a smaller disk. Under
``classic`` any two pegs may be used; under ``adjacent`` only A<->B and B<->C (A<->C is forbidden), which makes the
state graph one path of 3**n states, so d* reaches 3**n - 1.

The kinds of illegal move, checked in this order (the kernel and the independent verifier keep the same order):
an action that is no token is ``invalid_action`` (3, shared); A<->C under ``adjacent`` is ``forbidden_move`` (5, the
action itself is not allowed, whatever the pegs hold); an empty source peg is ``empty_peg`` (1); a disk onto a
smaller one is ``larger_on_smaller`` (2).
"""

from __future__ import annotations

from fastspe.domains.codes import FORMAT, INVALID_ACTION, NO_ERROR
from fastspe.domains.vocabulary import Vocabulary
from fastspe.errors import UserError

from .kernels import EMPTY_PEG, FORBIDDEN_MOVE, LARGER_ON_SMALLER  # the domain's own error codes (0, 3, 4 are shared)

__all__ = [
    "PEGS",
    "GOAL_PEG",
    "MAX_DISKS",
    "RULES",
    "TOKENS",
    "SYMBOLS",
    "VOCABULARY",
    "SOURCE",
    "TARGET",
    "REVERSE",
    "FORBIDDEN",
    "EMPTY_PEG",
    "LARGER_ON_SMALLER",
    "FORBIDDEN_MOVE",
    "ERROR_NAMES",
    "ERROR_REASONS",
    "max_depth",
    "check_rule",
    "read_start",
    "state_code",
    "state_pegs",
    "goal_text",
    "move",
    "pegs_text",
]

PEGS = "ABC"
GOAL_PEG = 2
MAX_DISKS = 10  # 3**10 = 59,049 states: every goal distance is one cheap breadth-first search
RULES = ("classic", "adjacent")

# The actions in code order (source peg then target peg) and the one-character symbol of each in stored plans:
# AB=a, AC=b, BA=c, BC=d, CA=e, CB=f (code order, so a stored plan reads as the codes it holds)
TOKENS = ("AB", "AC", "BA", "BC", "CA", "CB")
SYMBOLS = "abcdef"
VOCABULARY = Vocabulary(TOKENS, symbols=SYMBOLS)
SOURCE = tuple(PEGS.index(t[0]) for t in TOKENS)
TARGET = tuple(PEGS.index(t[1]) for t in TOKENS)
REVERSE = tuple(TOKENS.index(t[::-1]) for t in TOKENS)  # the move that undoes each (AB <-> BA, ...)
# per rule, whether each action code is forbidden: A<->C under adjacent
FORBIDDEN = {"classic": (False,) * 6, "adjacent": tuple({s, t} == {0, 2} for s, t in zip(SOURCE, TARGET))}

ERROR_NAMES = ("", "empty_peg", "larger_on_smaller", "invalid_action", "format", "forbidden_move")
ERROR_REASONS = {
    "empty_peg": "no disk on the source peg",
    "larger_on_smaller": "puts a disk onto a smaller one",
    "forbidden_move": "moves between A and C, which the adjacent rule forbids",
}
assert (
    ERROR_NAMES[NO_ERROR] == "" and ERROR_NAMES[INVALID_ACTION] == "invalid_action" and ERROR_NAMES[FORMAT] == "format"
)


def max_depth(disks: int, rule: str) -> int:
    """The largest d* of ``disks`` disks under ``rule``: 2**n - 1 (classic), 3**n - 1 (adjacent)."""
    return (2 if rule == "classic" else 3) ** disks - 1


def check_rule(rule, where: str = "rule") -> str:
    if rule not in RULES:
        raise UserError(f"{where} must be one of {', '.join(RULES)}, got {rule!r}")
    return rule


def read_start(text, where: str = "start", disks: int | None = None) -> tuple[int, ...]:
    """The pegs (0..2) of a state's text, disk 1 first; a ``UserError`` naming ``where`` if it is not one."""
    if not isinstance(text, str) or not 1 <= len(text) <= MAX_DISKS or set(text) - set(PEGS):
        raise UserError(f"{where} must be 1..{MAX_DISKS} peg letters A, B or C (disk 1 first), got {text!r}")
    if disks is not None and len(text) != disks:
        raise UserError(f"{where} {text!r} gives {len(text)} disks, not {disks}")
    return tuple(PEGS.index(p) for p in text)


def state_code(pegs) -> int:
    return sum(p * 3**i for i, p in enumerate(pegs))


def state_pegs(code: int, disks: int) -> tuple[int, ...]:
    return tuple((code // 3**i) % 3 for i in range(disks))


def pegs_text(pegs) -> str:
    return "".join(PEGS[p] for p in pegs)


def goal_text(disks: int) -> str:
    return PEGS[GOAL_PEG] * disks


def move(pegs: tuple[int, ...], code: int, rule: str) -> tuple[tuple[int, ...] | None, int, int]:
    """(pegs after action ``code``, the disk moved (0-based), error code): pegs None and disk -1 when illegal."""
    if not 0 <= code < len(TOKENS):
        return None, -1, INVALID_ACTION
    if FORBIDDEN[rule][code]:
        return None, -1, FORBIDDEN_MOVE
    source, target = SOURCE[code], TARGET[code]
    disk = next((i for i, p in enumerate(pegs) if p == source), -1)
    if disk < 0:
        return None, -1, EMPTY_PEG
    if any(p == target for p in pegs[:disk]):
        return None, -1, LARGER_ON_SMALLER
    return pegs[:disk] + (target,) + pegs[disk + 1 :], disk, NO_ERROR
