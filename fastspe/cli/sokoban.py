"""The Sokoban side of ``fastspe solve``, ``bank build`` and ``bank verify`` (``--domain sokoban``).

``solve --level FILE.xsb`` prints one JSON object; ``solve --input LEVELS.jsonl --out OUT.jsonl`` reads lines
``{"id", "level"}`` (XSB text) and writes each line plus ``length`` (fewest moves), ``pushes``, ``moves``
(``U,D,...``), ``nodes`` and ``seconds``, or an ``error`` (unsolvable, a dead start, the node limit) for that
line alone. ``bank build --design D.json|sokoban-paper`` builds a certified bank; ``bank verify`` re-derives
it with plain Python (the domain comes from the bank file).
"""

from __future__ import annotations

import argparse
import json

from ._common import refuse_overwrite, say, warn
from .progress import progress
from ..errors import UserError

SOKOBAN_PAPER = "sokoban-paper"
DOMAINS = ("sliding", "sokoban")


def domain_option(parser: argparse.ArgumentParser, default: str | None = "sliding", what: str = "") -> None:
    """``--domain sliding|sokoban``."""
    parser.add_argument("--domain", choices=DOMAINS, default=default,
                        help=what or f"the puzzle domain (default: {default})")


def check_domain(bank, wanted: str | None, source) -> None:
    """A ``UserError`` when ``--domain`` was given and the bank is of another domain."""
    from ..domains.registry import domain_name_of

    found = domain_name_of(bank)
    if wanted is not None and wanted != found:
        raise UserError(f"{source}: a {found} bank, not a {wanted} one")


# ---- solve ----------------------------------------------------------------------------------------------------

def _answer(level_text: str, max_nodes: int | None) -> dict:
    from ..planners.sokoban import solve_level

    sol = solve_level(level_text, max_nodes)
    return {"length": sol.length, "pushes": sol.pushes, "moves": sol.moves, "nodes": sol.nodes,
            "seconds": round(sol.seconds, 6)}


def solve_command(args) -> int:
    """``fastspe solve --domain sokoban``: one level (``--level``) or a JSONL file of them (``--input``)."""
    from ..boundary.text_files import read_text

    if args.board is not None:
        raise UserError("--board is a sliding-puzzle board; a Sokoban level is --level FILE.xsb or --input")
    if args.input is None:
        if args.level is None:
            raise UserError("--domain sokoban needs --level FILE.xsb or --input LEVELS.jsonl")
        if args.out is not None:
            raise UserError("--out goes with --input; --level prints its answer")
        text = read_text(args.level)
        say(json.dumps({**_answer(text, args.max_nodes), "level": text.strip("\n")}, allow_nan=False))
        return 0
    if args.out is None:
        raise UserError("--input needs --out (the JSONL file to write)")
    refuse_overwrite({"--input": args.input}, {"--out": args.out})
    return _solve_file(args)


def _solve_file(args) -> int:
    from ..boundary.board_lines import read_board_lines, write_answer_lines

    records = read_board_lines(args.input, warn)
    answers = []
    with progress("solve", len(records), "levels") as update:
        for n, record in enumerate(records, start=1):
            answers.append(record if set(record) == {"error"} else _solve_record(record, args, n))
            update(n, failed=sum("error" in a for a in answers))
    write_answer_lines(answers, args.out)
    failed = sum("error" in a for a in answers)
    if failed:
        say(f"wrote {len(answers):,} lines to {args.out}; {failed:,} levels failed (see their \"error\")", err=True)
        return 1
    say(f"wrote {len(answers):,} move-optimal plans to {args.out}", err=True)
    return 0


def _solve_record(record: dict, args, number: int) -> dict:
    """One input line's answer: the line plus the solution, or plus an ``error`` naming the file and the level."""
    from ..planners.sokoban import solve_level_record

    answer = solve_level_record(record, args.max_nodes)
    if "error" in answer:
        where = f"id {record['id']!r}" if isinstance(record.get("id"), (str, int)) else f"level {number}"
        answer["error"] = f"{args.input}: {where}: {answer['error']}"
    return answer


