"""``fastspe solve``: optimal plans of one board (``--board``) or of a JSONL file of boards (``--input``)."""

from __future__ import annotations

import argparse
import contextlib
import json

from ._common import fail, int_option, refuse_overwrite, say, text_option, warn
from . import sokoban
from .progress import progress
from .sokoban import domain_option
from ..errors import UserError

MAX_NODES = 10**15


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solve", help="optimal plan lengths and plans of boards (exact IDA* search)",
                            description="Solve boards optimally with IDA*. Answers give h, the paper's h(s) (free-cell "
                                        "graph-distance sum), and h_search, the search's bound: the larger of h and "
                                        "additive pattern databases, built once per layout into the user's cache "
                                        "folder (FASTSPE_PDB_DIR overrides it). One board prints one JSON object; "
                                        "--input FILE.jsonl writes one JSON line per non-blank input line to --out "
                                        "(a bad line gets an \"error\" naming the file and line).")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--board", type=text_option,
                      help="cells row-major, separated by spaces or commas: 0 the blank, -1 a blocked cell")
    what.add_argument("--level", help="--domain sokoban: an XSB level file (# wall, . goal, $ box, * box on goal, "
                                      "@ player, + player on goal)")
    what.add_argument("--input", help="JSONL file: one {id, rows, cols, blocks, board} object per line "
                                      "(--domain sokoban: one {id, level} object, the level as XSB text)")
    parser.add_argument("--out", help="JSONL file to write with --input (each line plus length, moves, h, h_search, "
                                      "nodes, seconds, heuristic, or an error; Sokoban: length, pushes, moves, nodes, "
                                      "seconds, or an error)")
    domain_option(parser, what="sliding (boards, IDA*) or sokoban (levels, move-optimal A*) (default: sliding)")
    parser.add_argument("--rows", type=int_option(2, 8), default=4, help="rows of --board")
    parser.add_argument("--cols", type=int_option(2, 8), default=4, help="columns of --board")
    parser.add_argument("--blocks", type=text_option, default=None,
                        help="blocked cells of --board, comma-separated (default: its -1 cells)")
    parser.add_argument("--goal", choices=("blank-last", "blank-first"), default="blank-last",
                        help="the goal board: blank-last is fastspe's (1 2 ... 15 0 on 4x4; the tiles in row-major "
                             "order over the free cells, then the blank), blank-first the convention of Korf's "
                             "published sets (0 1 2 ... 15); moves are the blank's on the board as given "
                             "(default: blank-last)")
    parser.add_argument("--heuristic", choices=("auto", "7-8", "layout"), default="auto",
                        help="pattern databases: auto uses the 7-8 tables of the open 4x4 board once they are built "
                             "(else the layout's own, 6-6-3 on the open board); 7-8 uses them and builds them first "
                             "if they are missing (once: about 290 MB in the cache folder, several minutes on two "
                             "cores, with progress); layout never uses them (default: auto; the answer's "
                             "\"heuristic\" says which was used)")
    parser.add_argument("--max-nodes", type=int_option(1, MAX_NODES), default=None,
                        help="give up on a board after this many search nodes (default: no limit)")
    parser.set_defaults(func=cmd_solve)


def _ints(text: str, what: str) -> list[int]:
    parts = text.replace(",", " ").split()
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise UserError(f"{what} must be whole numbers separated by spaces or commas, got {text!r}") from None


@contextlib.contextmanager
def _pdb_progress():
    """A ``progress(done, total)`` callback that opens a display only if a pattern database is built."""
    with contextlib.ExitStack() as stack:
        update = []

        def report(done: int, total: int) -> None:
            if not update:
                update.append(stack.enter_context(progress("pattern databases", total, "entries")))
            update[0](done, total)

        yield report


def _announce_build(heuristic: str, rows: int, cols: int, blocks) -> None:
    """Before the 7-8 tables are built: their size, where they go and about how long it takes."""
    from ..domains.sliding.layout import Layout
    from ..planners.pdb import pdb_dir
    from ..planners.pdb_packed import build_estimate, strong_partition, strong_present

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
    say(f"building the 7-8 pattern databases once: {size / 1e6:,.0f} MB in {pdb_dir()}, about "
        f"{max(1, round(seconds / 60))} minutes (more on a busy machine); later solves load them", err=True)


def cmd_solve(args) -> int:
    if args.domain == "sokoban":
        return sokoban.solve_command(args)
    if args.level is not None:
        return fail("--level is a Sokoban level: add --domain sokoban")
    if args.input is None:
        if args.out is not None:
            return fail("--out goes with --input; --board prints its answer")
        return _solve_one(args)
    if args.out is None:
        return fail("--input needs --out (the JSONL file to write)")
    refuse_overwrite({"--input": args.input}, {"--out": args.out})
    return _solve_file(args)


def _solve_one(args) -> int:
    from ..planners.solver import solve

    board = _ints(args.board, "--board")
    blocks = _ints(args.blocks, "--blocks") if args.blocks is not None else None
    with _pdb_progress() as built:
        _announce_build(args.heuristic, args.rows, args.cols, blocks if blocks is not None else
                        [i for i, v in enumerate(board) if v == -1])
        sol = solve(board, args.rows, args.cols, blocks, max_nodes=args.max_nodes, progress=built, goal=args.goal,
                    heuristic=args.heuristic)
    blocks = blocks if blocks is not None else [i for i, v in enumerate(board) if v == -1]
    say(json.dumps({"length": sol.length, "moves": sol.moves, "h": sol.h, "h_search": sol.h_search,
                    "nodes": sol.nodes, "seconds": round(sol.seconds, 6), "heuristic": sol.heuristic, "board": board,
                    "rows": args.rows, "cols": args.cols, "blocks": sorted(blocks)}, allow_nan=False))
    return 0


def _solve_file(args) -> int:
    from ..boundary.board_lines import read_board_lines, write_answer_lines
    from ..planners.solver import solve_record

    records = read_board_lines(args.input, warn)
    if args.heuristic == "7-8":
        _announce_build(args.heuristic, 4, 4, [])
    answers = []
    with _pdb_progress() as built, progress("solve", len(records), "boards") as update:
        for i, record in enumerate(records):
            answers.append(record if set(record) == {"error"} else
                           solve_record(record, max_nodes=args.max_nodes, progress=built,
                                        goal=args.goal, heuristic=args.heuristic))
            update(i + 1, failed=sum("error" in a for a in answers))
    write_answer_lines(answers, args.out)
    failed = sum("error" in a for a in answers)
    if failed:
        say(f"wrote {len(answers):,} lines to {args.out}; {failed:,} boards failed (see their \"error\")", err=True)
        return 1
    say(f"wrote {len(answers):,} optimal plans to {args.out}", err=True)
    return 0
