"""``fastspe verdicts verify``."""

from __future__ import annotations

import argparse

from .._text import count
from ._common import say
from .progress import progress
from .score import distinct_responses, read_response_files, responses_option


def register(sub: argparse._SubParsersAction) -> None:
    verdicts = sub.add_parser(
        "verdicts",
        help="independently check verdicts files",
        description="Verdicts files, checked by a second implementation that shares no code with the scorer.",
    )
    verbs = verdicts.add_subparsers(dest="verdicts_command", metavar="VERB", required=True)

    verify = verbs.add_parser(
        "verify",
        help="re-parse and re-replay every answer and compare with its verdict",
        description="Re-parse every answer and replay it on its board in plain Python (its own "
        "parser, BFS distances and replay, nothing shared with `fastspe score`), "
        "compare every verdict column row by row, and name every difference "
        "(exit 1 if any).",
    )
    verify.add_argument("--bank", required=True, help="bank file the answers were scored against (.parquet or .jsonl)")
    responses_option(
        verify,
        "responses or run log the verdicts were scored from (.jsonl, .csv, .parquet, or an "
        "inspect_ai .eval log); repeat it for several files, as given to `fastspe score`",
    )
    verify.add_argument(
        "--verdicts",
        required=True,
        metavar="VERDICTS",
        help="verdicts file from `fastspe score` (.parquet, .csv or .jsonl)",
    )
    verify.add_argument(
        "--parse",
        choices=("lenient", "strict"),
        default="lenient",
        help="the --parse the verdicts were scored with (a verdicts file does not record it)",
    )
    verify.add_argument(
        "--format-failure",
        choices=("illegal", "noncompletion"),
        default="illegal",
        help="the --format-failure the verdicts were scored with",
    )
    verify.set_defaults(func=cmd_verify)


def cmd_verify(args) -> int:
    import pandas as pd

    from ..boundary.banks import read_bank_table
    from ..verify.verdicts import verify_verdicts_files

    distinct_responses(args.responses)
    bank = read_bank_table(args.bank)
    answers = read_response_files(args.responses, pd.DataFrame({"board_id": bank.column("board_id").to_pylist()}))
    notes: dict = {}
    with progress("verdicts verify", None, "answers") as update:
        diffs, compared = verify_verdicts_files(
            bank,
            answers,
            args.verdicts,
            parse=args.parse,
            format_failure=args.format_failure,
            progress=update,
            notes=notes,
        )
    for diff in diffs:
        say(f"DIFF {diff}")
    if diffs:
        rows = len({(d.condition, d.board_id, d.trial) for d in diffs})
        say(
            f"{count(len(diffs), 'difference')} in {count(rows, 'output')} of {count(compared, 'verdict')}; if every row differs, check "
            "that --parse and --format-failure are the ones the file was scored with",
            err=True,
        )
        return 1
    fields = ["parse", *notes["fields"]]
    beyond, unchecked = "", notes["unchecked"]
    if unchecked:
        names = ", ".join(sorted({u[3] for u in unchecked}))
        beyond = (
            f"; {count(len(unchecked), 'value')} of {names} not re-derived: the independent search passed its bound"
        )
    say(f"ok: all {compared:,} verdicts re-derived independently ({', '.join(fields)}){beyond}")
    return 0