# ---- bank build and verify ------------------------------------------------------------------------------------

def build_command(args) -> int:
    """``fastspe bank build --domain sokoban``: from a design, or (``--levels``) of given levels."""
    from ..bank.sokoban import build_sokoban_bank, load_sokoban_design
    from ..boundary.banks import check_bank_table, write_bank_table
    from ..boundary.files import table_format

    if args.levels is None:
        for option, value in (("--cohort", args.cohort != "custom"), ("--max-nodes", args.max_nodes is not None)):
            if value:
                raise UserError(f"{option} goes with --levels (a design names its cohorts and certifies every level)")
        name = SOKOBAN_PAPER if args.design in (None, "paper") else args.design  # 'paper': the sliding name
        refuse_overwrite({"--design": None if name == SOKOBAN_PAPER else name}, {"--out": args.out})
    else:
        for option, value in (("--design", args.design), ("--seed", args.seed)):
            if value is not None:
                raise UserError(f"{option} builds levels from a design; --levels banks the given ones: give one or the other")
        refuse_overwrite({"--levels": args.levels}, {"--out": args.out})
    if table_format(args.out, allowed=(".parquet", ".jsonl")) != "parquet":
        raise UserError(f"{args.out}: a Sokoban bank is a .parquet file (it records its domain in the file)")
    if args.levels is None:
        design = load_sokoban_design(name, seed=args.seed)
        with progress("bank build", design.total, "levels") as update:
            table = build_sokoban_bank(design, progress=update)
        done = f"(seed {design.seed})"
    else:
        table = _given_levels_bank(args)
        done = f"from {args.levels}"
    table = check_bank_table(table, "the built bank")
    write_bank_table(table, args.out)
    say(f"wrote {table.num_rows:,} certified levels to {args.out} {done}", err=True)
    return 0


def _given_levels_bank(args):
    """The bank of ``--levels``: every level certified (d*, pushes, an optimal plan) before anything is written."""
    from ..bank.sokoban import bank_from_levels
    from ..boundary.level_files import read_given_levels

    given = read_given_levels(args.levels)
    ids = None if any(g.id is None for g in given) else [g.id for g in given]
    texts, where = [g.text for g in given], [g.where for g in given]
    with progress("bank build", len(given), "levels") as update:
        return bank_from_levels(texts, ids, args.cohort, args.max_nodes, where, progress=update)


def verify_command(args, table) -> int:
    """``fastspe bank verify`` of a Sokoban bank (``table``: read with the schema checked only). Exit 0: every level
    verified and proved move-optimal; 1: some level failed; 3: none failed but some were not proved optimal within
    the plain-Python search's state bound (0 with ``--accept-unproven``), as for the sliding puzzle."""
    from ..verify.sokoban_bank import OPTIMALITY_STATES, verify_sokoban_bank

    skipped: list = []
    with progress("bank verify", table.num_rows, "levels") as update:
        failures = verify_sokoban_bank(table, progress=update, skipped=skipped)
    for board_id, reason in failures:
        say(f"FAIL {board_id}: {reason}")
    for board_id in skipped:
        say(f"UNPROVEN {board_id}: the certificate replays, but the breadth-first search passed "
            f"{OPTIMALITY_STATES:,} states before it could rule out a shorter plan")
    if failures:
        say(f"{len(failures)} of {table.num_rows} levels failed verification", err=True)
        return 1
    checks = ("each level parses, its certificate replays to every box on a goal in depth moves with the stated "
              "pushes, and an independent breadth-first search")
    if not skipped:
        say(f"ok: all {table.num_rows:,} levels verified ({checks} finds no shorter plan)")
        return 0
    accepted = args.accept_unproven
    say(f"{'ok (unproven accepted)' if accepted else 'NOT PROVEN'}: all {table.num_rows:,} levels pass every check, "
        f"but {len(skipped):,} are not proved move-optimal ({checks} of up to {OPTIMALITY_STATES:,} states)")
    return 0 if accepted else 3
