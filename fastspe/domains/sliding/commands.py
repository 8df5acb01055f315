"""The sliding puzzle's part of ``fastspe bank build``, ``bank verify``, ``bank show`` and ``fastspe solve``: its options
and what they do, behind the ``Domain`` methods of ``domain.py`` (the command line prints and picks exit codes).

``solve --board`` prints one JSON object; ``solve --input BOARDS.jsonl --out OUT.jsonl`` reads lines ``{id, rows,
cols, blocks, board}`` and writes each line plus its answer (``length``, ``moves``, ``h``, ``h_search``, ``nodes``,
``seconds``, ``heuristic``), or an ``error`` for that line alone.
"""

from __future__ import annotations

import contextlib

from ..contract import BankVerification, Option, Ui
from ...errors import UserError

MAX_NODES = 10**15
SHOWN_IDS = 5  # unproven board ids repeated in the summary line (all are on UNPROVEN lines)

VERIFY_OPTIONS = (
    Option(
        ("--prove-depth",),
        "also prove optimal every search board with d* <= N above the breadth-first bound, by a "
        "plain-Python IDA* (graph-distance heuristic); its time grows fast with the retreat d* - h, not with d*",
        {"type": "int:0:1000000", "metavar": "N"},
    ),
    Option(
        ("--prove-board",),
        "prove this search board optimal by the IDA*, whatever its depth (repeatable)",
        {"action": "append", "metavar": "BOARD_ID"},
    ),
)
SOLVE_OPTIONS = (
    Option(
        ("--board",), "cells row-major, separated by spaces or commas: 0 the blank, -1 a blocked cell", {"type": "text"}
    ),
    Option(("--rows",), "rows of --board (default: 4)", {"type": "int:2:8"}),
    Option(("--cols",), "columns of --board (default: 4)", {"type": "int:2:8"}),
    Option(("--blocks",), "blocked cells of --board, comma-separated (default: its -1 cells)", {"type": "text"}),
    Option(
        ("--goal",),
        "the goal board: blank-last is fastspe's (1 2 ... 15 0 on 4x4; the tiles in row-major order "
        "over the free cells, then the blank), blank-first the convention of Korf's published sets (0 1 2 ... 15); "
        "moves are the blank's on the board as given (default: blank-last)",
        {"choices": ("blank-last", "blank-first")},
    ),
    Option(
        ("--heuristic",),
        "pattern databases: auto uses the 7-8 tables of the open 4x4 board once they are built "
        "(else the layout's own, 6-6-3 on the open board); 7-8 uses them and builds them first if they are missing "
        "(once: about 290 MB in the cache folder, several minutes on two cores, with progress); layout never uses "
        'them (default: auto; the answer\'s "heuristic" says which was used)',
        {"choices": ("auto", "7-8", "layout")},
    ),
)


# ---- bank verify ---------------------------------------------------------------------------------------------


def verify(table, args, ui: Ui) -> BankVerification:
    """``fastspe bank verify`` of a sliding-puzzle bank (``table``: the schema checked only)."""
    from ...boundary.banks import bank_frame
    from .verify.bank import OPTIMALITY_BOUND, verify_bank
    from .verify.optimal import check_prove_ids, optimality

    bank = bank_frame(table)
    prove_ids = check_prove_ids(bank, getattr(args, "prove_board", None) or ())  # before the long work
    with ui.progress("bank verify", len(bank), "boards") as update:
        failures = verify_bank(bank, progress=update)
    with ui.progress("bank verify: IDA* proofs", None, "boards") as update:
        status = optimality(bank, failures, getattr(args, "prove_depth", None), prove_ids, progress=update)
    failures += status.refuted
    unproven = [
        (board_id, f"d* = {depth} > {OPTIMALITY_BOUND}: the certificate replays, but no shorter plan was ruled out")
        for board_id, depth in status.unproven
    ]
    listed = _unproven_text(status.unproven, OPTIMALITY_BOUND)
    if failures:
        return BankVerification(
            failures,
            unproven,
            f"{len(failures)} of {len(bank)} boards failed verification" + (f"; {listed}" if listed else ""),
        )
    proven = len(status.by_bfs) + len(status.by_ida)
    search = proven + len(status.unproven)
    if not search:
        kinds = "h = depth = certificate length"
    else:
        how = f"{len(status.by_bfs):,} by BFS up to d* = {OPTIMALITY_BOUND}" + (
            f", {len(status.by_ida):,} by IDA*" if status.by_ida else ""
        )
        kinds = f"h-walk boards: h = depth; {proven:,} search boards: plans optimal (proven: {how})"
        kinds += f"; {listed}" if listed else ""
        kinds += "; retreat = depth - h"
    checks = f"{kinds}; certificates reach the goal in depth moves, no repeats"
    if not status.unproven:
        return BankVerification([], [], f"ok: all {len(bank):,} boards verified ({checks})")
    accepted = getattr(args, "accept_unproven", False)
    deepest = max(d for _, d in status.unproven)
    return BankVerification(
        [],
        unproven,
        f"{'ok (unproven accepted)' if accepted else 'NOT PROVEN'}: all {len(bank):,} boards pass every "
        f"check, but {len(status.unproven):,} of {search:,} search boards are not proved optimal ({checks})",
        hint=f"prove them with --prove-depth {deepest} (a plain-Python IDA*; slow for large retreats) or "
        "--prove-board ID, or accept them with --accept-unproven",
    )


