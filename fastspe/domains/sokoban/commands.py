"""Sokoban's part of ``fastspe solve``, ``bank build`` and ``bank verify``: its options and what they do, behind the
``Domain`` methods of ``domain.py`` (the command line prints and picks exit codes).

``solve --level FILE.xsb`` prints one JSON object; ``solve --input LEVELS.jsonl --out OUT.jsonl`` reads lines
``{"id", "level"}`` (XSB text) and writes each line plus ``length`` (moves of the plan), ``pushes``, ``moves``
(``U,D,...``), ``nodes`` and ``seconds``, or an ``error`` (unsolvable, a dead start, the node limit) for that
line alone; ``--objective`` picks the fewest moves (then pushes, the default) or the fewest pushes (then moves).
``bank build --design D.json|sokoban-paper`` builds a certified bank, ``bank build --levels FILE`` banks
given levels; ``bank verify`` re-derives it with plain Python.
"""

from __future__ import annotations

import contextlib

from ...errors import UserError
from ..contract import BankVerification, GivenBank, Option, Ui

DEFAULT_COHORT = "custom"

BUILD_OPTIONS = (
    Option(
        ("--levels",),
        "bank these levels instead of a design: a .jsonl file of {id, level} lines (as solve --input "
        "reads) or an XSB collection (levels separated by blank lines, ';' or Title: lines naming them), each "
        "certified by the exact solver",
        {"metavar": "FILE"},
    ),
    Option(("--cohort",), f"--levels: the cohort of the banked levels (default: {DEFAULT_COHORT})", {}),
    Option(
        ("--max-nodes",),
        "--levels: give up on a level after this many stored search states (default: 20,000,000)",
        {"type": "int:1:1000000000000", "dest": "max_nodes"},
    ),
    Option(
        ("--skip-unsolved",),
        "--levels: bank every level that can be certified and report the others (a count, "
        "and per level its line and why: too big, too many boxes, dead, unsolvable, node limit, refused) instead "
        "of stopping at the first",
        {"action": "store_true", "dest": "skip_unsolved", "default": False},
    ),
    Option(
        ("--objective",),
        "--levels: what d* (depth) counts: moves (fewest moves, then fewest pushes) or pushes "
        "(fewest pushes, then fewest moves); the bank records both optima where the solver certifies both "
        "(default: moves)",
        {"choices": ("moves", "pushes"), "default": None},
    ),
)
SOLVE_OPTIONS = (
    Option(
        ("--level",),
        "an XSB level file (# wall, . goal, $ box, * box on goal, @ player, + player on goal)",
        {"metavar": "FILE"},
    ),
    Option(
        ("--objective",),
        "what the plan minimises: moves (the fewest moves, then the fewest pushes) or pushes "
        "(the fewest pushes, then the fewest moves) (default: moves)",
        {"choices": ("moves", "pushes")},
    ),
)


# ---- solve ----------------------------------------------------------------------------------------------------


def solve(args, ui: Ui) -> dict:
    """``fastspe solve --level``: one level's optimal plan (``--objective``), as the JSON object the command prints;
    a progress display counts the states stored while the search runs."""
    from ...boundary.text_files import read_text
    from .solver import solve_level

    if args.level is None:
        raise UserError("--domain sokoban needs --level FILE.xsb or --input LEVELS.jsonl")
    text = read_text(args.level)
    objective = _objective(args)
    try:
        with ui.progress("solve", None, "states") as update:
            sol = solve_level(text, args.max_nodes, objective, progress=lambda p: update(p.stored))
    except UserError as exc:  # the level's own message says the line and column; the file is the user's to find
        raise type(exc)(f"{args.level}: {exc}") from None
    return {
        "length": sol.length,
        "pushes": sol.pushes,
        "moves": sol.moves,
        "objective": sol.objective,
        "nodes": sol.nodes,
        "seconds": round(sol.seconds, 6),
        "level": text.strip("\n"),
    }


def _objective(args) -> str:
    return getattr(args, "objective", None) or "moves"


@contextlib.contextmanager
def record_solver(args, ui: Ui):
    """``fastspe solve --input``: each line's answer, an ``error`` naming the file and the level."""
    from .solver import solve_level_record

    def solve_one(record: dict, number: int) -> dict:
        answer = solve_level_record(record, args.max_nodes, _objective(args))
        if "error" in answer:
            where = f"id {record['id']!r}" if isinstance(record.get("id"), (str, int)) else f"level {number}"
            answer["error"] = f"{args.input}: {where}: {answer['error']}"
        return answer

    yield solve_one


