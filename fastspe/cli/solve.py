"""``fastspe solve``: certified optimal plans of one state its domain's options give, or of a JSONL file of them
(``--input``): the domain's exact solver (``Domain.solve``, ``Domain.record_solver``)."""

from __future__ import annotations

import argparse
import json

from ._common import fail, int_option, refuse_overwrite, say, warn
from .domain_options import UI, add_domain_options, check_domain_options, domain_option
from .progress import progress
from ..domains.registry import DEFAULT_DOMAIN
from .._text import count

MAX_NODES = 10**15


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "solve",
        help="optimal plan lengths and plans of given states (exact search)",
        description="Solve states optimally with the exact solver of the domain (--domain; each "
        "domain's options below say how to give it a state). One state prints one "
        "JSON object; --input FILE.jsonl writes one JSON line per non-blank input "
        'line to --out (a bad line gets an "error" naming the file and line).',
    )
    parser.add_argument(
        "--input",
        help="JSONL file: one object per line, a state as its domain reads one (its options below name the fields)",
    )
    parser.add_argument(
        "--out",
        help="JSONL file to write with --input: each line plus its answer (length, moves, ...), or plus an error",
    )
    domain_option(parser, default=DEFAULT_DOMAIN)
    parser.add_argument(
        "--max-nodes",
        type=int_option(1, MAX_NODES),
        default=None,
        help="give up on a state after this many search nodes (default: the domain's)",
    )
    add_domain_options(parser, "solve")
    parser.set_defaults(func=cmd_solve)


def cmd_solve(args) -> int:
    from ..domains.registry import domain_named

    domain = domain_named(args.domain)
    check_domain_options(args, domain)
    if not domain.solver:
        return fail(f"the {domain.name} domain has no solver")
    if args.input is None:
        if args.out is not None:
            return fail("--out goes with --input; a state given on the command line prints its answer")
        say(json.dumps(domain.solve(args, UI), allow_nan=False))
        return 0
    if args.out is None:
        return fail("--input needs --out (the JSONL file to write)")
    refuse_overwrite({"--input": args.input}, {"--out": args.out})
    return _solve_file(args, domain)


def _solve_file(args, domain) -> int:
    from ..boundary.board_lines import read_board_lines, write_answer_lines

    records = read_board_lines(args.input, warn)
    units = f"{domain.unit}s"
    answers = []
    with domain.record_solver(args, UI) as solve_one, progress("solve", len(records), units) as update:
        for n, record in enumerate(records, start=1):
            answers.append(record if set(record) == {"error"} else solve_one(record, n))
            update(n, failed=sum("error" in a for a in answers))
    write_answer_lines(answers, args.out)
    failed = sum("error" in a for a in answers)
    if failed:
        say(
            f'wrote {count(len(answers), "line")} to {args.out}; {count(failed, domain.unit)} failed (see their "error")',
            err=True,
        )
        return 1
    say(f"wrote {count(len(answers), 'optimal plan')} to {args.out}", err=True)
    return 0