def _unproven_text(unproven: list, bound: int) -> str:
    """``2 not proven optimal (d* > 30): a, b`` with at most ``SHOWN_IDS`` ids; '' when none."""
    if not unproven:
        return ""
    ids = ", ".join(bid for bid, _ in unproven[:SHOWN_IDS])
    more = f" and {len(unproven) - SHOWN_IDS:,} more (UNPROVEN lines)" if len(unproven) > SHOWN_IDS else ""
    return f"{len(unproven):,} not proven optimal (d* > {bound}): {ids}{more}"


def summary(frame):
    """``fastspe bank show``: boards per cohort, k, layout (its blocked cells) and depth."""
    bank = frame.assign(blocks=frame["blocks"].map(tuple))
    counts = bank.groupby(["cohort", "k", "blocks", "depth"], sort=True).size().reset_index(name="boards")
    counts["blocks"] = [",".join(map(str, b)) or "-" for b in counts["blocks"]]
    return counts


# ---- solve ----------------------------------------------------------------------------------------------------


def _ints(text: str, what: str) -> list[int]:
    parts = text.replace(",", " ").split()
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise UserError(f"{what} must be whole numbers separated by spaces or commas, got {text!r}") from None


@contextlib.contextmanager
def _pdb_progress(ui: Ui):
    """A ``progress(done, total)`` callback that opens a display only if a pattern database is built."""
    with contextlib.ExitStack() as stack:
        update = []

        def report(done: int, total: int) -> None:
            if not update:
                update.append(stack.enter_context(ui.progress("pattern databases", total, "entries")))
            update[0](done, total)

        yield report


def _announce_build(ui: Ui, heuristic: str, rows: int, cols: int, blocks) -> None:
    """Before the 7-8 tables are built: their size, where they go and about how long it takes."""
    from .layout import Layout
    from .planners.pdb import pdb_dir
    from .planners.pdb_packed import build_estimate, strong_partition, strong_present

    if heuristic != "7-8":
        return
    try:
        layout = Layout(rows, cols, tuple(blocks))
    except (UserError, ValueError):
        return  # the solve says what is wrong
    partition = strong_partition(layout)
    if partition is None or strong_present(layout):
        return
    size, seconds = build_estimate(layout, partition)
    ui.say(
        f"building the 7-8 pattern databases once: {size / 1e6:,.0f} MB in {pdb_dir()}, about "
        f"{max(1, round(seconds / 60))} minutes (more on a busy machine); later solves load them",
        err=True,
    )


def _settings(args) -> tuple[int, int, str, str]:
    return (args.rows or 4, args.cols or 4, args.goal or "blank-last", args.heuristic or "auto")


def solve(args, ui: Ui) -> dict:
    """``fastspe solve --board``: one board's optimal plan, as the JSON object the command prints."""
    from .planners.solver import answer_fields, solve as solve_board

    if args.board is None:
        raise UserError("the sliding puzzle solves --board CELLS (or --input BOARDS.jsonl)")
    rows, cols, goal, heuristic = _settings(args)
    board = _ints(args.board, "--board")
    blocks = _ints(args.blocks, "--blocks") if args.blocks is not None else None
    with _pdb_progress(ui) as built:
        _announce_build(
            ui, heuristic, rows, cols, blocks if blocks is not None else [i for i, v in enumerate(board) if v == -1]
        )
        sol = solve_board(
            board, rows, cols, blocks, max_nodes=args.max_nodes, progress=built, goal=goal, heuristic=heuristic
        )
    blocks = blocks if blocks is not None else [i for i, v in enumerate(board) if v == -1]
    return {**answer_fields(sol), "board": board, "rows": rows, "cols": cols, "blocks": sorted(blocks)}


@contextlib.contextmanager
def record_solver(args, ui: Ui):
    """``fastspe solve --input``: a function from each line to its answer, one pattern-database display for the
    whole file."""
    from .planners.solver import solve_record

    _rows, _cols, goal, heuristic = _settings(args)
    if heuristic == "7-8":
        _announce_build(ui, heuristic, 4, 4, [])
    with _pdb_progress(ui) as built:
        yield lambda record, number: solve_record(
            record, max_nodes=args.max_nodes, progress=built, goal=goal, heuristic=heuristic
        )


OPTIONS = {"bank verify": VERIFY_OPTIONS, "solve": SOLVE_OPTIONS}
