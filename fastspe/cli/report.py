"""``fastspe report --bank BANK --verdicts VERDICTS --out DIR [--draws N] [--seed N]``."""

from __future__ import annotations

import argparse

from ._common import draws_option, refuse_overwrite, say, seed_option
from .progress import Stages

# Also in fastspe.intervals (DEFAULT_DRAWS, DEFAULT_SEED); repeated here so that `--help` imports no numba.
DEFAULT_DRAWS = 5000
DEFAULT_SEED = 20261012
STAGE_UNITS = {"bootstrap": "draws", "paired differences": "draws", "tables and figures": "steps"}


def register(sub: argparse._SubParsersAction) -> None:
    report = sub.add_parser("report", help="tables, figures and bootstrap intervals from verdicts",
                            description="Write DIR/metrics.csv (long form, 95% stratified whole-board bootstrap "
                                        "intervals), DIR/tables/, DIR/figures/, DIR/report.md and DIR/report.html.")
    report.add_argument("--bank", required=True, help="the bank the answers were scored against (.parquet or .jsonl)")
    report.add_argument("--verdicts", required=True, help="verdicts from `fastspe score` (.parquet, .csv or .jsonl)")
    report.add_argument("--out", required=True, metavar="DIR", help="report folder to write")
    report.add_argument("--draws", type=draws_option, default=DEFAULT_DRAWS, metavar="N", help="bootstrap draws")
    report.add_argument("--seed", type=seed_option, default=DEFAULT_SEED, metavar="N", help="bootstrap seed")
    report.add_argument("--no-figures", action="store_true",
                        help="write the tables only (no matplotlib needed; figures need fastspe[plots])")
    report.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from ..bank import read_bank
    from ..boundary.verdicts import read_verdicts
    from ..report import write_report

    # The report folder is replaced whole: it must not be, or hold, an input.
    refuse_overwrite({"--bank": args.bank, "--verdicts": args.verdicts}, {"--out": args.out})
    bank = read_bank(args.bank)
    verdicts = read_verdicts(args.verdicts, bank=bank)
    with Stages("report", STAGE_UNITS) as stage:
        path = write_report(bank, verdicts, args.out, draws=args.draws, seed=args.seed, progress=stage,
                            figures=not args.no_figures)
    say(f"wrote {path} ({verdicts['condition'].nunique()} conditions, {args.draws:,} draws, seed {args.seed})", err=True)
    return 0
