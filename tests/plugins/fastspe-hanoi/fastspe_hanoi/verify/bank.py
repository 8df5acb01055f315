"""Independent Hanoi bank verifier: plain Python, sharing no code with the kernels, the solver or the builder (it
uses this folder's own stacks, rules and breadth-first search, ``verify.replay``).

A row passes when: its ``start`` is ``disks`` peg letters (disks 1..10); its ``rule`` is classic or adjacent; the
breadth-first distance of the start to the goal is ``depth`` (so d* is proved: the search is exhaustive); its
``certificate`` is ``depth`` action symbols that replay legally to every disk on C; and no board_id, nor (rule,
start), repeats. Every row is proved or fails: there are no unproven rows.
"""

from __future__ import annotations

from typing import Callable

from fastspe.domains.contract import BankVerification

from .replay import ACTIONS, distances, goal_stacks, read_stacks, step

__all__ = ["verify_hanoi_bank", "verify"]

_COLUMNS = ("board_id", "disks", "rule", "depth", "start", "certificate")


def _row_failure(disks, rule, depth, start, certificate) -> str | None:
    """Why one row fails, or None."""
    if rule not in ("classic", "adjacent"):
        return f"rule {rule!r} is neither classic nor adjacent"
    if not isinstance(disks, int) or not 1 <= disks <= 10:
        return f"disks {disks!r} is not 1..10"
    if not isinstance(start, str) or len(start) != disks or set(start) - set("ABC"):
        return f"start {start!r} is not {disks} peg letters A, B, C"
    stacks = read_stacks(start)
    exact = distances(disks, rule)[stacks]
    if exact != depth:
        return f"depth is {depth} but a breadth-first search puts the start {exact} moves from the goal"
    if len(certificate) != depth:
        return f"the certificate has {len(certificate)} moves, depth is {depth}"
    for i, symbol in enumerate(certificate):
        if symbol not in ACTIONS:
            return f"certificate move {i + 1} ({symbol!r}) is not an action"
        after = step(stacks, *ACTIONS[symbol], rule)
        if isinstance(after, str):
            return f"certificate move {i + 1} ({symbol!r}) is illegal: {after}"
        stacks = after
    if stacks != goal_stacks(disks):
        return "the certificate does not end with every disk on C"
    return None


def verify_hanoi_bank(table, progress: Callable[[int, int], None] | None = None) -> list[tuple[str, str]]:
    """(board_id, reason) of every failing row of a bank table (its schema checked)."""
    rows = list(zip(*(table.column(c).to_pylist() for c in _COLUMNS)))
    failures, ids, states = [], {}, {}
    for n, (bid, disks, rule, depth, start, certificate) in enumerate(rows, 1):
        why = _row_failure(disks, rule, depth, start, certificate)
        if why is None and bid in ids:
            why = f"board_id repeats row {ids[bid]}"
        if why is None and (rule, start) in states:
            why = f"the same start under the same rule as {states[(rule, start)]}"
        ids.setdefault(bid, n)
        states.setdefault((rule, start), bid)
        if why is not None:
            failures.append((str(bid), why))
        if progress is not None and (n % 1000 == 0 or n == len(rows)):
            progress(n, len(rows))
    return failures


def verify(table, args, ui) -> BankVerification:
    """``fastspe bank verify`` of a Hanoi bank."""
    with ui.progress("bank verify", table.num_rows, "states") as update:
        failures = verify_hanoi_bank(table, update)
    if failures:
        return BankVerification(failures, [], f"{len(failures)} of {table.num_rows} states failed verification")
    return BankVerification(
        [],
        [],
        f"ok: all {table.num_rows:,} states verified (breadth-first d* = depth, "
        "certificates replay to the goal in depth moves, no repeats)",
    )