# ---- bank build and verify ------------------------------------------------------------------------------------


def given_bank(args, ui: Ui) -> GivenBank | None:
    """``bank build --levels FILE``: every level certified (d*, both optima, an optimal plan) before anything is
    written; with ``--skip-unsolved`` the levels that cannot be are reported (``given.skip_report``) and left out."""
    if getattr(args, "levels", None) is None:
        return None
    from .given import bank_from_levels, skip_report
    from .level_files import read_given_levels

    given = read_given_levels(args.levels)
    ids = None if any(g.id is None for g in given) else [g.id for g in given]
    texts, where = [g.text for g in given], [g.where for g in given]
    cohort = args.cohort if args.cohort is not None else DEFAULT_COHORT
    skipped = [] if getattr(args, "skip_unsolved", False) else None
    objective = getattr(args, "objective", None) or "moves"

    def pieces(progress):
        table = bank_from_levels(
            texts,
            ids,
            cohort,
            args.max_nodes,
            where,
            progress=progress,
            objective=objective,
            skipped=skipped,
            searching=_long_search_lines(ui),
        )
        for line in skip_report(skipped or [], len(given)):
            ui.say(line, err=True)
        if table.num_rows == 0:
            raise UserError(f"{args.levels}: none of its {len(given):,} levels could be certified (see above)")
        yield table

    return GivenBank(len(given), pieces, f"from {args.levels}", {"--levels": args.levels})


LONG_SEARCH_SECONDS = 10.0  # a search running longer than this says where it stands, once per this many seconds


def _long_search_lines(ui: Ui):
    """``searching`` for ``bank_from_levels``: a line on stderr every ``LONG_SEARCH_SECONDS`` of one level's search
    (states so far and the least cost a plan can still have), so a long build shows it is moving."""
    said: dict = {}

    def searching(name: str, objective: str, at) -> None:
        step = int(at.seconds // LONG_SEARCH_SECONDS)
        if step >= 1 and said.get((name, objective)) != step:
            said[(name, objective)] = step
            ui.say(
                f"{name}: fewest {objective}: {at.seconds:.0f} s, {at.stored:,} states stored, no plan under "
                f"{at.bound} {objective}",
                err=True,
            )

    return searching


def verify(table, args, ui: Ui) -> BankVerification:
    """``fastspe bank verify`` of a Sokoban bank (``table``: read with the schema checked only): every level verified
    and proved optimal for the bank's objective (moves or pushes), and the other objective's recorded optimum too,
    or named; a level the plain-Python search could not finish within its state bound is unproven (named, counted),
    as for the sliding puzzle."""
    from .verify.bank import OPTIMALITY_STATES, verify_sokoban_bank

    skipped: list = []
    unproven_of: dict = {}
    with ui.progress("bank verify", table.num_rows, "levels") as update:
        failures = verify_sokoban_bank(table, progress=update, skipped=skipped, unproven=unproven_of)
    unproven = [
        (
            board_id,
            f"the certificate replays, but the search for the fewest "
            f"{' and the fewest '.join(unproven_of.get(board_id, ['moves']))} passed "
            f"{OPTIMALITY_STATES:,} states before it could rule out a better plan",
        )
        for board_id in skipped
    ]
    if failures:
        return BankVerification(failures, unproven, f"{len(failures)} of {table.num_rows} levels failed verification")
    aims = set(table.column("objective").to_pylist()) if "objective" in table.column_names else {"moves"}
    both = {"push_optimal_moves", "move_optimal_moves"} <= set(table.column_names)
    proved = "fewest moves and fewest pushes" if both else "fewest " + " and ".join(sorted(a or "moves" for a in aims))
    checks = (
        f"each level parses, its certificate replays to every box on a goal with the stated depth and pushes, "
        f"and an independent search ({proved})"
    )
    if not skipped:
        return BankVerification([], [], f"ok: all {table.num_rows:,} levels verified ({checks} finds no better plan)")
    accepted = getattr(args, "accept_unproven", False)
    return BankVerification(
        [],
        unproven,
        f"{'ok (unproven accepted)' if accepted else 'NOT PROVEN'}: all "
        f"{table.num_rows:,} levels pass every check, but {len(skipped):,} are not proved "
        f"optimal ({checks} of up to {OPTIMALITY_STATES:,} states per search)",
    )


OPTIONS = {"bank build": BUILD_OPTIONS, "solve": SOLVE_OPTIONS}
